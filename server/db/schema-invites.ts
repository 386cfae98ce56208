// Table types of migration 0024_invite_links (see server/db/schema.ts for the storage conventions).

export interface InviteLinksTable {
  id: string;
  community_id: string;
  /** SHA-256 (hex) of the code; the code itself is never stored. */
  code_hash: string;
  /** The code's first characters, what the console shows after creation. */
  code_prefix: string;
  segment_id: string | null;
  note: string | null;
  expires_at: string;
  max_uses: number | null;
  uses: number;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

export interface InviteTables {
  invite_links: InviteLinksTable;
}
