// Table types of migration 0010_payments: checkouts opened with a payment gateway, and the
// processor transactions fulfil() has committed (see server/payments/).

export type CheckoutStatus = 'OPEN' | 'COMPLETED' | 'EXPIRED' | 'CANCELLED' | 'FAILED';
export type GatewayName = 'local' | 'stripe';

export interface CheckoutSessionsTable {
  /** Ours (UUIDv7); never shown to buyers. */
  id: string;
  community_id: string;
  gateway: GatewayName;
  /** The processor's session id: what `sessionId` and `{CHECKOUT_SESSION_ID}` carry. */
  processor_session_id: string | null;
  checkout_url: string | null;
  /** The fulfilment handler that owns this checkout (`tickets`, `donation`, ...). */
  purpose_kind: string;
  /** JSON: the handler's own description of what is being bought. */
  purpose: string;
  /** JSON: CheckoutLineItem[] as shown on the checkout page and sent to Stripe. */
  line_items: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** Minor units: the sum of the line items. */
  amount_total: number;
  customer_email: string | null;
  success_url: string;
  cancel_url: string;
  status: CheckoutStatus;
  expires_at: string;
  created_at: string;
  closed_at: string | null;
  /** The processor's payment id once completed (Stripe payment intent, `pi_local_...`). */
  transaction_id: string | null;
}

export interface PaymentFulfilmentsTable {
  transaction_id: string;
  checkout_session_id: string;
  gateway: GatewayName;
  fulfilled_at: string;
  refunded_at: string | null;
}

export interface EarlyRefundsTable {
  transaction_id: string;
  amount: number;
  received_at: string;
}

export interface PaymentTables {
  checkout_sessions: CheckoutSessionsTable;
  payment_fulfilments: PaymentFulfilmentsTable;
  early_refunds: EarlyRefundsTable;
}
