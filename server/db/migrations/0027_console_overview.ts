// The console's overview (server/domain/leader-overview.ts) counts a community's last 30 days of
// donations and RSVPs by day and its pending requests. Each read is a range of one of these indexes
// (led by the community), so it costs the rows counted, not the community's history or the
// platform's: a million donations elsewhere, or years of them here, are never read.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('donations_by_received')
    .on('donations')
    .columns(['community_id', 'received_at'])
    .execute();
  await db.schema
    .createIndex('tickets_by_kind_created')
    .on('tickets')
    .columns(['community_id', 'kind', 'created_at'])
    .execute();
  // The partial unique index on open requests is not one SQLite uses for `status = 'PENDING'`.
  await db.schema
    .createIndex('membership_requests_by_status')
    .on('membership_requests')
    .columns(['community_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('membership_requests_by_status').ifExists().execute();
  await db.schema.dropIndex('tickets_by_kind_created').ifExists().execute();
  await db.schema.dropIndex('donations_by_received').ifExists().execute();
}
