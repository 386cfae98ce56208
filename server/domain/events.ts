// Events and their tiers as the public API shows them: public events only, tiers in display
// order, and keyset pagination over (start_date, id).
import type { DonationConfig, Event, FormField, Tier } from '../../contract/resources.ts';
import type { Db, Trx } from '../db/index.ts';
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database, EventRow } from '../db/schema.ts';
import { parseJson, toBool } from '../db/ids.ts';
import { Refusal } from './refusal.ts';
import {
  countEvents,
  countSide,
  eventCount,
  eventCountValues,
  visibleClasses,
  type EventCountSide,
} from './list-counts.ts';
import { bool, json, jsonText, value } from '../db/json-text.ts';
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

/** The single event (the list's items are written by the database: eventJson). */
function toEvent(row: EventRow, tiers: Tier[]): Event {
  return {
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
    donationConfig: parseJson<DonationConfig | null>(row.donation_config, null),
  };
}

/** A page as the API sends it: `json` is the items, already encoded (server/db/json-text.ts). */
export interface EncodedEventPage extends Omit<EventPage, 'items'> {
  json: string;
}

/** The JSON of one event as the list shows it (toEvent without the detail's donationConfig), written by the database. */
function eventJson(db: Db | Trx): RawBuilder<string> {
  const j = jsonText(db);
  const tier = j.object({
    id: value(sql.ref('t.id')),
    name: value(sql.ref('t.name')),
    priceCents: value(sql.ref('t.price_cents')),
    currency: value(sql.ref('t.currency')),
    capacity: value(sql.ref('t.capacity')),
    sold: value(sql.ref('t.sold')),
    isActive: bool(sql`t.is_active = 1`),
    hasForm: bool(sql`exists (select 1 from tier_forms f where f.tier_id = t.id)`),
  });
  const tiers = sql`coalesce((select ${j.array(tier, [sql.ref('t.sort_order'), sql.ref('t.id')])} from tiers t where t.event_id = events.id and t.is_active = 1), '[]')`;
  const event = j.object({
    id: value(sql.ref('events.id')),
    slug: value(sql.ref('events.slug')),
    name: value(sql.ref('events.name')),
    description: value(sql.ref('events.description')),
    startDate: value(sql.ref('events.start_date')),
    endDate: value(sql.ref('events.end_date')),
    // Written by the app with JSON.stringify (domain/import.ts).
    location: json(sql.ref('events.location')),
    bannerUrl: value(sql.ref('events.banner_url')),
    format: value(sql.ref('events.format')),
    tiers: json(tiers),
    featured: bool(sql`events.featured = 1`),
  });
  return j.text(event);
}

/** Which of the page's statements a list request runs: one per audience, filter and way of paging. */
type PageShape = {
  audience: EventAudience['inherited'] | 'member';
  side: EventCountSide;
  featured: boolean;
  paging: 'first' | 'offset' | 'cursor';
};

type PageRow = { start_date: string; id: string; j: string; total: number | string };
type PageStatement = (
  db: Db,
  communityId: string,
  limit: number,
  now: string[],
  counted: string[],
  position: (string | number)[],
) => Promise<PageRow[]>;

const pageStatements = new Map<string, PageStatement>();

/**
 * The statement of one shape, compiled once (server/db/reusable-query.ts): the page's rows from one
 * range of events_listing in its order, each with its JSON, and beside them the exact total (one
 * value per statement, from the counters). Every argument is a list of as many values as the shape
 * reads: `now` for a date filter, `counted` eventCountValues(side, now) unless the list is
 * `featured`, `position` the cursor's (start date, id), the offset, or nothing.
 */
