// Broadcasts: one-shot e-mails from a community to its members (server/domain/broadcasts.ts).
//
// A broadcast row is written by the API (QUEUED, or SCHEDULED with a future send_at) and the
// limit of 5 sends per rolling 24 h is judged from these rows (every row that is not a test and
// not CANCELLED counts at its send_at), under a lock on the community so concurrent sends cannot
// both see room. The broadcast dispatcher (server/broadcasts/dispatcher.ts) claims due rows with a
// lease, like the mail worker, and expands the audience into `mail_outbox` in batches keyed by
// membership id (`expansion_cursor` moves in the same transaction as each batch, so a crash
// resumes where it stopped and never writes a recipient twice). Each outbox row names its
// broadcast and carries only the recipient's merge fields: the body is the broadcast's, rendered
// when the row is sent, so 50,000 recipients do not store 50,000 copies of the HTML.
//
// The counters are kept in the transactions that change them: sent_count / failed_count by the
// mail worker when it records a broadcast message, unsubscribed_count by the unsubscribe that a
// token of this broadcast made. The broadcast is SENT (and `broadcast.sent` emitted, once) by
// whichever transaction finds it expanded with sent + failed = recipients.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('broadcasts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    // Sanitized with the article sanitizer; null for a text-only broadcast.
    .addColumn('html', 'text')
    // As given, or derived from the html.
    .addColumn('text', 'text', (c) => c.notNull())
    // JSON array of segment ids; null = every ACCEPTED member.
    .addColumn('audience_segment_ids', 'text')
    // A test send: the one address it went to. Tests never count toward the limit.
    .addColumn('test_to', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // When it goes out (the request's time for an immediate send); what the limit counts by.
    .addColumn('send_at', 'text', (c) => c.notNull())
    // At queue time the audience's size then; from expansion on, the messages written.
    .addColumn('recipients', 'integer', (c) => c.notNull())
    .addColumn('sent_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribed_count', 'integer', (c) => c.notNull().defaultTo(0))
    // The last membership id written to the outbox; null before the first batch.
    .addColumn('expansion_cursor', 'text')
    .addColumn('expanded_at', 'text')
    // The dispatcher holding it while it expands (same scheme as the mail worker's lease).
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('cancelled_at', 'text')
    .execute();
  // The list, newest first (keyset on created_at, id).
  await db.schema
    .createIndex('broadcasts_by_community')
    .on('broadcasts')
    .columns(['community_id', 'created_at', 'id'])
    .execute();
  // The limit's window: the sends that count, by time.
  await db.schema
    .createIndex('broadcasts_counted')
    .on('broadcasts')
    .columns(['community_id', 'send_at'])
    .where(sql<boolean>`test_to is null and status <> 'CANCELLED'`)
    .execute();
  // The dispatcher's claim: only rows still to expand are in it.
  await db.schema
    .createIndex('broadcasts_due')
    .on('broadcasts')
    .columns(['send_at'])
    .where(sql<boolean>`status in ('QUEUED', 'SCHEDULED', 'SENDING') and expanded_at is null`)
    .execute();

  // One row per member who unsubscribed from the community's broadcasts (never transactional mail).
  await db.schema
    .createTable('broadcast_unsubscribes')
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The broadcast whose link was used (null by other means).
    .addColumn('broadcast_id', 'text', (c) => c.references('broadcasts.id').onDelete('set null'))
    .addColumn('unsubscribed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('broadcast_unsubscribes_pk', ['community_id', 'user_id'])
    .execute();

  // The audience, read in membership-id order per community and status: index-bound at any size.
  await db.schema
    .createIndex('memberships_by_status_id')
    .on('memberships')
    .columns(['community_id', 'status', 'id'])
    .execute();

  // A broadcast's message: the broadcast it belongs to and the recipient's merge fields
  // (JSON {name, unsubscribeUrl}); its body is the broadcast's, rendered when sent.
  await db.schema.alterTable('mail_outbox').addColumn('broadcast_id', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('merge_fields', 'text').execute();
  await db.schema
    .createIndex('mail_outbox_by_broadcast')
    .on('mail_outbox')
    .column('broadcast_id')
    .where(sql.ref('broadcast_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_by_broadcast').ifExists().execute();
  await db.schema.alterTable('mail_outbox').dropColumn('merge_fields').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('broadcast_id').execute();
  await db.schema.dropIndex('memberships_by_status_id').ifExists().execute();
  await db.schema.dropTable('broadcast_unsubscribes').execute();
  await db.schema.dropTable('broadcasts').execute();
}
