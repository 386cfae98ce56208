// Table types of migrations 0012_tickets (see it for the capacity invariant), 0018_ticket_buyers and
// 0020_ticket_check_in.

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
  /** The signed-in member who bought it (X-Svc-Auth-Token on checkout); null otherwise. */
  user_id: string | null;
  /** JSON object keyed by form field id, or null. */
  form_answers: string | null;
  created_at: string;
  refunded_at: string | null;
  /** When the ticket was scanned at the door; set once (0020_ticket_check_in). */
  checked_in_at: string | null;
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
