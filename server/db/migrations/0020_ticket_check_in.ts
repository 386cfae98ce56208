// When a ticket was scanned at the door (the hosted site's `/events/<slug>/manage/check-in`).
// Null until then; set once, by a conditional UPDATE (`... WHERE checked_in_at IS NULL`), so two
// door scanners racing on one code admit exactly one person.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tickets').addColumn('checked_in_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tickets').dropColumn('checked_in_at').execute();
}
