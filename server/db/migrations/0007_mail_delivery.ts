// Mail delivery: the outbox of 0003 becomes a queue that a worker drains over SMTP when
// SMTP_URL is set. A row is queued while `next_attempt_at` is set, sent once `sent_at` is,
// failed once `failed_at` is. While a worker holds a row, `next_attempt_at` is the end of its
// lease and `lease_token` names the holder (the same scheme as webhook deliveries), so two
// processes never send one message at once and a crashed one's rows come back when the lease ends.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mail_outbox')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('mail_outbox').addColumn('next_attempt_at', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('lease_token', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('last_attempt_at', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('last_error', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('failed_at', 'text').execute();
  // Inline images and files: a JSON array of {filename, contentType, contentBase64, cid?}, or null.
  await db.schema.alterTable('mail_outbox').addColumn('attachments', 'text').execute();
  // Mail written before delivery existed is queued as of its writing: the worker sends what is
  // recent and marks the rest failed as too old (MailDeliveryWorker's maximum age), so turning
  // SMTP on never mails out long-expired reset links.
  await sql`update mail_outbox set next_attempt_at = created_at where sent_at is null`.execute(db);
  // The claim query's index: only queued rows are in it.
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .column('next_attempt_at')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_due').ifExists().execute();
  for (const column of [
    'attachments',
    'failed_at',
    'last_error',
    'last_attempt_at',
    'lease_token',
    'next_attempt_at',
    'attempts',
  ]) {
    await db.schema.alterTable('mail_outbox').dropColumn(column).execute();
  }
}
