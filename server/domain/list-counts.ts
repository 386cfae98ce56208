// Reading the running counts that database triggers keep (migration 0029, docs/list-counts.md),
// and recounting them from the rows. A list's `X-Total-Count` is read here in a bounded number of
// counter rows, never by counting the list's rows: at a million events the count costs what it
// costs at ten.
import { PostgresAdapter, sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { reusableQuery } from '../db/reusable-query.ts';
import type { Database } from '../db/schema.ts';
import type { Db, Trx } from '../db/index.ts';
import type { EventVisibilityClass, ListCountsTable } from '../db/schema-counts.ts';
import type { EventAudience } from './events.ts';

/**
 * How a list's total was counted (`X-Total-Count-Accuracy`). `exact`: the number of matches (from
 * running counts or an index range). `lower-bound`: counting stopped at a cap; there are at least
 * that many matches (the atlas bounding box).
 */
export type CountAccuracy = 'exact' | 'lower-bound';

/** The visibility classes a reader sees (visibleTo() in events.ts says the same in a WHERE). */
export function visibleClasses(audience: EventAudience): EventVisibilityClass[] {
  if (audience.member === true) return ['PUBLIC', 'MEMBERS_ONLY', 'INHERITED'];
  return audience.inherited === 'PUBLIC' ? ['PUBLIC', 'INHERITED'] : ['PUBLIC'];
}

/**
 * `~` sorts after every digit, `-` and `T` in byte order, so `prefix~` ends the range of buckets
 * under a prefix. The bucket column compares in byte order on both databases (`collate "C"` on
 * PostgreSQL, migration 0029), whatever the database's collation.
 */
const END = '~';

/** A range of buckets: `lo` (included where lowerBoundIncluded says so) up to `hi` (excluded). */
export interface BucketRange {
  lo: string;
  hi: string;
}

/**
 * Whether the bucket ranges of a side include their lower bound: not after now (the current
 * hour's bucket is the caller's), always before it, so a start_date cut short (`2026-03`, written
 * by hand) lands where the text comparison puts it.
 */
const lowerBoundIncluded = (side: EventCountSide): boolean => side !== 'after';

/**
 * Bucket ranges that together hold exactly the events before (or from) the current hour `hour`
 * (YYYY-MM-DDTHH), compared as text as the list compares start_date with now: the rest of the
 * day by hour, the rest of the month by day, the rest of the year by month, the other years by
 * year. The events of the current hour itself are the caller's (one index range). Which lower
 * bounds are included: lowerBoundIncluded.
 */
export function bucketRanges(hour: string, side: EventCountSide): BucketRange[] {
  const [year, month, day] = [hour.slice(0, 4), hour.slice(0, 7), hour.slice(0, 10)];
  if (side === 'all') return [{ lo: 'Y', hi: `Y${END}` }];
  if (side === 'after') {
    return [
      { lo: `H${hour}`, hi: `H${day}${END}` },
      { lo: `D${day}`, hi: `D${month}${END}` },
      { lo: `M${month}`, hi: `M${year}${END}` },
      { lo: `Y${year}`, hi: `Y${END}` },
    ];
  }
  return [
    { lo: `H${day}`, hi: `H${hour}` },
    { lo: `D${month}`, hi: `D${day}` },
    { lo: `M${year}`, hi: `M${month}` },
    { lo: 'Y', hi: `Y${year}` },
  ];
}

export interface EventCountFilter {
  upcoming?: boolean;
  past?: boolean;
  now: Date;
}

/** Which side of now a count of events is on: `upcoming`, `past`, or neither. */
export type EventCountSide = 'before' | 'after' | 'all';

export const countSide = (f: { upcoming?: boolean; past?: boolean }): EventCountSide =>
  f.upcoming ? 'after' : f.past ? 'before' : 'all';

/**
 * The values one count of events reads at `now`: its statement is compiled once per side and set
 * of visibility classes (eventCount), and these are its parameters. First the current hour's
 * range of start dates on the filter's side of now (none without a date filter), then each bucket
 * range's lower and upper bound in turn.
 */
export function eventCountValues(side: EventCountSide, now: Date): string[] {
  const at = now.toISOString();
  const hour = at.slice(0, 13);
  const nextHour = new Date(Date.parse(`${hour}:00:00.000Z`) + 3_600_000).toISOString().slice(0, 13);
  const thisHour = side === 'after' ? [at, nextHour] : side === 'before' ? [hour, at] : [];
  return [...thisHour, ...bucketRanges(hour, side).flatMap((r) => [r.lo, r.hi])];
}

/**
 * The count as one expression, to be read alone (countEvents) or beside the page it counts
 * (events.ts): the sum of the bucket ranges' counters, plus the current hour's events on the
 * filter's side of now from one range of events_listing. `values` are eventCountValues(side, now)
 * (placeholders while a reusable query is built).
 */
export function eventCount(
  db: Db | Trx,
  communityId: string,
  classes: EventVisibilityClass[],
  side: EventCountSide,
  values: readonly string[],
): RawBuilder<number> {
  const [from, until] = side === 'all' ? [] : values;
  const bounds = side === 'all' ? values : values.slice(2);
  const inclusive = lowerBoundIncluded(side);
  const terms: SelectQueryBuilder<Database, keyof Database, { n: number }>[] = [];
  for (let i = 0; i < bounds.length; i += 2) {
    terms.push(
      db
        .selectFrom('event_counts')
        .select((s) => s.fn.coalesce(s.fn.sum<number>('n'), s.lit(0)).as('n'))
        .where('community_id', '=', communityId)
        .where(
          'visibility',
          'in',
          // Constants of the statement (one per set of classes): a list of parameters would keep
          // it from being a named statement on PostgreSQL (server/db/pg-statements.ts).
          classes.map((c) => sql.lit(c)),
        )
        .where('bucket', inclusive ? '>=' : '>', bounds[i])
        .where('bucket', '<', bounds[i + 1]),
    );
  }
  // The current hour's events on the filter's side of now (none to add without a date filter).
  if (side !== 'all') {
    terms.push(
      db
        .selectFrom('events')
        .select((s) => s.fn.countAll<number>().as('n'))
        .where('community_id', '=', communityId)
        .where('start_date', '>=', from)
        .where('start_date', '<', until)
        .where((w) =>
          w.or(classes.map((c) => (c === 'INHERITED' ? w('visibility', 'is', null) : w('visibility', '=', c)))),
        ),
    );
  }
  return sql<number>`${sql.join(terms, sql` + `)}`;
}

/** countEvents' statements, by side and visibility classes: compiled once each (server/db/reusable-query.ts). */
const countStatements = new Map<string, (db: Db, communityId: string, values: string[]) => Promise<{ n: number }[]>>();

/**
 * The exact number of events a reader sees, with the date filter: whole hours, days, months and
 * years from the counters, and the events of the current hour on the filter's side of `now` from
 * one range of events_listing (at most an hour's events). `upcoming` is start_date >= now, `past`
 * start_date < now, compared as text as the list does. One statement reads all of it.
 */
export async function countEvents(db: Db, audience: EventAudience, f: EventCountFilter): Promise<number> {
  const classes = visibleClasses(audience);
  const side = countSide(f);
  const name = `${side} ${classes.join()}`;
  let statement = countStatements.get(name);
  if (!statement) {
    statement = reusableQuery((qdb, communityId: string, values: string[]) =>
      qdb.selectNoFrom(eventCount(qdb, communityId, classes, side, values).as('n')),
    );
    countStatements.set(name, statement);
  }
  const [row] = await statement(db, audience.communityId, eventCountValues(side, f.now));
  return Number(row?.n ?? 0);
}

type SimpleList = ListCountsTable['list'];

/** One list's count: ACCEPTED members, PUBLISHED articles, active products, hotspots (by category). */
export async function listCount(db: Db, communityId: string, list: SimpleList, key = ''): Promise<number> {
  const row = await db
    .selectFrom('list_counts')
    .select('n')
    .where('community_id', '=', communityId)
    .where('list', '=', list)
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A target's donations not refunded, from the running totals. */
export async function donationTotals(
  db: Db,
  communityId: string,
  type: 'PRODUCT' | 'EVENT',
  targetId: string,
): Promise<{ total: number; count: number }> {
  const row = await db
    .selectFrom('donation_totals')
    .select(['total', 'count'])
    .where('community_id', '=', communityId)
    .where('target_type', '=', type)
    .where('target_id', '=', targetId)
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), count: Number(row?.count ?? 0) };
}

