// Receipts: one per completed payment that carries a donation or buys products, e-mailed in the
// transaction that completes it (server/domain/receipts.ts). The unique checkout makes "exactly
// once" an invariant of the database, whatever calls it. Numbers run per community (the receipt
// is the community's, as the recipient of the money): receipt_counters holds the last one given,
// taken with an upsert that locks the community's counter row until the payment commits, so
// concurrent payments get consecutive numbers and never the same one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('checkout_session_id', 'text', (c) =>
      c.notNull().unique().references('checkout_sessions.id').onDelete('cascade'),
    )
    // Where it was sent (lower case).
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('receipts_community_number', ['community_id', 'number'])
    .execute();

  await db.schema
    .createTable('receipt_counters')
    .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
    .addColumn('last_number', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('receipt_counters').execute();
  await db.schema.dropTable('receipts').execute();
}
