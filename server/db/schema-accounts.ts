// Table types of migration 0003_accounts (see server/db/schema.ts for the storage conventions).
import type { ColumnType } from 'kysely';

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  /** sha256 (base64url) of the token e-mailed to the user; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  /** Set by the one conditional UPDATE that consumes the token. */
  used_at: string | null;
}

export interface SessionRevocationsTable {
  user_id: string;
  /**
   * Unix seconds: every session of the user signed in at or before this (`auth_time`) is void. A bigint, which
   * PostgreSQL returns as a string: read it through Number().
   */
  tokens_valid_after: ColumnType<number | string, number, number>;
  updated_at: string;
}

export interface RevokedTokensTable {
  /** The `sid` of a signed-out session. */
  session_id: string;
  user_id: string;
  /** When no copy of the session can be valid any more; the row can be purged after it. */
  expires_at: string;
}

export interface MailOutboxTable {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: string;
  /** When a transport handed the message on; null in the outbox-only default. */
  sent_at: string | null;
}

export interface AccountTables {
  password_resets: PasswordResetsTable;
  session_revocations: SessionRevocationsTable;
  revoked_tokens: RevokedTokensTable;
  mail_outbox: MailOutboxTable;
}
