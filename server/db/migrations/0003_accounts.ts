// Accounts: what e-mail + password sign-in needs beyond the users table. Password reset tokens
// (stored hashed, single use), session revocation (one token on sign-out; every token of a user
// on "sign out everywhere" and on a password reset), and the mail outbox the embedded default
// writes to instead of an SMTP server.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // E-mail addresses are unique whatever their case: `Ada@Example.com` and `ada@example.com` are
  // one account. Sign-up stores them lowercased; the index holds the rule for every writer.
  await db.schema
    .createIndex('users_email_lower')
    .on('users')
    .expression(sql`lower(email)`)
    .unique()
    .execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // sha256 of the 32 random bytes e-mailed to the user; the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // Set once, by the one UPDATE that consumes the token (`where used_at is null`).
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('password_resets_user')
    .on('password_resets')
    .columns(['user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('session_revocations')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // Unix seconds (bigint: past 2038): every token of this user with `iat <= tokens_valid_after` is void.
    .addColumn('tokens_valid_after', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('revoked_tokens')
    // The session id (`sid`) of a signed-out session; kept until no copy of it could still be valid.
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revoked_tokens_expiry').on('revoked_tokens').column('expires_at').execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    // When a transport handed it on; null in the outbox-only default, which never sends.
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_created').on('mail_outbox').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('mail_outbox_to').on('mail_outbox').columns(['to_address', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['mail_outbox', 'revoked_tokens', 'session_revocations', 'password_resets']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.dropIndex('users_email_lower').ifExists().execute();
}
