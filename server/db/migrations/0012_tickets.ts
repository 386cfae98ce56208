// Tickets: free RSVPs and paid tickets of event tiers, and the seats open checkouts hold.
//
// Capacity is an invariant of the `tiers` row, kept by conditional UPDATEs:
//   sold + held <= capacity   (capacity null = unlimited)
// `sold` counts issued tickets, `held` the seats of checkouts still open. An RSVP takes a seat
// with `sold = sold + 1 where sold + held + 1 <= capacity`; a checkout moves seats into `held`
// the same way, and its completion moves them from `held` to `sold` (its release gives them
// back), so concurrent buyers can never be promised more seats than exist.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tiers')
    .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('tier_id', 'text', (c) => c.notNull().references('tiers.id').onDelete('cascade'))
    // RSVP: a free tier, one per e-mail address; PAID: bought through a checkout (the order).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('checkout_session_id', 'text', (c) => c.references('checkout_sessions.id').onDelete('set null'))
    // Lower-cased, so one address RSVPs once whatever its spelling.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('form_answers', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'text')
    .addCheckConstraint('tickets_kind', sql`kind in ('RSVP', 'PAID')`)
    .execute();
  await db.schema
    .createIndex('tickets_one_rsvp_per_email')
    .on('tickets')
    .columns(['tier_id', 'email'])
    .unique()
    .where(sql.ref('kind'), '=', 'RSVP')
    .execute();
  await db.schema.createIndex('tickets_by_order').on('tickets').column('checkout_session_id').execute();

  await db.schema
    .createTable('ticket_holds')
    .addColumn('checkout_session_id', 'text', (c) =>
      c.primaryKey().references('checkout_sessions.id').onDelete('cascade'),
    )
    .addColumn('tier_id', 'text', (c) => c.notNull().references('tiers.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    // Who asked (a widget caller's IP or user; null for a server): caps seats one caller holds.
    .addColumn('holder', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ticket_holds_by_holder').on('ticket_holds').columns(['tier_id', 'holder']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ticket_holds').execute();
  await db.schema.dropTable('tickets').execute();
  await db.schema.alterTable('tiers').dropColumn('held').execute();
}