// ---------------------------------------------------------------------------------------------
// Recount

/** A counter row whose stored value is not what its rows add up to. */
export interface CountDrift {
  table: 'event_counts' | 'list_counts' | 'donation_totals';
  key: string;
  stored: string;
  actual: string;
}

type Counted = Map<string, string>;

/** Joins a counter's key columns into one map key (no id, bucket or list name holds it). */
const SEP = '\u0001';

/** A drifted counter's key columns: the community id, then the rest (visibility and bucket, list and key, or target type and id). */
export function driftKeyParts(d: CountDrift): string[] {
  return d.key.split(SEP);
}

const bucketExpr = (grain: 'Y' | 'M' | 'D' | 'H', len: number) =>
  sql<string>`${sql.lit(grain)} || substr(start_date, 1, ${sql.lit(len)})`;

/** What the counters should hold, counted from the rows with COUNT(*) and SUM(). */
async function actualCounts(db: Db | Trx): Promise<Record<CountDrift['table'], Counted>> {
  const events: Counted = new Map();
  for (const [grain, len] of [
    ['Y', 4],
    ['M', 7],
    ['D', 10],
    ['H', 13],
  ] as const) {
    const rows = await db
      .selectFrom('events')
      .select((eb) => [
        'community_id',
        eb.fn.coalesce('visibility', sql.lit('INHERITED')).as('visibility'),
        bucketExpr(grain, len).as('bucket'),
        eb.fn.countAll<number>().as('n'),
      ])
      .groupBy(['community_id', 'visibility', bucketExpr(grain, len)])
      .execute();
    for (const r of rows) events.set(`${r.community_id}${SEP}${r.visibility}${SEP}${r.bucket}`, String(r.n));
  }

  const lists: Counted = new Map();
  const add = (rows: { community_id: string; n: number | string | bigint }[], list: SimpleList) =>
    rows.forEach((r) => lists.set(`${r.community_id}${SEP}${list}${SEP}`, String(r.n)));
  const n = sql<number>`count(*)`.as('n');
  add(
    await db
      .selectFrom('memberships')
      .select(['community_id', n])
      .where('status', '=', 'ACCEPTED')
      .groupBy('community_id')
      .execute(),
    'members',
  );
  add(
    await db
      .selectFrom('articles')
      .select(['community_id', n])
      .where('status', '=', 'PUBLISHED')
      .groupBy('community_id')
      .execute(),
    'articles',
  );
  add(
    await db
      .selectFrom('products')
      .select(['community_id', n])
      .where('is_active', '=', 1)
      .groupBy('community_id')
      .execute(),
    'products',
  );
  add(await db.selectFrom('atlas_hotspots').select(['community_id', n]).groupBy('community_id').execute(), 'hotspots');
  for (const r of await db
    .selectFrom('atlas_hotspots')
    .select(['community_id', 'category_id', n])
    .groupBy(['community_id', 'category_id'])
    .execute()) {
    lists.set(`${r.community_id}${SEP}hotspots_by_category${SEP}${r.category_id}`, String(r.n));
  }

  const donations: Counted = new Map();
  for (const r of await db
    .selectFrom('donations')
    .select(['community_id', 'target_type', 'target_id', sql<number>`sum(amount)`.as('total'), n])
    .where('refunded_at', 'is', null)
    .groupBy(['community_id', 'target_type', 'target_id'])
    .execute()) {
    donations.set(`${r.community_id}${SEP}${r.target_type}${SEP}${r.target_id}`, `${Number(r.total)}/${Number(r.n)}`);
  }
  return { event_counts: events, list_counts: lists, donation_totals: donations };
}

