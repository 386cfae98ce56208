// Table types of migration 0023_leader_console (see server/db/schema.ts for the storage conventions).

export interface AuditLogTable {
  id: string;
  community_id: string;
  actor_user_id: string;
  action: string;
  target_type: string;
  target_id: string | null;
  /** JSON, or null when there was nothing before (a creation). */
  before: string | null;
  /** JSON, or null when nothing is left after (a deletion). */
  after: string | null;
  created_at: string;
}

export interface LeaderConsoleTables {
  audit_log: AuditLogTable;
}
