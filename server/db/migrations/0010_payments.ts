// Payments: one row per checkout we open with a gateway (local or Stripe), and one row per
// processor transaction we have fulfilled. The second table is what makes fulfil() idempotent:
// its primary key is the processor's transaction id, so a completion delivered twice, by two
// workers at once, or after a retry commits its effects exactly once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('checkout_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('gateway', 'text', (c) => c.notNull())
    // The processor's own session id (Stripe `cs_...`, local `cs_local_...`); null until the
    // processor has answered, so a failed Stripe call leaves a row we can release.
    .addColumn('processor_session_id', 'text', (c) => c.unique())
    .addColumn('checkout_url', 'text')
    // What is being bought, as `{kind, ...}`: the fulfilment handler for `kind` reads the rest.
    .addColumn('purpose_kind', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('line_items', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_total', 'integer', (c) => c.notNull())
    .addColumn('customer_email', 'text')
    .addColumn('success_url', 'text', (c) => c.notNull())
    .addColumn('cancel_url', 'text', (c) => c.notNull())
    // OPEN -> COMPLETED | EXPIRED | CANCELLED | FAILED; only OPEN moves, by conditional UPDATE.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addColumn('transaction_id', 'text')
    .addCheckConstraint(
      'checkout_sessions_status',
      sql`status in ('OPEN', 'COMPLETED', 'EXPIRED', 'CANCELLED', 'FAILED')`,
    )
    .addCheckConstraint('checkout_sessions_amount', sql`amount_total >= 0`)
    .execute();
  // The expiry sweep reads open sessions by expiry time.
  await db.schema
    .createIndex('checkout_sessions_open')
    .on('checkout_sessions')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('payment_fulfilments')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('checkout_session_id', 'text', (c) => c.notNull().references('checkout_sessions.id').onDelete('cascade'))
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('fulfilled_at', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'text')
    .execute();
  // One fulfilment per checkout, whatever transaction ids a processor reports for it.
  await db.schema
    .createIndex('payment_fulfilments_session')
    .on('payment_fulfilments')
    .column('checkout_session_id')
    .unique()
    .execute();

  // Refunds that arrived before the completion they refund (processors do not order their
  // events): a completion finding its transaction here grants nothing.
  await db.schema
    .createTable('early_refunds')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('early_refunds').execute();
  await db.schema.dropTable('payment_fulfilments').execute();
  await db.schema.dropTable('checkout_sessions').execute();
}
