// Table types of migrations 0015_donations and 0019_receipts.

export type DonationTargetType = 'PRODUCT' | 'EVENT';

export interface DonationsTable {
  id: string;
  community_id: string;
  target_type: DonationTargetType;
  target_id: string;
  checkout_session_id: string;
  transaction_id: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  /** 1 when it rode on a ticket or product sale. */
  sidecar: number;
  donor_email: string | null;
  donor_user_id: string | null;
  received_at: string;
  refunded_at: string | null;
}

export interface ProductOrdersTable {
  id: string;
  community_id: string;
  product_id: string;
  checkout_session_id: string;
  transaction_id: string;
  quantity: number;
  /** The product lines only (a sidecar donation is its own donation row). */
  amount: number;
  currency: string;
  customer_email: string | null;
  buyer_user_id: string | null;
  purchased_at: string;
  refunded_at: string | null;
}

/** One per completed payment that carries a donation or buys products (server/domain/receipts.ts). */
export interface ReceiptsTable {
  id: string;
  community_id: string;
  /** The community's running number: shown as `R-000042`. */
  number: number;
  checkout_session_id: string;
  /** Where it was e-mailed (lower case). */
  email: string;
  issued_at: string;
}

/** The last receipt number each community has given. */
export interface ReceiptCountersTable {
  community_id: string;
  last_number: number;
}

export interface DonationTables {
  donations: DonationsTable;
  product_orders: ProductOrdersTable;
  receipts: ReceiptsTable;
  receipt_counters: ReceiptCountersTable;
}
