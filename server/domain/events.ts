// Events and their tiers as the public API shows them: public events only, tiers in display
// order, and keyset pagination over (start_date, id).
import type { DonationConfig, Event, FormField, Tier } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import type { SelectQueryBuilder } from 'kysely';
import type { Database, EventRow } from '../db/schema.ts';
import { parseJson, toBool } from '../db/ids.ts';
import { Refusal } from './refusal.ts';
import { countEvents } from './list-counts.ts';
import { reusableQuery } from '../db/reusable-query.ts';

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
export class InvalidCursorError extends Refusal<'invalid_cursor'> {
  constructor() {
    super('invalid_cursor');
  }
}

/** Position (start date, id) and the query it belongs to (`q`: order and filters). */
interface CursorPayload {
  d: string;
  i: string;
  q: string;
}

/** The part of a list query a cursor is valid for: the same filters in the same order. */
export function cursorScope(q: Pick<ListEventsQuery, 'featured' | 'upcoming' | 'past'>): string {
  return `${q.past ? 'desc' : 'asc'}${q.featured ? ':featured' : ''}${q.upcoming ? ':upcoming' : ''}`;
}

export function encodeCursor(p: CursorPayload): string {
  return Buffer.from(JSON.stringify(p)).toString('base64url');
}
export function decodeCursor(cursor: string, scope: string): CursorPayload {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
    if (typeof p.d !== 'string' || typeof p.i !== 'string' || p.q !== scope) throw new Error('shape');
    return p;
  } catch {
    throw new InvalidCursorError();
  }
}

/**
 * Which events a public reader may see. An event's own visibility wins (spec: a detail page
 * evaluates the event itself); an event without one inherits the EVENTS page setting, else the
 * community's visibility. Fails closed: anything but an explicit PUBLIC is hidden.
 */
export interface EventAudience {
  communityId: string;
  /** The visibility an event with `visibility = NULL` has. */
  inherited: 'PUBLIC' | 'MEMBERS_ONLY';
  /** An ACCEPTED member reading the hosted site sees every event; the API's readers never are one. */
  member?: boolean;
}

// Compiled once (server/db/reusable-query.ts): a keyed events read runs it whenever the key came from the key cache.
const audienceRow = reusableQuery((db, communityId: string) =>
  db.selectFrom('communities').select(['visibility', 'page_settings']).where('id', '=', communityId),
);

/** Null when the community no longer exists (a cached key can outlive it by a few seconds). */
export async function publicAudience(db: Db, communityId: string): Promise<EventAudience | null> {
  const [row] = await audienceRow(db, communityId);
  return row ? audienceOf(communityId, row) : null;
}

/** The events audience from the community row's visibility and page settings (publicAudience, saleCommunity). */
export function audienceOf(
  communityId: string,
  row: { visibility: EventAudience['inherited']; page_settings: string | null },
): EventAudience {
  const settings = parseJson<unknown>(row.page_settings, []);
  const events = Array.isArray(settings)
    ? (settings as { pageKey?: unknown; visibility?: unknown }[]).find((p) => p?.pageKey === 'EVENTS')
    : undefined;
  const own = events?.visibility === 'PUBLIC' || events?.visibility === 'MEMBERS_ONLY' ? events.visibility : null;
  return { communityId, inherited: own ?? row.visibility };
}

export function visibleTo<QB extends SelectQueryBuilder<Database, 'events', object>>(
  q: QB,
  audience: EventAudience,
): QB {
  const scoped = q.where('events.community_id', '=', audience.communityId) as QB;
  if (audience.member === true) return scoped;
  return (
    audience.inherited === 'PUBLIC'
      ? scoped.where((eb) => eb.or([eb('events.visibility', '=', 'PUBLIC'), eb('events.visibility', 'is', null)]))
      : scoped.where('events.visibility', '=', 'PUBLIC')
  ) as QB;
}

type TierRowWithForm = {
  id: string;
  event_id: string;
  name: string;
  price_cents: number;
  currency: string;
  capacity: number | null;
  sold: number;
  is_active: number;
  form_tier_id: string | null;
};

function toTier(t: TierRowWithForm): Tier {
  return {
    id: t.id,
    name: t.name,
    priceCents: Number(t.price_cents),
    currency: t.currency,
    capacity: t.capacity === null ? null : Number(t.capacity),
    sold: Number(t.sold),
    isActive: toBool(Number(t.is_active)),
    hasForm: t.form_tier_id !== null,
  };
}

