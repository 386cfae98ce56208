// Every public list, count and donation summary stays index-bound at 100,000 rows per table. The
// test fills the tables in bulk (a recursive CTE on SQLite, generate_series on PostgreSQL), sends
// the real requests, captures the SQL the handlers actually ran with its parameters, and asks the
// database for each query's plan: SQLite must SEARCH (a range of an index), never SCAN a large
// table or sort a list in a temp B-tree; PostgreSQL (after ANALYZE) must never Seq Scan one.
// It also checks that X-Total-Count is the exact COUNT(*) (or the documented lower bound).
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../server/domain/events.ts';
import { BBOX_COUNT_CAP } from '../../server/domain/atlas.ts';
import { makeCommunity, makeEvent } from './support/factory.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

const N = 100_000;
/** Tables that hold N rows (or thousands of counter rows): reading all of one is the failure. */
const LARGE = [
  'events',
  'users',
  'memberships',
  'articles',
  'products',
  'atlas_hotspots',
  'checkout_sessions',
  'donations',
  'event_counts',
];

let s: TestServer;
let pk: string;
let big: { id: string; tag: string };
let captured: Array<{ sql: string; parameters: readonly unknown[] }> | null = null;

/** `insert into <table> (<columns>) select <exprs> from <1..n as s(i)>` on either database. */
async function fill(table: string, columns: string[], exprs: string[], n = N): Promise<void> {
  const select = `select ${exprs.join(', ')}`;
  const text = onPostgres
    ? `insert into ${table} (${columns.join(', ')}) ${select} from generate_series(1, ${n}) as s(i)`
    : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) ` +
      `insert into ${table} (${columns.join(', ')}) ${select} from s`;
  await sql.raw(text).execute(s.database.db);
}

/** `00`-padded two digits of an integer expression, on both databases. */
const two = (e: string) => `substr(cast(100 + (${e}) as text), 2, 2)`;
/** Start dates over 2016-2035: half before the test's "now" (2026), half after. */
const date = `cast(2016 + i % 20 as text) || '-' || ${two('1 + i % 12')} || '-' || ${two('1 + i % 28')} || 'T' || ${two('i % 24')} || ':00:00.000Z'`;
const STAMP = `'2025-01-01T00:00:00.000Z'`;
/** Table numbers in the ids: each table's rows get UUID-shaped ids of their own (the contract checks). */
const T = {
  event: 1,
  user: 2,
  membership: 3,
  article: 4,
  product: 5,
  category: 6,
  hotspot: 7,
  checkout: 8,
  donation: 9,
};
/** The id of row `e` (an SQL expression) of table t. */
const uid = (t: number, e = 'i') =>
  `'0000000${t}-0000-7000-8000-' || substr(cast(1000000000000 + (${e}) as text), 2, 12)`;
/** The same id in JavaScript. */
const idOf = (t: number, i: number) => `0000000${t}-0000-7000-8000-${String(i).padStart(12, '0')}`;

beforeAll(async () => {
  s = await startTestServer({
    onQuery: (text, parameters) => captured?.push({ sql: text, parameters }),
  });
  const db = s.database.db;
  const made = await makeCommunity(db, 'big', { domains: ['big.example'] });
  big = made;
  pk = made.pk;
  await db
    .updateTable('communities')
    .set({ features: JSON.stringify(['atlas', 'marketplace']) })
    .where('id', '=', big.id)
    .execute();
  // A neighbour with rows of its own: nothing of it may be read for big.
  const other = await makeCommunity(db, 'neighbour');
  await makeEvent(db, other.id, { slug: 'elsewhere' });

  const c = `'${big.id}'`;
  // Two waves of independent tables (PostgreSQL fills them on parallel connections); the
  // second needs rows of the first.
  await Promise.all([
    fill(
      'events',
      ['id', 'community_id', 'slug', 'name', 'start_date', 'format', 'visibility', 'created_at', 'updated_at'],
      [
        uid(T.event),
        c,
        `'e' || i`,
        `'Event ' || i`,
        date,
        `'online'`,
        `case when i % 10 = 0 then 'MEMBERS_ONLY' when i % 10 < 4 then null else 'PUBLIC' end`,
        STAMP,
        STAMP,
      ],
    ),
    fill(
      'users',
      ['id', 'email', 'name', 'usertag', 'created_at'],
      [uid(T.user), `'u' || i || '@example.test'`, `'User ' || i`, `'u' || i`, STAMP],
    ),
    fill(
      'articles',
      ['id', 'community_id', 'slug', 'title', 'status', 'published_at', 'created_at', 'updated_at'],
      [
        uid(T.article),
        c,
        `'a' || i`,
        `'Article ' || i`,
        `case when i % 4 = 0 then 'DRAFT' else 'PUBLISHED' end`,
        `case when i % 4 = 0 then null else ${date} end`,
        STAMP,
        STAMP,
      ],
    ),
    fill(
      'products',
      [
        'id',
        'community_id',
        'sku',
        'name',
        'price_cents',
        'currency',
        'is_active',
        'donation_config',
        'created_at',
        'updated_at',
      ],
      [
        uid(T.product),
        c,
        `'sku' || i`,
        `'Product ' || i`,
        '500',
        `'USD'`,
        `case when i % 3 = 0 then 0 else 1 end`,
        `'{"enabled":true,"mode":"pwyw","currency":"USD"}'`,
        date,
        STAMP,
      ],
    ),
    fill('atlas_categories', ['id', 'community_id', 'name'], [uid(T.category), c, `'Category ' || i`], 20),
    fill(
      'checkout_sessions',
      [
        'id',
        'community_id',
        'gateway',
        'purpose_kind',
        'purpose',
        'line_items',
        'currency',
        'amount_total',
        'success_url',
        'cancel_url',
        'status',
        'expires_at',
        'created_at',
      ],
      [
        uid(T.checkout),
        c,
        `'local'`,
        `'donation'`,
        `'{}'`,
        `'[]'`,
        `'USD'`,
        '700',
        `'https://x.test/'`,
        `'https://x.test/'`,
        `'COMPLETED'`,
        STAMP,
        STAMP,
      ],
    ),
  ]);
  await makeEvent(db, big.id, {
    slug: 'the-featured-one',
    featured: true,
    startDate: '2030-06-01T10:00:00.000Z',
    donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
  });
  const featured = await db
    .selectFrom('events')
    .select('id')
    .where('slug', '=', 'the-featured-one')
    .executeTakeFirstOrThrow();
  await Promise.all([
    fill(
      'memberships',
      ['id', 'community_id', 'user_id', 'status', 'role', 'created_at', 'accepted_at'],
      [
        uid(T.membership),
        c,
        uid(T.user),
        `case when i % 5 = 0 then 'PENDING' else 'ACCEPTED' end`,
        `'member'`,
        STAMP,
        // Some accepted memberships predate accepted_at: joinedAt falls back to created_at.
        `case when i % 5 = 0 or i % 7 = 0 then null else ${date} end`,
      ],
    ),
    fill(
      'atlas_hotspots',
      ['id', 'community_id', 'category_id', 'name', 'latitude', 'longitude', 'created_at'],
      [
        uid(T.hotspot),
        c,
        uid(T.category, '1 + i % 20'),
        `'Hotspot ' || i`,
        `cast(i % 170 as real) - 85.0 + cast(i % 7 as real) / 10.0`,
        `cast(i % 350 as real) - 175.0`,
        STAMP,
      ],
    ),
    fill(
      'donations',
      [
        'id',
        'community_id',
        'target_type',
        'target_id',
        'checkout_session_id',
        'transaction_id',
        'amount',
        'currency',
        'sidecar',
        'received_at',
        'refunded_at',
      ],
      [
        uid(T.donation),
        c,
        `case when i % 2 = 0 then 'EVENT' else 'PRODUCT' end`,
        `case when i % 2 = 0 then '${featured.id}' else '${idOf(T.product, 1)}' end`,
        uid(T.checkout),
        `'tx' || i`,
        '700',
        `'USD'`,
        '0',
        STAMP,
        `case when i % 9 = 0 then ${STAMP} else null end`,
      ],
    ),
  ]);
  await sql.raw('analyze').execute(db);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

type Sent = { status: number; total?: string | null; accuracy?: string | null };

interface Plan {
  what: string;
  sql: string;
  plan: string[];
}

async function planOf(q: { sql: string; parameters: readonly unknown[] }): Promise<string[]> {
  const db = s.database.db;
  if (onPostgres) {
    const r = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
    return r.rows.map((row) => row['QUERY PLAN']);
  }
  const r = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
  );
  return r.rows.map((row) => row.detail);
}

/** The events list paged by offset: its plan sorts the page's own rows again, at most limit + 1. */
const OFFSET_PAGE = 'events: an offset page';

const readsLarge = (text: string) => LARGE.some((t) => new RegExp(`"${t}"|\\b${t}\\b`).test(text));

/**
 * What is wrong with a plan: a full read of a large table, or a list sorted outside an index.
 * `boundedSort`: the request may sort, because what it sorts is known to be few rows (a box with
 * at most BBOX_COUNT_CAP matches, read from a range of the latitude index).
 */
function faults(p: Plan, boundedSort = false): string[] {
  const out: string[] = [];
  for (const line of p.plan) {
    if (onPostgres) {
      const seq = /Seq Scan on (\w+)/.exec(line);
      if (seq && LARGE.includes(seq[1])) out.push(line.trim());
    } else {
      const scan = /^SCAN (\w+)/.exec(line);
      if (scan && LARGE.includes(scan[1])) out.push(line);
      if (/USE TEMP B-TREE FOR (ORDER|GROUP) BY/.test(line) && readsLarge(p.sql) && !boundedSort) out.push(line);
    }
  }
  return out;
}

/** Sends one request and returns its response with the plan of every query it ran. */
async function traced(
  what: string,
  send: () => Promise<{ status: number; total?: string | null; accuracy?: string | null }>,
) {
  captured = [];
  const res = await send();
  const queries = captured;
  captured = null;
  const plans: Plan[] = [];
  for (const q of queries) {
    if (!/^\s*select/i.test(q.sql)) continue;
    plans.push({ what, sql: q.sql, plan: await planOf(q) });
  }
  return { res, plans };
}

const api = (path: string) => async (): Promise<Sent> => {
  const r = await s.request(`/v1/communities/big${path}`, { key: pk });
  return { status: r.status, total: r.headers.get('X-Total-Count'), accuracy: r.headers.get('X-Total-Count-Accuracy') };
};
const site = (path: string) => async (): Promise<Sent> => {
  const r = await rawRequest(new URL(s.url).port, 'GET', path, { Host: `big.localhost:${new URL(s.url).port}` });
  return { status: r.status };
};

/** The exact counts, by COUNT(*), that the headers must equal. */
async function exactCount(table: string, where: string): Promise<number> {
  const r = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${sql.raw(where)}`.execute(s.database.db);
  return Number(r.rows[0].n);
}

