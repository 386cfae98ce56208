// Table types of migration 0016_applications (see server/db/schema.ts for the storage conventions).
import type { ColumnType } from 'kysely';
import type { z } from 'zod';
import type { BillingCycle as BillingCycleSchema } from '../../contract/enums.ts';

type BillingCycle = z.infer<typeof BillingCycleSchema>;

export type MembershipRequestStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'PAYMENT_PENDING' | 'CANCELLED';

export interface MembershipRequestsTable {
  id: string;
  community_id: string;
  segment_id: string;
  user_id: string;
  email: string;
  /** JSON object keyed by form field id, as checked against the segment's form. */
  answers: string;
  /** The caller's free-form attribution, sent in member.requested. */
  source: string | null;
  billing_cycle: BillingCycle | null;
  status: MembershipRequestStatus;
  /** Internal note of a rejection; never sent to the applicant. */
  reason: string | null;
  created_at: string;
  decided_at: string | null;
  /** Id of the API key that decided; null when automatic. */
  decided_by: string | null;
  /** The open checkout of a paid request (migration 0017); optional on insert. */
  checkout_session_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MemberAuditTable {
  id: string;
  community_id: string;
  user_id: string;
  membership_id: string;
  action: 'KICK' | 'BAN';
  reason: string | null;
  actor_key_id: string | null;
  created_at: string;
}

export interface ApplicationTables {
  membership_requests: MembershipRequestsTable;
  member_audit: MemberAuditTable;
}
