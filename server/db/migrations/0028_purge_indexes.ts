// The scheduled purge (server/maintenance/purge.ts) deletes expired rows in small batches, each
// picked by one range of an index ordered by the time that makes a row expire, so a batch reads
// the rows it deletes and nothing else, however large the table. The tables whose expiry column
// was indexed already (idempotency keys, SMS codes, OAuth handoffs, revoked sessions, the SMS
// outbox's created_at) need nothing here.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Only finished deliveries: the pending ones (the worker's) are never purged, and stay out of it.
  await db.schema
    .createIndex('webhook_deliveries_finished')
    .on('webhook_deliveries')
    .column('updated_at')
    .where(sql.ref('status'), '<>', 'PENDING')
    .execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').columns(['created_at', 'id']).execute();
  // Sent and failed mail, each by when it got there; queued mail is in neither.
  await db.schema
    .createIndex('mail_outbox_sent')
    .on('mail_outbox')
    .column('sent_at')
    .where(sql.ref('sent_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('mail_outbox_failed')
    .on('mail_outbox')
    .column('failed_at')
    .where(sql.ref('failed_at'), 'is not', null)
    .execute();
  await db.schema.createIndex('password_resets_expiry').on('password_resets').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'password_resets_expiry',
    'mail_outbox_failed',
    'mail_outbox_sent',
    'webhook_events_created',
    'webhook_deliveries_finished',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
}
