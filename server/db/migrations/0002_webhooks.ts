// Outgoing webhooks: receiver endpoints, the event outbox, one delivery per (event, endpoint),
// and the attempt log. Written by `emit()` inside the caller's transaction; read by the worker.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // JSON array of event names; ["*"] subscribes to every event, present and future.
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ENABLED','DISABLED','REMOVED')`))
    .addColumn('disabled_reason', 'text')
    // AES-256-GCM ciphertexts (server/webhooks/secret-box.ts); the plaintext is shown once.
    .addColumn('secret_ciphertext', 'text')
    .addColumn('previous_secret_ciphertext', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_community')
    .on('webhook_endpoints')
    .columns(['community_id', 'status'])
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    // The tag at emit time: a payload says which community it was about then, even after a rename.
    .addColumn('community_tag', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_community')
    .on('webhook_events')
    .columns(['community_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('PENDING','SUCCEEDED','PERMANENTLY_FAILED','CANCELLED')`),
    )
    // Attempts in the current round (a replay or resend starts a new round with a full schedule).
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Attempts ever made, across rounds: the number of the latest row in the attempt log.
    .addColumn('total_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('round', 'integer', (c) => c.notNull().defaultTo(1))
    // When PENDING: the time it is due. While a worker holds it, the end of that worker's lease.
    .addColumn('next_attempt_at', 'text')
    // Set while a worker holds the delivery; results are recorded only by the holder.
    .addColumn('lease_token', 'text')
    // The token a claim replaced: not null means the previous holder stopped mid-attempt.
    .addColumn('previous_lease_token', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The worker's claim scans only what is pending, oldest due first.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'PENDING')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('round', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('SUCCEEDED','FAILED','ABANDONED')`))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    // One row per attempt number: two workers can never both record the same attempt.
    .addUniqueConstraint('webhook_attempts_number', ['delivery_id', 'number'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