/** The tiers of some events, in display order; compiled once per number of events (server/db/reusable-query.ts). */
const tierRows = (activeOnly: boolean) =>
  reusableQuery((db, eventIds: string[]) => {
    const q = db
      .selectFrom('tiers')
      .leftJoin('tier_forms', 'tier_forms.tier_id', 'tiers.id')
      .select([
        'tiers.id',
        'tiers.event_id',
        'tiers.name',
        'tiers.price_cents',
        'tiers.currency',
        'tiers.capacity',
        'tiers.sold',
        'tiers.is_active',
        'tier_forms.tier_id as form_tier_id',
      ])
      .where('tiers.event_id', 'in', eventIds)
      .orderBy('tiers.sort_order')
      .orderBy('tiers.id');
    return activeOnly ? q.where('tiers.is_active', '=', 1) : q;
  });
const activeTierRows = tierRows(true);
const everyTierRow = tierRows(false);

async function tiersOf(db: Db, eventIds: string[], activeOnly: boolean): Promise<Map<string, Tier[]>> {
  const out = new Map<string, Tier[]>();
  if (eventIds.length === 0) return out;
  for (const row of await (activeOnly ? activeTierRows : everyTierRow)(db, eventIds)) {
    const list = out.get(row.event_id) ?? [];
    list.push(toTier(row));
    out.set(row.event_id, list);
  }
  return out;
}

function toEvent(row: EventRow, tiers: Tier[], detail: boolean): Event {
  const event: Event = {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    startDate: row.start_date,
    endDate: row.end_date,
    location: parseJson(row.location, null),
    bannerUrl: row.banner_url,
    format: row.format,
    tiers,
    featured: row.featured === 1,
  };
  if (detail) event.donationConfig = parseJson<DonationConfig | null>(row.donation_config, null);
  return event;
}

/**
 * A page of events, read from one range of events_listing in its order (the visibility filter is
 * checked on the index entries), with the exact total from the counters.
 */
export async function listEvents(db: Db, audience: EventAudience, q: ListEventsQuery): Promise<EventPage> {
  const now = (q.now ?? new Date()).toISOString();
  const order: 'asc' | 'desc' = q.past ? 'desc' : 'asc';
  const scope = cursorScope(q);
  let base = visibleTo(db.selectFrom('events'), audience);
  if (q.featured) base = base.where('featured', '=', 1);
  if (q.upcoming) base = base.where('start_date', '>=', now);
  if (q.past) base = base.where('start_date', '<', now);

  // The total never counts the list's rows: the counters hold every visibility class by day
  // (list-counts.ts). `featured` is at most one row (events_one_featured), so it is counted here.
  const total = q.featured
    ? Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    : await countEvents(db, audience, { upcoming: q.upcoming, past: q.past, now: new Date(now) });
  let page = base
    .selectAll()
    .orderBy('start_date', order)
    .orderBy('id', order)
    .limit(q.limit + 1);
  if (q.cursor) {
    const c = decodeCursor(q.cursor, scope);
    page = page.where((eb) => eb(eb.refTuple('start_date', 'id'), order === 'asc' ? '>' : '<', eb.tuple(c.d, c.i)));
  } else if (q.offset) {
    page = page.offset(q.offset);
  }
  const rows = await page.execute();
  const hasMore = rows.length > q.limit;
  const pageRows = rows.slice(0, q.limit);
  const tiers = await tiersOf(
    db,
    pageRows.map((r) => r.id),
    true,
  );
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map((r) => toEvent(r, tiers.get(r.id) ?? [], false)),
    total,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ d: last.start_date, i: last.id, q: scope }) : null,
  };
}

async function findPublicEvent(db: Db, audience: EventAudience, slug: string): Promise<EventRow | undefined> {
  return visibleTo(db.selectFrom('events').selectAll(), audience).where('slug', '=', slug).executeTakeFirst();
}

export async function getEvent(db: Db, audience: EventAudience, slug: string): Promise<Event | null> {
  const row = await findPublicEvent(db, audience, slug);
  if (!row) return null;
  const tiers = await tiersOf(db, [row.id], true);
  return toEvent(row, tiers.get(row.id) ?? [], true);
}

export async function listEventTiers(db: Db, audience: EventAudience, slug: string): Promise<Tier[] | null> {
  const row = await findPublicEvent(db, audience, slug);
  if (!row) return null;
  return (await tiersOf(db, [row.id], false)).get(row.id) ?? [];
}

export async function getTierForm(
  db: Db,
  audience: EventAudience,
  tierId: string,
): Promise<{ tierId: string; schema: FormField[] } | null> {
  const row = await visibleTo(db.selectFrom('events'), audience)
    .innerJoin('tiers', 'tiers.event_id', 'events.id')
    .leftJoin('tier_forms', 'tier_forms.tier_id', 'tiers.id')
    .select(['tiers.id', 'tier_forms.schema'])
    .where('tiers.id', '=', tierId)
    .executeTakeFirst();
  if (!row) return null;
  return { tierId: row.id, schema: parseJson<FormField[]>(row.schema, []) };
}
