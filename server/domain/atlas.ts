// The atlas as the public API shows it: hotspots (filtered by category and bounding box) and
// their categories. Only a community with the `atlas` feature has one, and the ATLAS page's
// visibility decides who may read it, as public-pages.ts decides for the other pages: the public
// (the publishable key) only when it is PUBLIC, the community's own server (secret keys) always.
import type { AtlasCategory, AtlasHotspot } from '../../contract/resources.ts';
import type { Bbox } from '../../contract/routes/atlas.ts';
import type { Db } from '../db/index.ts';
import { SqliteAdapter, sql, type Selectable } from 'kysely';
import type { AtlasHotspotsTable } from '../db/schema.ts';
import { parseJson } from '../db/ids.ts';
import { pageHidesFrom, resolvedPageVisibility, type PageReader } from './public-pages.ts';
import { listCount, type CountAccuracy } from './list-counts.ts';

export interface AtlasAccess {
  communityId: string;
  /** The community has the `atlas` feature switched on. */
  enabled: boolean;
  /** The ATLAS page (its own visibility, else the community's) keeps this reader out. */
  hidden: boolean;
}

/** Null when the community no longer exists (a cached key can outlive it by a few seconds). */
export async function atlasAccess(db: Db, communityId: string, reader: PageReader): Promise<AtlasAccess | null> {
  const row = await db
    .selectFrom('communities')
    .select(['features', 'visibility', 'page_settings'])
    .where('id', '=', communityId)
    .executeTakeFirst();
  if (!row) return null;
  const features = parseJson<unknown>(row.features, []);
  const enabled = Array.isArray(features) && features.includes('atlas');
  return { communityId, enabled, hidden: pageHidesFrom(resolvedPageVisibility(row, 'ATLAS'), reader) };
}

function toHotspot(row: Selectable<AtlasHotspotsTable>): AtlasHotspot {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    latitude: Number(row.latitude),
    longitude: Number(row.longitude),
    categoryId: row.category_id,
    imageUrl: row.image_url,
  };
}

export interface HotspotQuery {
  limit: number;
  offset: number;
  category?: string;
  bbox?: Bbox;
}

/**
 * How many matches of a bounding box are counted before the count stops and is reported as a
 * lower bound (`X-Total-Count-Accuracy: lower-bound`). Counting a box is reading its index
 * entries, so an exact count of a box holding most of a million hotspots would cost as much as
 * the scan the counters exist to avoid; no running count can know an arbitrary box.
 */
export const BBOX_COUNT_CAP = 1000;

export async function listHotspots(
  db: Db,
  access: AtlasAccess,
  q: HotspotQuery,
): Promise<{ items: AtlasHotspot[]; total: number; accuracy: CountAccuracy }> {
  const box = q.bbox;
  /** The filtered hotspots; `walk` keeps the box's terms off the latitude index (see below). */
  const matching = (walk: boolean) => {
    let base = db.selectFrom('atlas_hotspots').where('community_id', '=', access.communityId);
    if (q.category !== undefined) base = base.where('category_id', '=', q.category);
    if (!box) return base;
    // Unary plus makes a term no index can serve: SQLite's documented hint, for SQLite only (it
    // would hide the terms' selectivity from PostgreSQL's planner, which weighs the walk itself).
    const hint = walk && db.getExecutor().adapter instanceof SqliteAdapter;
    const lat = hint ? sql<number>`+latitude` : sql.ref<number>('latitude');
    const lon = hint ? sql<number>`+longitude` : sql.ref<number>('longitude');
    base = base.where(lat, '>=', box.minLat).where(lat, '<=', box.maxLat);
    // A box with minLon > maxLon crosses the antimeridian: it is the two strips either side.
    return box.minLon <= box.maxLon
      ? base.where(lon, '>=', box.minLon).where(lon, '<=', box.maxLon)
      : base.where((eb) => eb.or([eb(lon, '>=', box.minLon), eb(lon, '<=', box.maxLon)]));
  };
  const page = (walk: boolean) =>
    matching(walk).selectAll().orderBy('name').orderBy('id').limit(q.limit).offset(q.offset).execute();

  if (!box) {
    // Exact, from the trigger-kept counts (list-counts.ts); the page is a range of a by-name index.
    const total =
      q.category === undefined
        ? await listCount(db, access.communityId, 'hotspots')
        : await listCount(db, access.communityId, 'hotspots_by_category', q.category);
    return { items: (await page(false)).map(toHotspot), total, accuracy: 'exact' };
  }
  // A box: count its matches from the latitude index up to the cap (and past this page, so
  // `hasMore` stays right on a deep page); reaching the limit means "at least this many".
  const limit = Math.max(BBOX_COUNT_CAP, q.offset + q.limit) + 1;
  const counted = await db
    .selectFrom(
      matching(false)
        .select((eb) => eb.lit(1).as('one'))
        // In an index's order, so the cap stops a walk of that index (the latitude index, or the
        // category's by-name entries, which carry the coordinates) rather than a read of every match.
        .orderBy(q.category === undefined ? 'latitude' : 'name')
        .limit(limit)
        .as('m'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const total = Number(counted.n);
  const exact = total < limit;
  // Few matches: the database may read them from the latitude range and sort them (at most the
  // cap). Many: walk the by-name index in order, filtering each entry by its latitude and
  // longitude, and stop at the page; sorting a box of half a million would be the scan again.
  const rows = await page(!exact);
  return { items: rows.map(toHotspot), total, accuracy: exact ? 'exact' : 'lower-bound' };
}

export async function getHotspot(db: Db, access: AtlasAccess, hotspotId: string): Promise<AtlasHotspot | null> {
  const row = await db
    .selectFrom('atlas_hotspots')
    .selectAll()
    .where('community_id', '=', access.communityId)
    .where('id', '=', hotspotId)
    .executeTakeFirst();
  return row ? toHotspot(row) : null;
}

export async function listCategories(db: Db, access: AtlasAccess): Promise<AtlasCategory[]> {
  const rows = await db
    .selectFrom('atlas_categories')
    .select(['id', 'name', 'icon', 'color'])
    .where('community_id', '=', access.communityId)
    .orderBy('sort_order')
    .orderBy('name')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, icon: r.icon, color: r.color }));
}