async function storedCounts(db: Db | Trx): Promise<Record<CountDrift['table'], Counted>> {
  const events: Counted = new Map();
  for (const r of await db.selectFrom('event_counts').selectAll().execute()) {
    events.set(`${r.community_id}${SEP}${r.visibility}${SEP}${r.bucket}`, String(r.n));
  }
  const lists: Counted = new Map();
  for (const r of await db.selectFrom('list_counts').selectAll().execute()) {
    lists.set(`${r.community_id}${SEP}${r.list}${SEP}${r.key}`, String(r.n));
  }
  const donations: Counted = new Map();
  for (const r of await db.selectFrom('donation_totals').selectAll().execute()) {
    donations.set(
      `${r.community_id}${SEP}${r.target_type}${SEP}${r.target_id}`,
      `${Number(r.total)}/${Number(r.count)}`,
    );
  }
  return { event_counts: events, list_counts: lists, donation_totals: donations };
}

/** A counter row at zero counts nothing, so it matches a key no row has. */
const isZero = (v: string) => /^0(\/0)?$/.test(v);

/**
 * Compares every counter with COUNT(*) / SUM() over its rows and returns the rows that differ
 * (none, while the triggers are in place). With `repair`, replaces the counters with the actual
 * counts in one transaction, e.g. after rows were changed with the triggers dropped. Reads every
 * counted row: an operator's tool and a test's oracle, never a request's.
 */
