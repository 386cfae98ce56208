// Transactional mail first: a password reset or a ticket written after a broadcast's 50,000
// messages must not wait behind them. The mail worker claims due messages that belong to no
// broadcast before any other (server/mail/worker.ts); this partial index holds only those, so that
// first claim reads a handful of index entries however many broadcast messages are due.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('mail_outbox_due_transactional')
    .on('mail_outbox')
    .column('next_attempt_at')
    .where(sql<boolean>`next_attempt_at is not null and broadcast_id is null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_due_transactional').ifExists().execute();
}
