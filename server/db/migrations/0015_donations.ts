// Donations and product orders, both written when their payment completes (fulfil()), never
// when a checkout opens: an abandoned checkout leaves nothing to count or to clean up.
//
// One donation per checkout: a standalone donation is a checkout of its own; a sidecar donation
// rides on a ticket or product checkout as its own line item and its own row here.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('donations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('checkout_session_id', 'text', (c) =>
      c.notNull().unique().references('checkout_sessions.id').onDelete('cascade'),
    )
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // True when it rode on a ticket or product sale.
    .addColumn('sidecar', 'integer', (c) => c.notNull())
    .addColumn('donor_email', 'text')
    .addColumn('donor_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'text')
    .addCheckConstraint('donations_target_type', sql`target_type in ('PRODUCT', 'EVENT')`)
    .addCheckConstraint('donations_amount', sql`amount > 0`)
    .execute();
  // The summary: completed, not refunded, per target.
  await db.schema
    .createIndex('donations_by_target')
    .on('donations')
    .columns(['community_id', 'target_type', 'target_id'])
    .execute();

  await db.schema
    .createTable('product_orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('checkout_session_id', 'text', (c) =>
      c.notNull().unique().references('checkout_sessions.id').onDelete('cascade'),
    )
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('customer_email', 'text')
    .addColumn('buyer_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('purchased_at', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('product_orders').execute();
  await db.schema.dropTable('donations').execute();
}
