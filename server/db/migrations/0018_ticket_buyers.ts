// The account a ticket belongs to, when the buyer was a signed-in member (X-Svc-Auth-Token on
// POST /events/{slug}/checkout): a member's tickets are theirs whatever address they were sent
// to, and stay so if the account's address changes. Null for anonymous buyers and free RSVPs.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // SQLite adds a column with a REFERENCES clause only when its default is NULL, as here.
  await db.schema
    .alterTable('tickets')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  // Deleting a user sets their tickets' user_id to null: an index keeps that from scanning every ticket.
  await db.schema.createIndex('tickets_by_user').on('tickets').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tickets_by_user').execute();
  await db.schema.alterTable('tickets').dropColumn('user_id').execute();
}
