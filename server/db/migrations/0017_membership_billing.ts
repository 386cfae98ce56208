// Paid memberships: what each member bought (cycle, the price fixed at purchase, founding or not,
// access until when) and every charge of it, so renewals and refunds can be traced.
//
// membership_billing is one purchase: written when its checkout completes, extended by each
// renewal (Stripe invoice.paid, or the local gateway's simulated one). Its unit_amount is the
// price of the purchase, so a later change to the segment's prices does not reach it.
// membership_charges has one row per charge, keyed by the processor's id for it (the payment at
// checkout, then one per invoice): a redelivered renewal finds its row and changes nothing.
// membership_requests.checkout_session_id is the request's open checkout, so opening again while
// one is open answers that one instead of charging (and holding a founding spot) twice.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('membership_billing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('membership_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('checkout_session_id', 'text', (c) => c.notNull().unique())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('billing_cycle', 'text', (c) =>
      c.notNull().check(sql`billing_cycle in ('MONTHLY','QUARTERLY','YEARLY','ONE_TIME','INSTALLMENT_PLAN')`),
    )
    .addColumn('currency', 'text', (c) => c.notNull())
    // Per charge, in minor units, as bought.
    .addColumn('unit_amount', 'integer', (c) => c.notNull())
    // An installment plan's rounding remainder, charged with the first installment of a cycle.
    .addColumn('first_charge_extra', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('founding', 'integer', (c) => c.notNull().defaultTo(0))
    // Months between charges; null for ONE_TIME.
    .addColumn('interval_months', 'integer')
    .addColumn('installments_total', 'integer')
    .addColumn('installments_paid', 'integer', (c) => c.notNull().defaultTo(0))
    // Months of access a ONE_TIME or installment purchase gives (and an installment cycle's length).
    .addColumn('access_months', 'integer')
    .addColumn('renews_annually', 'integer', (c) => c.notNull().defaultTo(0))
    // Null: no end (a ONE_TIME purchase of a segment without accessDurationMonths).
    .addColumn('access_until', 'text')
    // When the next charge is expected; null: none (paid up, ended, or ONE_TIME).
    .addColumn('next_charge_at', 'text')
    .addColumn('processor_subscription_id', 'text')
    // ACTIVE: billed or paid up; ENDED: no more charges (access runs to access_until); LAPSED: access
    // over and the membership ended; REFUNDED: revoked by a refund.
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ACTIVE','ENDED','LAPSED','REFUNDED')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('membership_billing_by_membership')
    .on('membership_billing')
    .columns(['membership_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('membership_billing_by_subscription')
    .on('membership_billing')
    .columns(['processor_subscription_id'])
    .execute();
  await db.schema
    .createIndex('membership_billing_due')
    .on('membership_billing')
    .columns(['status', 'next_charge_at'])
    .execute();

  await db.schema
    .createTable('membership_charges')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('billing_id', 'text', (c) => c.notNull().references('membership_billing.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('INITIAL','RENEWAL')`))
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('access_until', 'text')
    .addColumn('charged_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('membership_charges_by_billing')
    .on('membership_charges')
    .columns(['billing_id', 'charged_at'])
    .execute();

  await db.schema.alterTable('membership_requests').addColumn('checkout_session_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('membership_requests').dropColumn('checkout_session_id').execute();
  await db.schema.dropTable('membership_charges').execute();
  await db.schema.dropTable('membership_billing').execute();
}
