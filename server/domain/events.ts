// Events and their tiers as the public API shows them: public events only, tiers in display
// order, and keyset pagination over (start_date, id).
import type { DonationConfig, Event, FormField, Tier } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import type { EventRow } from '../db/schema.ts';
import { parseJson, toBool } from '../db/ids.ts';

export interface ListEventsQuery {
  limit: number;
  offset?: number;
  cursor?: string;
  featured?: boolean;
  upcoming?: boolean;
  past?: boolean;
  now?: Date;
}

export interface EventPage {
  items: Event[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
}

/** Thrown for a cursor we did not issue, or issued for another ordering. */
export class InvalidCursorError extends Error {}

interface CursorPayload { d: string; i: string; o: 'asc' | 'desc' }

export function encodeCursor(p: CursorPayload): string {
  return Buffer.from(JSON.stringify(p)).toString('base64url');
}
export function decodeCursor(cursor: string, order: 'asc' | 'desc'): CursorPayload {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
    if (typeof p.d !== 'string' || typeof p.i !== 'string' || p.o !== order) throw new Error('shape');
    return p;
  } catch {
    throw new InvalidCursorError();
  }
}

type TierRowWithForm = {
  id: string; event_id: string; name: string; price_cents: number; currency: string; capacity: number | null;
  sold: number; is_active: number; form_tier_id: string | null;
};

function toTier(t: TierRowWithForm): Tier {
  return {
    id: t.id, name: t.name, priceCents: Number(t.price_cents), currency: t.currency,
    capacity: t.capacity === null ? null : Number(t.capacity), sold: Number(t.sold),
    isActive: toBool(Number(t.is_active)), hasForm: t.form_tier_id !== null,
  };
}

async function tiersOf(db: Db, eventIds: string[], activeOnly: boolean): Promise<Map<string, Tier[]>> {
  const out = new Map<string, Tier[]>();
  if (eventIds.length === 0) return out;
  let q = db.selectFrom('tiers')
    .leftJoin('tier_forms', 'tier_forms.tier_id', 'tiers.id')
    .select(['tiers.id', 'tiers.event_id', 'tiers.name', 'tiers.price_cents', 'tiers.currency', 'tiers.capacity',
      'tiers.sold', 'tiers.is_active', 'tier_forms.tier_id as form_tier_id'])
    .where('tiers.event_id', 'in', eventIds)
    .orderBy('tiers.sort_order').orderBy('tiers.id');
  if (activeOnly) q = q.where('tiers.is_active', '=', 1);
  for (const row of await q.execute()) {
    const list = out.get(row.event_id) ?? [];
    list.push(toTier(row));
    out.set(row.event_id, list);
  }
  return out;
}

function toEvent(row: EventRow, tiers: Tier[], detail: boolean): Event {
  const event: Event = {
    id: row.id, slug: row.slug, name: row.name, description: row.description,
    startDate: row.start_date, endDate: row.end_date, location: parseJson(row.location, null),
    bannerUrl: row.banner_url, format: row.format, tiers, featured: row.featured === 1,
  };
  if (detail) event.donationConfig = parseJson<DonationConfig | null>(row.donation_config, null);
  return event;
}

export async function listEvents(db: Db, communityId: string, q: ListEventsQuery): Promise<EventPage> {
  const now = (q.now ?? new Date()).toISOString();
  const order: 'asc' | 'desc' = q.past ? 'desc' : 'asc';
  let base = db.selectFrom('events').where('community_id', '=', communityId).where('visibility', '=', 'PUBLIC');
  if (q.featured) base = base.where('featured', '=', 1);
  if (q.upcoming) base = base.where('start_date', '>=', now);
  if (q.past) base = base.where('start_date', '<', now);

  const totalRow = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  let page = base.selectAll().orderBy('start_date', order).orderBy('id', order).limit(q.limit + 1);
  if (q.cursor) {
    const c = decodeCursor(q.cursor, order);
    page = page.where((eb) => eb(eb.refTuple('start_date', 'id'), order === 'asc' ? '>' : '<', eb.tuple(c.d, c.i)));
  } else if (q.offset) {
    page = page.offset(q.offset);
  }
  const rows = await page.execute();
  const hasMore = rows.length > q.limit;
  const pageRows = rows.slice(0, q.limit);
  const tiers = await tiersOf(db, pageRows.map((r) => r.id), true);
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map((r) => toEvent(r, tiers.get(r.id) ?? [], false)),
    total: Number(totalRow.n),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ d: last.start_date, i: last.id, o: order }) : null,
  };
}

async function findPublicEvent(db: Db, communityId: string, slug: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll()
    .where('community_id', '=', communityId).where('slug', '=', slug).where('visibility', '=', 'PUBLIC')
    .executeTakeFirst();
}

export async function getEvent(db: Db, communityId: string, slug: string): Promise<Event | null> {
  const row = await findPublicEvent(db, communityId, slug);
  if (!row) return null;
  const tiers = await tiersOf(db, [row.id], true);
  return toEvent(row, tiers.get(row.id) ?? [], true);
}

export async function listEventTiers(db: Db, communityId: string, slug: string): Promise<Tier[] | null> {
  const row = await findPublicEvent(db, communityId, slug);
  if (!row) return null;
  return (await tiersOf(db, [row.id], false)).get(row.id) ?? [];
}

export async function getTierForm(db: Db, communityId: string, tierId: string): Promise<{ tierId: string; schema: FormField[] } | null> {
  const row = await db.selectFrom('tiers')
    .innerJoin('events', 'events.id', 'tiers.event_id')
    .leftJoin('tier_forms', 'tier_forms.tier_id', 'tiers.id')
    .select(['tiers.id', 'tier_forms.schema'])
    .where('tiers.id', '=', tierId).where('tiers.community_id', '=', communityId)
    .where('events.visibility', '=', 'PUBLIC')
    .executeTakeFirst();
  if (!row) return null;
  return { tierId: row.id, schema: parseJson<FormField[]>(row.schema, []) };
}