function pageStatement(shape: PageShape): PageStatement {
  const name = `${shape.audience} ${shape.side} ${shape.featured} ${shape.paging}`;
  let statement = pageStatements.get(name);
  if (statement) return statement;
  const order: 'asc' | 'desc' = shape.side === 'before' ? 'desc' : 'asc';
  statement = reusableQuery(
    (db, communityId: string, limit: number, [now]: string[], counted: string[], position: (string | number)[]) => {
      const audience: EventAudience =
        shape.audience === 'member'
          ? { communityId, inherited: 'PUBLIC', member: true }
          : { communityId, inherited: shape.audience };
      const filtered = () => {
        let q = visibleTo(db.selectFrom('events'), audience);
        if (shape.featured) q = q.where('events.featured', '=', 1);
        if (shape.side === 'after') q = q.where('events.start_date', '>=', now);
        if (shape.side === 'before') q = q.where('events.start_date', '<', now);
        return q;
      };
      // `featured` is at most one row (events_one_featured), so it is counted here; every other
      // total comes from the counters (list-counts.ts), never from the list's rows.
      const total = shape.featured
        ? sql<number>`${filtered().select((eb) => eb.fn.countAll<number>().as('n'))}`
        : eventCount(db, communityId, visibleClasses(audience), shape.side, counted);
      const columns = ['events.start_date', 'events.id', eventJson(db).as('j'), total.as('total')] as const;
      if (shape.paging === 'offset') {
        // PostgreSQL computes the select list of every row an OFFSET skips (SQLite does not): the
        // page's rows are found first, from the index alone, and only they are written as JSON.
        const positions = filtered()
          .select('events.id as page_id')
          .orderBy('events.start_date', order)
          .orderBy('events.id', order)
          .limit(limit)
          .offset(position[0] as number)
          .as('positions');
        return db
          .selectFrom(positions)
          .innerJoin('events', 'events.id', 'positions.page_id')
          .select([...columns])
          .orderBy('events.start_date', order)
          .orderBy('events.id', order);
      }
      let page = filtered()
        .select([...columns])
        .orderBy('events.start_date', order)
        .orderBy('events.id', order)
        .limit(limit);
      if (shape.paging === 'cursor') {
        const [d, i] = position as string[];
        page = page.where((eb) =>
          eb(eb.refTuple('events.start_date', 'events.id'), order === 'asc' ? '>' : '<', eb.tuple(d, i)),
        );
      }
      return page;
    },
  );
  pageStatements.set(name, statement);
  return statement;
}

/**
 * A page of events as the API sends it, in one statement: the rows from one range of
 * events_listing in its order (the visibility filter is checked on the index entries), each
 * row's JSON written by the database, and the exact total from the counters. A page with no row
 * to carry the total counts apart (totalWithoutRows).
 */
export async function listEventsEncoded(
  db: Db,
  audience: EventAudience,
  q: ListEventsQuery,
): Promise<EncodedEventPage> {
  const now = q.now ?? new Date();
  const side = countSide(q);
  const scope = cursorScope(q);
  const c = q.cursor ? decodeCursor(q.cursor, scope) : null;
  const shape: PageShape = {
    audience: audience.member === true ? 'member' : audience.inherited,
    side,
    featured: q.featured === true,
    paging: c ? 'cursor' : q.offset ? 'offset' : 'first',
  };
  const rows = await pageStatement(shape)(
    db,
    audience.communityId,
    q.limit + 1,
    side === 'all' ? [] : [now.toISOString()],
    shape.featured ? [] : eventCountValues(side, now),
    c ? [c.d, c.i] : q.offset ? [q.offset] : [],
  );
  const hasMore = rows.length > q.limit;
  const pageRows = rows.slice(0, q.limit);
  const last = pageRows[pageRows.length - 1];
  return {
    json: `[${pageRows.map((r) => r.j).join(',')}]`,
    total: rows.length > 0 ? Number(rows[0].total) : await totalWithoutRows(db, audience, q, shape, now),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ d: last.start_date, i: last.id, q: scope }) : null,
  };
}

/** The total of a page that has no row to carry it: past the last event, or nothing matches. */
async function totalWithoutRows(
  db: Db,
  audience: EventAudience,
  q: ListEventsQuery,
  shape: PageShape,
  now: Date,
): Promise<number> {
  if (!shape.featured) return countEvents(db, audience, { upcoming: q.upcoming, past: q.past, now });
  // A first page with no row: no featured event matches. Past it, the first page counts them.
  if (shape.paging === 'first') return 0;
  return (await listEventsEncoded(db, audience, { ...q, now, offset: undefined, cursor: undefined, limit: 1 })).total;
}

/** A page of events as objects (the hosted site's pages): listEventsEncoded, decoded. */
export async function listEvents(db: Db, audience: EventAudience, q: ListEventsQuery): Promise<EventPage> {
  const { json: items, ...page } = await listEventsEncoded(db, audience, q);
  return { ...page, items: JSON.parse(items) as Event[] };
}

async function findPublicEvent(db: Db, audience: EventAudience, slug: string): Promise<EventRow | undefined> {
  return visibleTo(db.selectFrom('events').selectAll(), audience).where('slug', '=', slug).executeTakeFirst();
}

export async function getEvent(db: Db, audience: EventAudience, slug: string): Promise<Event | null> {
  const row = await findPublicEvent(db, audience, slug);
  if (!row) return null;
  const tiers = await tiersOf(db, [row.id], true);
  return toEvent(row, tiers.get(row.id) ?? []);
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
