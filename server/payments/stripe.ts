// The Stripe gateway: Checkout Sessions out, signed webhooks in.
//
// Nothing is granted from the buyer's redirect to successUrl: only a verified
// `checkout.session.completed` (paid) or `checkout.session.async_payment_succeeded` reaches
// fulfil(). Stripe retries a webhook until it gets a 2xx, so a failure while fulfilling answers
// 500 and the next delivery tries again; fulfil() is idempotent, so a retry grants nothing twice.
import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import Stripe from 'stripe';
import { Refusal } from '../domain/refusal.ts';
import { messages } from '../shared/messages.ts';
import { PaymentProcessorError, type CheckoutRecord, type PaymentGateway } from './gateway.ts';
import type { Payments, RenewalOutcome } from './payments.ts';

export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe' as const;
  constructor(private readonly stripe: Stripe) {}

  async createSession(checkout: CheckoutRecord): Promise<{ processorSessionId: string; checkoutUrl: string }> {
    // Our ids travel as metadata both on the session and on its payment intent, so a refund
    // (which Stripe reports on the charge) can be traced back without a lookup at Stripe.
    const metadata = {
      svc_checkout_id: checkout.id,
      svc_community_id: checkout.communityId,
      svc_kind: checkout.purpose.kind,
    };
    // Billed again: a subscription whose metadata leads invoice.paid and customer.subscription.deleted
    // back to this checkout. A line marked firstChargeOnly has no `recurring`, so Stripe bills it once.
    const recurring = checkout.recurring
      ? { interval: checkout.recurring.interval, interval_count: checkout.recurring.intervalCount }
      : null;
    const billing = recurring
      ? {
          mode: 'subscription' as const,
          subscription_data: {
            metadata: {
              ...metadata,
              ...(checkout.installments ? { svc_installments: String(checkout.installments.count) } : {}),
            },
          },
        }
      : { mode: 'payment' as const, payment_intent_data: { metadata } };
    try {
      const session = await this.stripe.checkout.sessions.create(
        {
          ...billing,
          line_items: checkout.lineItems.map((item) => ({
            quantity: item.quantity,
            price_data: {
              currency: checkout.currency.toLowerCase(),
              unit_amount: item.unitAmount,
              product_data: { name: item.name, ...(item.description ? { description: item.description } : {}) },
              ...(recurring && !item.firstChargeOnly ? { recurring } : {}),
            },
          })),
          // Stripe substitutes {CHECKOUT_SESSION_ID} itself; it is passed through untouched.
          success_url: checkout.successUrl,
          cancel_url: checkout.cancelUrl,
          ...(checkout.customerEmail ? { customer_email: checkout.customerEmail } : {}),
          client_reference_id: checkout.id,
          expires_at: Math.floor(Date.parse(checkout.expiresAt) / 1000),
          metadata,
        },
        // A retried request (ours or the SDK's own network retry) returns the same session.
        { idempotencyKey: `svc_checkout_${checkout.id}` },
      );
      if (!session.url) throw new Error('Stripe returned a session without a url');
      return { processorSessionId: session.id, checkoutUrl: session.url };
    } catch (err) {
      throw new PaymentProcessorError('Stripe could not open a checkout session', err);
    }
  }

  async discardSession(processorSessionId: string): Promise<void> {
    await this.stripe.checkout.sessions.expire(processorSessionId);
  }
}

export function stripeClient(secretKey: string, overrides: Stripe.StripeConfig = {}): Stripe {
  return new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: 'svc' }, ...overrides });
}

