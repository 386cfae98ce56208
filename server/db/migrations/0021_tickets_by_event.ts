// An event's tickets in the order they were issued: the leaders' attendee list pages through it
// (keyset on created_at, id) and the CSV reads it, so neither scans every ticket of every event.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tickets_by_event').on('tickets').columns(['event_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tickets_by_event').execute();
}