export async function recountLists(db: Db, opts: { repair?: boolean } = {}): Promise<CountDrift[]> {
  const run = async (tx: Db | Trx) => {
    if (opts.repair) await holdWriters(tx as Trx);
    const [actual, stored] = [await actualCounts(tx), await storedCounts(tx)];
    const drift: CountDrift[] = [];
    for (const table of Object.keys(actual) as CountDrift['table'][]) {
      const keys = new Set([...actual[table].keys(), ...stored[table].keys()]);
      for (const key of keys) {
        const a = actual[table].get(key) ?? '0';
        const s = stored[table].get(key) ?? '0';
        if (a !== s && !(isZero(a) && isZero(s))) drift.push({ table, key, stored: s, actual: a });
      }
    }
    if (opts.repair && drift.length > 0) await rewrite(tx as Trx, actual);
    return drift;
  };
  if (opts.repair) return db.transaction().execute(run);
  // The actual and the stored counts are read in one snapshot: read apart, a write committed
  // between them would show as drift that is not there. PostgreSQL: REPEATABLE READ, read only
  // (no lock; writers go on). SQLite: one deferred transaction, whose first read fixes what it
  // sees (WAL); it holds this process's only connection until the reads are done.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return postgres
    ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(run)
    : db.transaction().execute(run);
}

/** The tables whose triggers keep the counters: while none of them is written, no counter moves. */
const COUNTED_TABLES = ['events', 'memberships', 'articles', 'products', 'atlas_hotspots', 'donations'] as const;

/**
 * A repair replaces the counters with counts it read earlier in its transaction, so a write that
 * committed in between would be lost from the counters. It keeps writers out until it commits:
 * on PostgreSQL a SHARE lock on the counted tables (readers go on; writers wait, and the
 * statements read one state of the rows); on SQLite the database's write lock, taken before the
 * first read by a write that changes nothing, so the reads see what is written back.
 */
async function holdWriters(trx: Trx): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`lock table ${sql.join(COUNTED_TABLES.map((t) => sql.table(t)))} in share mode`.execute(trx);
  } else {
    await trx.deleteFrom('list_counts').where(sql.lit(1), '=', sql.lit(0)).execute();
  }
}

async function rewrite(trx: Trx, actual: Record<CountDrift['table'], Counted>): Promise<void> {
  await trx.deleteFrom('event_counts').execute();
  await trx.deleteFrom('list_counts').execute();
  await trx.deleteFrom('donation_totals').execute();
  const split = (k: string) => k.split(SEP);
  const chunks = <T>(rows: T[]) =>
    Array.from({ length: Math.ceil(rows.length / 200) }, (_, i) => rows.slice(i * 200, i * 200 + 200));
  for (const part of chunks([...actual.event_counts])) {
    await trx
      .insertInto('event_counts')
      .values(
        part.map(([k, n]) => {
          const [community_id, visibility, bucket] = split(k);
          return { community_id, visibility: visibility as EventVisibilityClass, bucket, n: Number(n) };
        }),
      )
      .execute();
  }
  for (const part of chunks([...actual.list_counts])) {
    await trx
      .insertInto('list_counts')
      .values(
        part.map(([k, n]) => {
          const [community_id, list, key] = split(k);
          return { community_id, list: list as SimpleList, key, n: Number(n) };
        }),
      )
      .execute();
  }
  for (const part of chunks([...actual.donation_totals])) {
    await trx
      .insertInto('donation_totals')
      .values(
        part.map(([k, v]) => {
          const [community_id, target_type, target_id] = split(k);
          const [total, count] = v.split('/').map(Number);
          return { community_id, target_type: target_type as 'PRODUCT' | 'EVENT', target_id, total, count };
        }),
      )
      .execute();
  }
}