function paymentIntentId(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

/** POST /stripe/webhook. Mounted before any body parser: the signature covers the raw bytes. */
export function stripeWebhookRouter(
  stripe: Stripe,
  webhookSecret: string,
  payments: Payments,
  logger?: Logger,
): Router {
  const router = express.Router();
  router.post(
    '/stripe/webhook',
    express.raw({ type: () => true, limit: '1mb' }),
    async (req: Request, res: Response) => {
      const signature = req.get('stripe-signature');
      let event: Stripe.Event;
      try {
        if (!signature) throw new Error('missing Stripe-Signature header');
        event = stripe.webhooks.constructEvent(req.body as Buffer, signature, webhookSecret);
      } catch (err) {
        logger?.warn({ reason: (err as Error).message }, 'refused a Stripe webhook');
        throw new Refusal('invalid_stripe_signature', { reason: (err as Error).message });
      }
      try {
        await handleEvent(event, payments, logger, stripe);
        res.json({ received: true });
      } catch (err) {
        // Logged here with the event's id, and answered as an envelope without the cause (the error
        // handler would log it again, as an unexpected error).
        logger?.error(
          { err, eventId: event.id, type: event.type, requestId: req.id },
          'handling a Stripe webhook failed; Stripe will retry',
        );
        res.status(500).json({ error: messages.stripeEventRetry, code: 'INTERNAL', requestId: req.id });
      }
    },
  );
  return router;
}

const idOf = (value: string | { id: string } | null | undefined): string | null => paymentIntentId(value);

/** The subscription's next steps after a renewal committed (retried deliveries ask again: both are idempotent). */
async function applyRenewalOutcome(
  stripe: Stripe | undefined,
  subscriptionId: string,
  outcome: RenewalOutcome | null,
): Promise<void> {
  if (!stripe || !outcome) return;
  if (outcome.stopBilling) {
    await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
  } else if (outcome.skipUntil) {
    // A trial bills nothing until it ends; then the subscription's interval resumes.
    await stripe.subscriptions.update(subscriptionId, {
      trial_end: Math.floor(Date.parse(outcome.skipUntil) / 1000),
      proration_behavior: 'none',
    });
  }
}

export async function handleEvent(
  event: Stripe.Event,
  payments: Payments,
  logger?: Logger,
  stripe?: Stripe,
): Promise<void> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      // Delayed methods (bank debits) complete unpaid; async_payment_succeeded follows.
      if (session.payment_status === 'unpaid') return;
      await payments.fulfil(session.id, paymentIntentId(session.payment_intent) ?? session.id, {
        email: session.customer_details?.email,
        subscriptionId: idOf(session.subscription),
      });
      return;
    }
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      await payments.fulfil(session.id, paymentIntentId(session.payment_intent) ?? session.id, {
        email: session.customer_details?.email,
        subscriptionId: idOf(session.subscription),
      });
      return;
    }
    case 'invoice.paid': {
      const invoice = event.data.object;
      // The first invoice is the checkout's own payment, which checkout.session.completed fulfils.
      if (invoice.billing_reason === 'subscription_create') return;
      const details = invoice.parent?.subscription_details;
      const checkoutId = details?.metadata?.svc_checkout_id;
      const subscriptionId = idOf(details?.subscription);
      if (!checkoutId || !subscriptionId || !invoice.id) return;
      const outcome = await payments.renew(checkoutId, {
        transactionId: invoice.id,
        gateway: 'stripe',
        amount: invoice.amount_paid,
        subscriptionId,
      });
      await applyRenewalOutcome(stripe, subscriptionId, outcome);
      return;
    }
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      const checkoutId = subscription.metadata?.svc_checkout_id;
      if (checkoutId) await payments.endSubscription(checkoutId, subscription.id);
      return;
    }
    case 'checkout.session.async_payment_failed':
      await payments.release(event.data.object.id, 'FAILED');
      return;
    case 'checkout.session.expired':
      await payments.release(event.data.object.id, 'EXPIRED');
      return;
    case 'charge.refunded': {
      const charge = event.data.object;
      const intent = paymentIntentId(charge.payment_intent);
      if (!intent) return;
      if (charge.amount_refunded < charge.amount) {
        // v1 refunds whole sales only; a partial refund made in the Stripe dashboard is left for a person.
        logger?.warn(
          { paymentIntent: intent, refunded: charge.amount_refunded, amount: charge.amount },
          'partial refund ignored (not supported in v1)',
        );
        return;
      }
      await payments.refund(intent, charge.amount_refunded);
      return;
    }
    default:
      // Subscribed to more than we handle (or a new event type): acknowledged, ignored.
      return;
  }
}
