// Table types of migration 0022_broadcasts (see server/db/schema.ts for the storage conventions).
import type { ColumnType } from 'kysely';

export type BroadcastStatus = 'QUEUED' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';

type Nullable = ColumnType<string | null, string | null | undefined, string | null>;
type Counter = ColumnType<number, number | undefined, number>;

export interface BroadcastsTable {
  id: string;
  community_id: string;
  subject: string;
  /** Sanitized HTML, or null for a text-only broadcast. */
  html: string | null;
  /** As given, or derived from the html. */
  text: string;
  /** JSON array of segment ids; null = every ACCEPTED member. */
  audience_segment_ids: string | null;
  /** A test send's one address; tests never count toward the limit. */
  test_to: string | null;
  status: BroadcastStatus;
  /** When it goes out; the limit counts every non-test, non-cancelled row at this time. */
  send_at: string;
  /** The audience's size when queued; from expansion on, the messages written. */
  recipients: number;
  sent_count: Counter;
  failed_count: Counter;
  /** Members who unsubscribed with this broadcast's link. */
  unsubscribed_count: Counter;
  /** The last membership id expanded into the outbox. */
  expansion_cursor: Nullable;
  expanded_at: Nullable;
  lease_token: Nullable;
  lease_until: Nullable;
  created_at: string;
  started_at: Nullable;
  completed_at: Nullable;
  cancelled_at: Nullable;
}

export interface BroadcastUnsubscribesTable {
  community_id: string;
  user_id: string;
  broadcast_id: string | null;
  unsubscribed_at: string;
}

export interface BroadcastTables {
  broadcasts: BroadcastsTable;
  broadcast_unsubscribes: BroadcastUnsubscribesTable;
}
