// Every public list reads one range of one index, in the index's own order, so a page costs the
// rows it shows (plus, for offset pages, the rows it skips) and never a sort of the community's
// rows: each index leads with the list's equality filters and ends with its ORDER BY.
// tests/api/list-plans.test.ts checks the plans at 100,000 rows on both databases.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Events: visibility rides at the end so the `PUBLIC or NULL` filter is read from the index
  // entry, not the row: a members-only event a reader cannot see costs one index entry.
  await db.schema
    .createIndex('events_listing')
    .on('events')
    .columns(['community_id', 'start_date', 'id', 'visibility'])
    .execute();
  await db.schema.dropIndex('events_by_start').execute();

  // The directory orders by joinedAt = coalesce(accepted_at, created_at): an expression index
  // (both databases have them) is the only way to read that order without a sort.
  await sql`create index memberships_joined on memberships (community_id, status, coalesce(accepted_at, created_at), id)`.execute(
    db,
  );
  await db.schema
    .createIndex('articles_published')
    .on('articles')
    .columns(['community_id', 'status', 'published_at', 'id'])
    .execute();
  await db.schema
    .createIndex('products_listing')
    .on('products')
    .columns(['community_id', 'is_active', 'created_at', 'id'])
    .execute();
  // Hotspots list by name; latitude and longitude ride along so a bounding box is filtered from
  // the index entries. The latitude index counts a box's matches (up to the cap, atlas.ts).
  await db.schema
    .createIndex('atlas_hotspots_by_name')
    .on('atlas_hotspots')
    .columns(['community_id', 'name', 'id', 'latitude', 'longitude'])
    .execute();
  await db.schema
    .createIndex('atlas_hotspots_by_category')
    .on('atlas_hotspots')
    .columns(['community_id', 'category_id', 'name', 'id', 'latitude', 'longitude'])
    .execute();
  await db.schema
    .createIndex('atlas_hotspots_by_latitude')
    .on('atlas_hotspots')
    .columns(['community_id', 'latitude', 'longitude'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'atlas_hotspots_by_latitude',
    'atlas_hotspots_by_category',
    'atlas_hotspots_by_name',
    'products_listing',
    'articles_published',
    'memberships_joined',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  await db.schema.createIndex('events_by_start').on('events').columns(['community_id', 'start_date', 'id']).execute();
  await db.schema.dropIndex('events_listing').ifExists().execute();
}
