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
  /** When the SMTP server accepted it, or (without SMTP) its `.eml` file was written; null while queued or failed. */
  sent_at: string | null;
  // Delivery (migration 0007_mail_delivery; server/mail/worker.ts).
  /** Sending attempts started so far. */
  attempts: ColumnType<number, number | undefined, number>;
  /** Queued: when it is due, or while a worker holds it, when that worker's lease ends. Null once sent or failed. */
  next_attempt_at: string | null;
  /** The worker holding it now; only the holder records the outcome. */
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  last_attempt_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last failure as the SMTP server or the connection reported it; never the message or a password. */
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Given up: a permanent (5xx) refusal, the last retry, or too old to send. */
  failed_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON array of MailAttachment (server/mail/mailer.ts), or null. */
  attachments: ColumnType<string | null, string | null | undefined, string | null>;
  // Migration 0013_mail_files.
  /** The `.eml` file it was written to without SMTP (absolute, on the sending server); null otherwise. */
  eml_path: ColumnType<string | null, string | null | undefined, string | null>;
  /** The From it went out with (set when sent); null before. */
  from_address: ColumnType<string | null, string | null | undefined, string | null>;
  // Broadcasts (migration 0022_broadcasts): the body is the broadcast's, rendered when sent.
  /** The broadcast this message is one recipient's copy of; null for every other message. */
  broadcast_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON MergeFields (server/mail/broadcast-render.ts) for a broadcast's message; null otherwise. */
  merge_fields: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AccountTables {
  password_resets: PasswordResetsTable;
  session_revocations: SessionRevocationsTable;
  revoked_tokens: RevokedTokensTable;
  mail_outbox: MailOutboxTable;
}
