// The payment gateway seam. Domain code (tickets, donations, memberships) describes what is being
// bought; a gateway turns that into a hosted checkout page at a processor. Completion never comes
// from the buyer's browser: Stripe's signed webhooks, or the local checkout's own Pay button,
// call Payments.fulfil(), the one path from "paid" to the domain (server/payments/payments.ts).
import type { GatewayName } from '../db/schema-payments.ts';
import { Refusal } from '../domain/refusal.ts';

export type { GatewayName };

export interface CheckoutLineItem {
  name: string;
  description?: string;
  /** Minor units, >= 0. */
  unitAmount: number;
  quantity: number;
  /** In a subscription: charged with the first payment only (Stripe bills a non-recurring line once). */
  firstChargeOnly?: boolean;
}

/** What a fulfilment handler stores about a purchase: `kind` picks the handler. */
export interface CheckoutPurpose {
  kind: string;
  [key: string]: unknown;
}

/** A subscription's period: Stripe's `price_data.recurring`. */
export interface RecurringTerms {
  interval: 'month' | 'year';
  intervalCount: number;
}

/** Optional billing terms of a checkout; absent for a one-off payment. */
export interface BillingTerms {
  /** Bill again every period (a subscription) instead of once. */
  recurring?: RecurringTerms;
  /** With `recurring`: stop after this many charges (an installment plan). */
  installments?: { count: number };
}

export interface CheckoutRequest extends BillingTerms {
  communityId: string;
  purpose: CheckoutPurpose;
  lineItems: CheckoutLineItem[];
  /** ISO 4217, any case (stored upper case, sent to Stripe lower case). */
  currency: string;
  customerEmail?: string | null;
  /** Absolute http(s) URLs; `{CHECKOUT_SESSION_ID}` in successUrl becomes the session id. */
  successUrl: string;
  cancelUrl: string;
}

/** A checkout row as gateways and handlers see it. The billing terms are only present when the
 *  gateway is asked to open it (the rows do not store them; a purpose that bills again keeps its own). */
export interface CheckoutRecord extends BillingTerms {
  id: string;
  communityId: string;
  gateway: GatewayName;
  processorSessionId: string | null;
  purpose: CheckoutPurpose;
  lineItems: CheckoutLineItem[];
  currency: string;
  amountTotal: number;
  customerEmail: string | null;
  successUrl: string;
  cancelUrl: string;
  status: 'OPEN' | 'COMPLETED' | 'EXPIRED' | 'CANCELLED' | 'FAILED';
  expiresAt: string;
  createdAt: string;
  transactionId: string | null;
}

export interface OpenedCheckout {
  /** The processor's session id (what Stripe puts in `{CHECKOUT_SESSION_ID}`). */
  sessionId: string;
  checkoutUrl: string;
  expiresAt: string;
}

export interface PaymentGateway {
  readonly name: GatewayName;
  /** Creates the processor's hosted checkout for a row already written (status OPEN). Must be
   *  idempotent on `checkout.id`: a retried call returns the same session. */
  createSession(checkout: CheckoutRecord): Promise<{ processorSessionId: string; checkoutUrl: string }>;
  /** Closes a session that will never be used (its checkout was not written). Best effort. */
  discardSession?(processorSessionId: string): Promise<void>;
}

/** The gateway could not open a checkout (the processor refused or was unreachable). */
export class PaymentProcessorError extends Refusal<'payment_processor_error'> {
  constructor(message: string, cause?: unknown) {
    super('payment_processor_error');
    this.name = 'PaymentProcessorError';
    this.message = message;
    this.cause = cause;
  }
}

/** `{CHECKOUT_SESSION_ID}` -> the session id, as Stripe does on its own redirect. */
export function withSessionId(url: string, sessionId: string): string {
  return url.split('{CHECKOUT_SESSION_ID}').join(encodeURIComponent(sessionId));
}
