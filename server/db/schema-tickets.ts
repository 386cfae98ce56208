// Table types of migration 0012_tickets (see the migration for the capacity invariant).

export type TicketKind = 'RSVP' | 'PAID';

export interface TicketsTable {
  id: string;
  community_id: string;
  event_id: string;
  tier_id: string;
  kind: TicketKind;
  /** The order: the checkout that paid for a PAID ticket; null for an RSVP. */
  checkout_session_id: string | null;
  /** Lower case. */
  email: string;
  name: string;
  /** JSON object keyed by form field id, or null. */
  form_answers: string | null;
  created_at: string;
  refunded_at: string | null;
}

export interface TicketHoldsTable {
  checkout_session_id: string;
  tier_id: string;
  quantity: number;
  /** A widget caller's idempotency owner (IP or user); null for a server's /v1 call. */
  holder: string | null;
  created_at: string;
}

export interface TicketTables {
  tickets: TicketsTable;
  ticket_holds: TicketHoldsTable;
}
