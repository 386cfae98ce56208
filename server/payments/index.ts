// Builds the configured payment gateway and the routes it needs (docs/payments.md).
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { PaymentGateway } from './gateway.ts';
import { fulfilmentHandlers } from './handlers.ts';
import { ticketCodesFor } from '../domain/ticket-codes.ts';
import { LocalGateway, localCheckoutRouter } from './local.ts';
import { Payments, type FulfilmentHandlers } from './payments.ts';
import { StripeGateway, stripeClient, stripeWebhookRouter } from './stripe.ts';

export interface PaymentsSetup {
  payments: Payments;
  router: Router;
}

export interface PaymentsOverrides {
  /** A Stripe client (tests point one at a local server with host/port/protocol). */
  stripe?: Stripe;
  handlers?: FulfilmentHandlers;
}

/**
 * Where a checkout URL of the configured gateway leads: what a page whose form post answers a
 * redirect to the checkout must admit in its CSP's form-action (browsers check the redirect too).
 */
export function checkoutOrigins(config: Config): string[] {
  if (config.payments.gateway === 'stripe') return ['https://checkout.stripe.com'];
  if (config.payments.gateway === 'local') return [new URL(config.publicUrl).origin];
  return [];
}

export function setUpPayments(
  config: Config,
  db: Db,
  logger: Logger,
  overrides: PaymentsOverrides = {},
): PaymentsSetup {
  const settings = config.payments;
  const router = express.Router();
  let gateway: PaymentGateway | null = null;
  let stripe: Stripe | null = null;
  if (settings.gateway === 'stripe') {
    stripe = overrides.stripe ?? stripeClient(settings.stripeSecretKey!);
    gateway = new StripeGateway(stripe);
  } else if (settings.gateway === 'local') {
    gateway = new LocalGateway(config.publicUrl);
  }
  const payments = new Payments({
    db,
    gateway,
    handlers: overrides.handlers ?? fulfilmentHandlers({ ticketCodes: ticketCodesFor(config), logger }),
    config: settings,
    logger,
  });
  if (stripe) router.use(stripeWebhookRouter(stripe, settings.stripeWebhookSecret!, payments, logger));
  if (settings.gateway === 'local') router.use(localCheckoutRouter(db, payments));
  return { payments, router };
}

export { Payments, PaymentsUnavailableError } from './payments.ts';
export type {
  FulfilmentHandler,
  FulfilmentHandlers,
  PaymentFacts,
  RefundFacts,
  ReleaseReason,
  RenewalFacts,
  RenewalOutcome,
} from './payments.ts';
export { PaymentProcessorError, withSessionId } from './gateway.ts';
export type { BillingTerms, CheckoutRecord, CheckoutRequest, OpenedCheckout, RecurringTerms } from './gateway.ts';