const SMALL_BOX = 'atlas hotspots: a small bbox';

describe(`list plans at ${N.toLocaleString('en')} rows`, () => {
  it('every list, count and summary query reads index ranges, and every count is exact', async () => {
    const db = s.database.db;
    const now = new Date().toISOString();
    const mid = await db
      .selectFrom('events')
      .select(['start_date', 'id'])
      .where('id', '=', idOf(T.event, 50_000))
      .executeTakeFirstOrThrow();
    const publicOrInherited = `community_id = '${big.id}' and (visibility = 'PUBLIC' or visibility is null)`;
    const cases: Array<[string, () => Promise<Sent>, (() => Promise<number>) | null]> = [
      ['events: first page', api('/events?limit=20'), () => exactCount('events', publicOrInherited)],
      [
        'events: a deep cursor page',
        api(`/events?limit=20&cursor=${encodeCursor({ d: mid.start_date, i: mid.id, q: 'asc' })}`),
        () => exactCount('events', publicOrInherited),
      ],
      [
        'events: upcoming',
        api('/events?limit=20&upcoming=true'),
        () => exactCount('events', `${publicOrInherited} and start_date >= '${now}'`),
      ],
      [
        'events: past',
        api('/events?limit=20&past=true'),
        () => exactCount('events', `${publicOrInherited} and start_date < '${now}'`),
      ],
      [
        'events: past, a deep cursor page',
        api(`/events?limit=20&past=true&cursor=${encodeCursor({ d: mid.start_date, i: mid.id, q: 'desc' })}`),
        null,
      ],
      ['events: featured', api('/events?limit=20&featured=true'), async () => 1],
      // The page's positions come from the index; only its 21 rows are joined, written as JSON and
      // put back in order (a bounded sort).
      [OFFSET_PAGE, api('/events?limit=20&offset=40'), () => exactCount('events', publicOrInherited)],
      [
        'members',
        api('/members?limit=20'),
        () => exactCount('memberships', `community_id = '${big.id}' and status = 'ACCEPTED'`),
      ],
      [
        'articles',
        api('/articles?limit=20'),
        () => exactCount('articles', `community_id = '${big.id}' and status = 'PUBLISHED'`),
      ],
      [
        'products',
        api('/products?limit=20'),
        () => exactCount('products', `community_id = '${big.id}' and is_active = 1`),
      ],
      [
        'atlas hotspots',
        api('/atlas/hotspots?limit=20'),
        () => exactCount('atlas_hotspots', `community_id = '${big.id}'`),
      ],
      [
        'atlas hotspots: category',
        api(`/atlas/hotspots?limit=20&category=${idOf(T.category, 7)}`),
        () => exactCount('atlas_hotspots', `community_id = '${big.id}' and category_id = '${idOf(T.category, 7)}'`),
      ],
      [
        SMALL_BOX,
        api('/atlas/hotspots?limit=20&bbox=10,10,10.5,10.5'),
        () =>
          exactCount(
            'atlas_hotspots',
            `community_id = '${big.id}' and latitude between 10 and 10.5 and longitude between 10 and 10.5`,
          ),
      ],
      ['atlas hotspots: a bbox of most of the world', api('/atlas/hotspots?limit=20&bbox=-170,-80,170,80'), null],
      [
        'atlas hotspots: bbox and category',
        api(`/atlas/hotspots?limit=20&bbox=-170,-80,170,80&category=${idOf(T.category, 3)}`),
        null,
      ],
      ['event donation summary', api('/events/the-featured-one/donations/summary'), null],
      ['product donation summary', api('/products/sku1/donations/summary'), null],
      ['site: home', site('/'), null],
      ['site: events', site('/events'), null],
      ['site: members', site('/members'), null],
      ['site: blog', site('/blog'), null],
      ['site: marketplace', site('/marketplace'), null],
      ['site: atlas', site('/atlas'), null],
    ];
    const problems: string[] = [];
    for (const [what, send, expected] of cases) {
      const { res, plans } = await traced(what, send);
      expect(res.status, what).toBe(200);
      if (expected && res.total !== undefined) {
        expect(Number(res.total), `${what}: X-Total-Count`).toBe(await expected());
        expect(res.accuracy, what).toBe('exact');
      }
      for (const p of plans) {
        const f = faults(p, what === SMALL_BOX || what === OFFSET_PAGE);
        if (f.length > 0) problems.push(`${what}: ${f.join('; ')}\n  ${p.sql}\n  ${p.plan.join('\n  ')}`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('a bounding box past the cap says its count is a lower bound', async () => {
    const r = await s.request('/v1/communities/big/atlas/hotspots?limit=20&bbox=-170,-80,170,80', { key: pk });
    expect(r.headers.get('X-Total-Count-Accuracy')).toBe('lower-bound');
    expect(Number(r.headers.get('X-Total-Count'))).toBe(BBOX_COUNT_CAP + 1);
    const deep = await s.request('/v1/communities/big/atlas/hotspots?limit=20&offset=5000&bbox=-170,-80,170,80', {
      key: pk,
    });
    // Counted past the page, so the next page is still announced.
    expect(Number(deep.headers.get('X-Total-Count'))).toBe(5021);
    expect(deep.headers.get('Link')).toContain('offset=5020');
  });
});
