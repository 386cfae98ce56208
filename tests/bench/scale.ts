// npm run bench -- --scale: the public lists and the donation summaries at a million rows against
// the same lists at a thousand (issue 21, goal 1). Rows are written with bulk INSERT ... SELECT
// statements (the database generates them, so a million rows cost one statement per table). One
// database holds a community of 1,000 rows per table alone (the baseline), another the same
// community and one of 1,000,000 rows per table beside it; an svc (caches off) runs on each, and
// each list is timed, N sequential requests, on the three in turn: the p50 of the big one, and of
// the small one beside it, may each be at most 1.5x the baseline p50 (the second catches a list
// that is fast only while its table is small, e.g. a scan of the whole table, not one community's).
//
// The rows go through plain INSERTs into the app's own tables, so whatever the database keeps in
// step with them (indexes, triggers, counters) is kept exactly as for rows the app writes. Every
// row is a function of its number n, so the bench knows how many rows each filter matches and
// checks X-Total-Count (and the summaries' count and total) against it: a wrong figure is WRONG.
// X-Total-Count-Accuracy is read by the counters' rules (docs/list-counts.md): `exact` must be the
// exact number; `lower-bound` is right only for an atlas bbox holding more than the count cap.
//
//   BENCH_SCALE_DB=sqlite|postgres|both   which database(s); default sqlite
//   BENCH_SCALE_ROWS=1000000              rows per table in the big community
//   BENCH_SCALE_SMALL_ROWS=1000           rows per table in the small one
//   BENCH_SCALE_REQUESTS=100              sequential requests per list and community
//   BENCH_SCALE_TIMEOUT_MS=10000          a request slower than this fails the line (NOT met)
//   BENCH_SCALE_BUILD_CONNECTIONS=3       PostgreSQL: tables loaded at once, each on its own connection
//   BENCH_PORT_BASE=3900                  the two svc processes listen on BENCH_PORT_BASE + 30 and + 31
//   BENCH_PG_URL / DATABASE_URL           the PostgreSQL server (a fresh schema, dropped afterwards)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { migrate, openDatabase, type DatabaseHandle, type Dialect } from '../../server/db/index.ts';
import { BBOX_COUNT_CAP } from '../../server/domain/atlas.ts';
import { judge, report, type BenchRow } from './report.ts';
import { benchPort, start } from './load.ts';

const BIG = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const SMALL = Number(process.env.BENCH_SCALE_SMALL_ROWS ?? 1000);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 100);
const TIMEOUT_MS = Number(process.env.BENCH_SCALE_TIMEOUT_MS ?? 10_000);
const DBS: Dialect[] = (() => {
  const v = process.env.BENCH_SCALE_DB ?? 'sqlite';
  return v === 'both' ? ['sqlite', 'postgres'] : [v as Dialect];
})();
const PG_URL = process.env.BENCH_PG_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const BUILD_GOAL_S = 120;
/** The p50 at the big community may be at most this many times the p50 at the small one. */
const RATIO_GOAL = 1.5;
/** Events spread over this many years of days, half before today and half after. */
const EVENT_YEARS = 6;
const DAY = 86_400;

// ---------------------------------------------------------------------------------------------
// Rows as functions of n. Each helper has a SQL twin (below) that the database evaluates per row;
// the JS side computes the ids, dates and expected counts the requests are checked against.

/** Table codes inside the ids, so every generated id is unique across tables and communities. */
const T = {
  community: 0,
  event: 1,
  tier: 2,
  user: 3,
  membership: 4,
  article: 5,
  product: 6,
  category: 7,
  hotspot: 8,
  checkout: 9,
  donation: 10,
  endpoint: 11,
  webhookEvent: 12,
  delivery: 13,
} as const;

const hex2 = (v: number) => v.toString(16).padStart(2, '0');
/** A UUIDv7-shaped id (version 7, variant 8) that sorts by n within a table. */
const idOf = (c: number, t: number, n: number) =>
  `01${hex2(c)}${hex2(t)}00-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

interface Community {
  /** 1 = the big one, 2 = the small one. */
  code: number;
  tag: string;
  rows: number;
  id: string;
}

/** The seconds of event n's start: the first half ends the day before today, the second starts the day after tomorrow. */
function eventStart(n: number, rows: number, today: number): number {
  const half = Math.floor(rows / 2);
  const step = Math.max(1, Math.floor((EVENT_YEARS * 365 * DAY) / rows));
  return n < half ? today - DAY - (half - 1 - n) * step : today + 2 * DAY + (n - half) * step;
}
/**
 * Event visibility by n % 10: 3 is MEMBERS_ONLY (never listed to a publishable key); 1, 5 and 7
 * are NULL, which inherits the community's PUBLIC (listed); the rest are PUBLIC.
 */
const membersOnly = (n: number) => n % 10 === 3;
/** The one featured event (the database allows one per community): upcoming, inheriting its visibility. */
const featuredOf = (rows: number) => Math.floor(rows / 2) + 7;
const memberAccepted = (n: number) => n % 20 !== 0;
const articlePublished = (n: number) => n % 10 !== 0;
const productActive = (n: number) => n % 10 !== 0;
const CATEGORIES = 5;
const latitudeOf = (n: number) => ((n * 37) % 17_900) / 100 - 89.5;
const longitudeOf = (n: number) => ((n * 53) % 35_900) / 100 - 179.5;
/** Edges between the 0.01° grid of the hotspots, so float rounding cannot move one in or out. */
const BBOX = { minLon: -10.005, minLat: 30.005, maxLon: 40.005, maxLat: 60.005 };
const donationAmount = (n: number) => 100 + (n % 50) * 10;
const donationRefunded = (n: number) => n % 7 === 0;
/** Which target donation n goes to: two events and two products, unevenly. */
const donationTarget = (n: number): 'eventA' | 'eventB' | 'productA' | 'productB' => {
  const b = n % 10;
  return b <= 4 ? 'eventA' : b <= 6 ? 'eventB' : b <= 8 ? 'productA' : 'productB';
};
/** Event and product numbers of the donation targets (visible events, active products). */
const targetEvents = (rows: number) => ({ eventA: Math.floor(rows / 2) + 2, eventB: Math.floor(rows / 2) + 4 });
const TARGET_PRODUCTS = { productA: 1, productB: 2 };
const WEBHOOK_ENDPOINTS = 10;

interface Expected {
  visible: number;
  upcoming: number;
  past: number;
  featured: number;
  members: number;
  articles: number;
  products: number;
  bbox: number;
  category: number;
  donations: Record<'eventA' | 'productA', { count: number; total: number }>;
}

function expectedOf(rows: number): Expected {
  const e: Expected = {
    visible: 0,
    upcoming: 0,
    past: 0,
    featured: membersOnly(featuredOf(rows)) ? 0 : 1,
    members: 0,
    articles: 0,
    products: 0,
    bbox: 0,
    category: 0,
    donations: { eventA: { count: 0, total: 0 }, productA: { count: 0, total: 0 } },
  };
  const half = Math.floor(rows / 2);
  for (let n = 0; n < rows; n++) {
    if (!membersOnly(n)) {
      e.visible++;
      if (n < half) e.past++;
      else e.upcoming++;
    }
    if (memberAccepted(n)) e.members++;
    if (articlePublished(n)) e.articles++;
    if (productActive(n)) e.products++;
    const lat = latitudeOf(n);
    const lon = longitudeOf(n);
    if (lat >= BBOX.minLat && lat <= BBOX.maxLat && lon >= BBOX.minLon && lon <= BBOX.maxLon) e.bbox++;
    if (n % CATEGORIES === 2) e.category++;
    const target = donationTarget(n);
    if ((target === 'eventA' || target === 'productA') && !donationRefunded(n)) {
      e.donations[target].count++;
      e.donations[target].total += donationAmount(n);
    }
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// The SQL twins, per dialect. `n` is the series column.

interface Gen {
  /** FROM clause yielding the integers 0..rows-1 as column n. */
  series(rows: number): string;
  /** n as lower-case hex, zero-padded to width. */
  hex(expr: string, width: number): string;
  /** Epoch seconds as ISO 8601 UTC with milliseconds, as the app writes them. */
  iso(secondsExpr: string): string;
}

const GEN: Record<Dialect, Gen> = {
  sqlite: {
    series: (rows) =>
      `(with recursive s(n) as (select 0 union all select n + 1 from s where n < ${rows - 1}) select n from s) as s`,
    hex: (expr, width) => `printf('%0${width}x', ${expr})`,
    iso: (secs) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${secs}, 'unixepoch')`,
  },
  postgres: {
    series: (rows) => `generate_series(0::bigint, ${rows - 1}::bigint) as s(n)`,
    hex: (expr, width) => `lpad(to_hex(${expr}), ${width}, '0')`,
    iso: (secs) => `to_char(to_timestamp(${secs}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  },
};

/** SQL for idOf(c, t, expr). */
const idSql = (g: Gen, c: number, t: number, expr = 'n') =>
  `'01${hex2(c)}${hex2(t)}00-0000-7000-8000-' || ${g.hex(expr, 12)}`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

interface TableBuild {
  table: string;
  rows: number;
  sql: string;
}

function buildStatements(g: Gen, c: Community, now: number): TableBuild[] {
  const { code, rows } = c;
  const cid = lit(c.id);
  const today = now - (now % DAY);
  const half = Math.floor(rows / 2);
  const step = Math.max(1, Math.floor((EVENT_YEARS * 365 * DAY) / rows));
  const nowIso = lit(new Date(now * 1000).toISOString());
  const later = lit(new Date((now + DAY) * 1000).toISOString());
  const s = g.series(rows);
  const { eventA, eventB } = targetEvents(rows);
  const { productA, productB } = TARGET_PRODUCTS;
  return [
    {
      table: 'events',
      rows,
      sql: `insert into events (id, community_id, slug, name, description, start_date, end_date, location, banner_url,
          format, featured, visibility, donation_config, created_at, updated_at)
        select ${idSql(g, code, T.event)}, ${cid}, 'e-' || ${g.hex('n', 8)}, 'Event ' || n, 'Bench event ' || n,
          ${g.iso(`case when n < ${half} then ${today - DAY} - (${half - 1} - n) * ${step} else ${today + 2 * DAY} + (n - ${half}) * ${step} end`)},
          null, null, null,
          case n % 3 when 0 then 'online' when 1 then 'in_person' else 'hybrid' end,
          case when n = ${featuredOf(rows)} then 1 else null end,
          case when n % 10 = 3 then 'MEMBERS_ONLY' when n % 10 in (1, 5, 7) then null else 'PUBLIC' end,
          case when n in (${eventA}, ${eventB}) then '{"enabled":true,"mode":"open","currency":"USD"}' else null end,
          ${nowIso}, ${nowIso}
        from ${s}`,
    },
    {
      // A tier on every fourth event, so pages carry tiers as real ones do.
      table: 'tiers',
      rows: Math.ceil(rows / 4),
      sql: `insert into tiers (id, event_id, community_id, name, price_cents, currency, capacity, is_active, sort_order, created_at)
        select ${idSql(g, code, T.tier)}, ${idSql(g, code, T.event)}, ${cid}, 'General', 1000, 'USD', 100, 1, 0, ${nowIso}
        from ${s} where n % 4 = 0`,
    },
    {
      table: 'users',
      rows,
      sql: `insert into users (id, email, name, usertag, created_at)
        select ${idSql(g, code, T.user)}, 'u${code}-' || ${g.hex('n', 8)} || '@bench.test', 'Member ' || n,
          'u${code}_' || ${g.hex('n', 8)}, ${nowIso}
        from ${s}`,
    },
    {
      table: 'memberships',
      rows,
      sql: `insert into memberships (id, community_id, user_id, status, role, created_at, accepted_at)
        select ${idSql(g, code, T.membership)}, ${cid}, ${idSql(g, code, T.user)},
          case when n % 20 = 0 then 'PENDING' else 'ACCEPTED' end, 'member', ${nowIso},
          case when n % 20 = 0 then null else ${g.iso(`${now - rows} + n`)} end
        from ${s}`,
    },
    {
      table: 'articles',
      rows,
      sql: `insert into articles (id, community_id, slug, title, excerpt, content, category, status, published_at, created_at, updated_at)
        select ${idSql(g, code, T.article)}, ${cid}, 'a-' || ${g.hex('n', 8)}, 'Article ' || n, 'Excerpt of article ' || n,
          '<p>Body of article ' || n || '</p>', 'news',
          case when n % 10 = 0 then 'DRAFT' else 'PUBLISHED' end,
          case when n % 10 = 0 then null else ${g.iso(`${now - rows} + n`)} end, ${nowIso}, ${nowIso}
        from ${s}`,
    },
    {
      table: 'products',
      rows,
      sql: `insert into products (id, community_id, sku, name, description, price_cents, currency, is_active, donation_config, created_at, updated_at)
        select ${idSql(g, code, T.product)}, ${cid}, 'p-' || ${g.hex('n', 8)}, 'Product ' || n, 'Bench product ' || n,
          500 + n % 100, 'USD', case when n % 10 = 0 then 0 else 1 end,
          case when n in (${productA}, ${productB}) then '{"enabled":true,"mode":"open"}' else null end,
          ${g.iso(`${now - rows} + n`)}, ${nowIso}
        from ${s}`,
    },
    {
      table: 'atlas_categories',
      rows: CATEGORIES,
      sql: `insert into atlas_categories (id, community_id, name, sort_order)
        select ${idSql(g, code, T.category)}, ${cid}, 'Category ' || n, n from ${g.series(CATEGORIES)}`,
    },
    {
      table: 'atlas_hotspots',
      rows,
      sql: `insert into atlas_hotspots (id, community_id, category_id, name, latitude, longitude, created_at)
        select ${idSql(g, code, T.hotspot)}, ${cid}, ${idSql(g, code, T.category, `n % ${CATEGORIES}`)}, 'Spot ' || ${g.hex('n', 8)},
          (n * 37 % 17900) / 100.0 - 89.5, (n * 53 % 35900) / 100.0 - 179.5, ${nowIso}
        from ${s}`,
    },
    {
      // Donations are fulfilled checkouts: each has its completed checkout session.
      table: 'checkout_sessions',
      rows,
      sql: `insert into checkout_sessions (id, community_id, gateway, purpose_kind, purpose, line_items, currency, amount_total,
          success_url, cancel_url, status, expires_at, created_at, closed_at, transaction_id)
        select ${idSql(g, code, T.checkout)}, ${cid}, 'local', 'donation', '{}', '[]', 'USD', 100 + (n % 50) * 10,
          'https://bench.test/ok', 'https://bench.test/cancel', 'COMPLETED', ${nowIso}, ${nowIso}, ${nowIso}, 'pi_bench_${code}_' || n
        from ${s}`,
    },
    {
      table: 'donations',
      rows,
      sql: `insert into donations (id, community_id, target_type, target_id, checkout_session_id, transaction_id, amount, currency,
          sidecar, donor_email, received_at, refunded_at)
        select ${idSql(g, code, T.donation)}, ${cid},
          case when n % 10 <= 6 then 'EVENT' else 'PRODUCT' end,
          case when n % 10 <= 4 then ${lit(idOf(code, T.event, eventA))} when n % 10 <= 6 then ${lit(idOf(code, T.event, eventB))}
            when n % 10 <= 8 then ${lit(idOf(code, T.product, productA))} else ${lit(idOf(code, T.product, productB))} end,
          ${idSql(g, code, T.checkout)}, 'pi_bench_${code}_' || n, 100 + (n % 50) * 10, 'USD', 0, 'donor' || n || '@bench.test',
          ${g.iso(`${now - rows} + n`)}, case when n % 7 = 0 then ${nowIso} else null end
        from ${s}`,
    },
    {
      // Disabled endpoints and finished deliveries: the worker has nothing to send.
      table: 'webhook_endpoints',
      rows: WEBHOOK_ENDPOINTS,
      sql: `insert into webhook_endpoints (id, community_id, url, events, status, created_at, updated_at)
        select ${idSql(g, code, T.endpoint)}, ${cid}, 'https://bench.test/hook/' || n, '["*"]', 'DISABLED', ${nowIso}, ${nowIso}
        from ${g.series(WEBHOOK_ENDPOINTS)}`,
    },
    {
      table: 'webhook_events',
      rows: Math.ceil(rows / WEBHOOK_ENDPOINTS),
      sql: `insert into webhook_events (id, community_id, community_tag, name, data, created_at)
        select ${idSql(g, code, T.webhookEvent)}, ${cid}, ${lit(c.tag)}, 'event.created', '{"n":' || n || '}', ${nowIso}
        from ${g.series(Math.ceil(rows / WEBHOOK_ENDPOINTS))}`,
    },
    {
      table: 'webhook_deliveries',
      rows,
      sql: `insert into webhook_deliveries (id, event_id, endpoint_id, community_id, status, attempts, total_attempts,
          last_attempt_at, last_status_code, created_at, updated_at)
        select ${idSql(g, code, T.delivery)}, ${idSql(g, code, T.webhookEvent, `n / ${WEBHOOK_ENDPOINTS}`)},
          ${idSql(g, code, T.endpoint, `n % ${WEBHOOK_ENDPOINTS}`)}, ${cid}, 'SUCCEEDED', 1, 1, ${nowIso}, 200, ${nowIso}, ${nowIso}
        from ${s}`,
    },
    {
      table: 'idempotency_keys',
      rows,
      sql: `insert into idempotency_keys (owner, idem_key, request_hash, state, response_status, response_body, response_headers,
          created_at, expires_at, locked_until, lock_token)
        select 'key:${idOf(code, 0, 999)}', 'k-' || ${g.hex('n', 8)}, 'h' || n, 'done', 201, '{}', '{}', ${nowIso}, ${later}, ${nowIso}, 't' || n
        from ${s}`,
    },
  ];
}

interface Built {
  seconds: Record<string, number>;
  total: number;
  /** The indexes, triggers and constraints the build left different from what the migrations made (none). */
  schemaChanged: string[];
}

/**
 * Every index, trigger and constraint of the schema, by name, with its definition (and, on
 * PostgreSQL, whether a constraint is validated): the build drops indexes and foreign keys for
 * speed, and this proves it left the database as the migrations made it, list indexes and the
 * counters' triggers included.
 */
async function schemaObjects(db: Kysely<any>, dialect: Dialect): Promise<Map<string, string>> {
  const rows =
    dialect === 'sqlite'
      ? (
          await sql<{ name: string; def: string }>`select type || ' ' || name as name, coalesce(sql, '') as def
            from sqlite_master where type in ('index', 'trigger')`.execute(db)
        ).rows
      : (
          await sql<{ name: string; def: string }>`
            select 'index ' || indexname as name, indexdef as def from pg_indexes where schemaname = current_schema()
            union all
            select 'trigger ' || t.tgname, pg_get_triggerdef(t.oid) || case t.tgenabled when 'D' then ' DISABLED' else '' end
              from pg_trigger t join pg_class r on r.oid = t.tgrelid
              where r.relnamespace = current_schema()::regnamespace and not t.tgisinternal
            union all
            select 'constraint ' || conrelid::regclass::text || '.' || conname,
                pg_get_constraintdef(oid) || case when convalidated then '' else ' NOT VALIDATED' end
              from pg_constraint where connamespace = current_schema()::regnamespace`.execute(db)
        ).rows;
  return new Map(rows.map((r) => [r.name, r.def]));
}

function schemaDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .filter((n) => before.get(n) !== after.get(n))
    .map((n) => (!after.has(n) ? `${n} missing` : !before.has(n) ? `${n} added` : `${n} changed`));
}

/**
 * The indexes of `table` that no constraint owns (a primary key's or a UNIQUE column's stay), with
 * the statement that creates each.
 */
async function secondaryIndexes(db: Kysely<any>, dialect: Dialect, table: string) {
  const q =
    dialect === 'sqlite'
      ? sql<{ name: string; sql: string }>`select name, sql from sqlite_master
          where type = 'index' and tbl_name = ${table} and sql is not null`
      : sql<{ name: string; sql: string }>`select indexname as name, indexdef as sql from pg_indexes
          where schemaname = current_schema() and tablename = ${table}
            and indexname not in (select conname from pg_constraint where conrelid = ${table}::regclass)`;
  return (await q.execute(db)).rows;
}

/**
 * The foreign keys of `tables` (PostgreSQL): the name, the table and the definition that makes it
 * again. PostgreSQL checks a foreign key with a trigger per inserted row (a lookup and a row lock
 * in the referenced table); added after the load, it is checked once, by one join over the rows.
 */
async function foreignKeys(db: Kysely<any>, tables: string[]) {
  return (
    await sql<{ name: string; table: string; def: string }>`select c.conname as name, t.relname as "table",
        pg_get_constraintdef(c.oid) as def
      from pg_constraint c join pg_class t on t.oid = c.conrelid
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and t.relname in (${sql.join(tables)})
      order by t.relname, c.conname`.execute(db)
  ).rows;
}

/** Tables loaded at once on PostgreSQL, each on its own connection (SQLite has one writer). */
const BUILD_CONNECTIONS = Number(process.env.BENCH_SCALE_BUILD_CONNECTIONS ?? 3);

/**
 * The community row, then each of its tables, one transaction per table, which drops the table's
 * secondary indexes, inserts the rows and makes the indexes again (the triggers stay: they keep
 * the counters as for any write). On PostgreSQL the foreign keys of the loaded tables go first and
 * come back after the load, validated over every row (the same constraints, checked once instead
 * of row by row), and the tables load BUILD_CONNECTIONS at a time: without the foreign keys no
 * load waits for another's rows.
 */
async function build(
  db: Kysely<any>,
  dialect: Dialect,
  c: Community,
  now: number,
): Promise<Omit<Built, 'schemaChanged'>> {
  const g = GEN[dialect];
  const seconds: Record<string, number> = {};
  const started = performance.now();
  const nowIso = new Date(now * 1000).toISOString();
  const step = async (name: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    seconds[name] = (performance.now() - t0) / 1000;
    return seconds[name];
  };
  await sql
    .raw(
      `insert into communities (id, tag, name, visibility, accessibility, page_settings, features, created_at, updated_at)
       values (${lit(c.id)}, ${lit(c.tag)}, ${lit(`Scale ${c.rows}`)}, 'PUBLIC', 'OPEN', '[]', '["atlas"]', ${lit(nowIso)}, ${lit(nowIso)})`,
    )
    .execute(db);
  const statements = buildStatements(g, c, now);
  const fks =
    dialect === 'postgres'
      ? await foreignKeys(
          db,
          statements.map((t) => t.table),
        )
      : [];
  if (fks.length) {
    await db.transaction().execute(async (trx) => {
      for (const fk of fks) await sql.raw(`alter table ${fk.table} drop constraint ${fk.name}`).execute(trx);
    });
  }
  const load = async (t: TableBuild) => {
    const s = await step(t.table, () =>
      db.transaction().execute(async (trx) => {
        // A secondary index is built faster once over the loaded rows than row by row; the same
        // definitions come back in the same transaction, so the table ends as the migrations made it.
        const indexes = await secondaryIndexes(trx, dialect, t.table);
        for (const ix of indexes) await sql.raw(`drop index ${ix.name}`).execute(trx);
        await sql.raw(t.sql).execute(trx);
        for (const ix of indexes) await sql.raw(ix.sql).execute(trx);
      }),
    );
    process.stdout.write(
      `  ${c.tag.padEnd(12)} ${t.table.padEnd(20)} ${String(t.rows).padStart(9)} rows  ${s.toFixed(1)} s\n`,
    );
  };
  await pool(statements, dialect === 'postgres' ? BUILD_CONNECTIONS : 1, load);
  if (fks.length) {
    // NOT VALID first (a moment's lock of both tables, one after another), then the validations
    // side by side: a validation locks neither table against the others'.
    const s = await step('foreign keys', async () => {
      for (const fk of fks)
        await sql.raw(`alter table ${fk.table} add constraint ${fk.name} ${fk.def} not valid`).execute(db);
      await pool(fks, BUILD_CONNECTIONS, (fk) =>
        sql.raw(`alter table ${fk.table} validate constraint ${fk.name}`).execute(db),
      );
    });
    process.stdout.write(`  ${c.tag.padEnd(12)} ${fks.length} foreign keys validated  ${s.toFixed(1)} s\n`);
  }
  if (dialect === 'postgres') {
    // Fresh statistics and the visibility map, as autovacuum would have them on a live database
    // with these rows (it vacuums after inserts too, since PostgreSQL 13): without the map an
    // index-only scan, such as the atlas box count's walk of its latitude index, visits the
    // table for every entry.
    // Only this build's tables (and their counters): the server may hold other schemas.
    const tables = [...statements.map((t) => t.table), 'communities', 'event_counts', 'list_counts', 'donation_totals'];
    const s = await step('vacuum analyze', () => sql.raw(`vacuum analyze ${tables.join(', ')}`).execute(db));
    process.stdout.write(`  vacuum analyze ${s.toFixed(1)} s\n`);
  }
  return { seconds, total: (performance.now() - started) / 1000 };
}

/** fn over items, at most `width` at a time, in the items' order. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface Line {
  name: string;
  path: (c: Community) => string;
  /** Checks the response; returns a problem, or null. */
  check: (res: Response, body: unknown, c: Community, e: Expected) => string | null;
}

/**
 * A line's answer that is right but worth a line of its own in the table (`info`), e.g. a count
 * the server reports as a lower bound. A check returns it prefixed with NOTE; anything else it
 * returns is WRONG.
 */
const NOTE = 'note: ';

/**
 * X-Total-Count by the counters' rules (docs/list-counts.md, api.md "Lists and pagination"): with
 * `X-Total-Count-Accuracy: exact` (every list; a missing header means the same) it is the number
 * of matches, exactly. `lower-bound` is allowed only where the line says the server may stop
 * counting (`capped`: the atlas bbox, whose count stops at BBOX_COUNT_CAP), and only when there
 * are more matches than the cap; its figure must then be at least the cap and at most the
 * matches. Any other accuracy is WRONG.
 */
function totalIs(expected: (e: Expected) => number, capped?: number) {
  return (res: Response, _body: unknown, _c: Community, e: Expected): string | null => {
    const got = res.headers.get('x-total-count');
    const accuracy = res.headers.get('x-total-count-accuracy') ?? 'exact';
    const want = expected(e);
    if (accuracy === 'exact') return got === String(want) ? null : `X-Total-Count ${got}, expected ${want}`;
    if (accuracy !== 'lower-bound' || capped === undefined)
      return `X-Total-Count-Accuracy ${accuracy} (X-Total-Count ${got}), expected exact ${want}`;
    const n = Number(got);
    if (want <= capped)
      return `X-Total-Count ${got} as a lower bound, expected exact ${want} (at most the cap ${capped})`;
    if (!(Number.isInteger(n) && n >= capped && n <= want))
      return `X-Total-Count ${got} as a lower bound, expected from ${capped} to ${want}`;
    return `${NOTE}${got} (lower bound; ${want.toLocaleString('en')} match)`;
  };
}

function summaryIs(target: 'eventA' | 'productA') {
  return (_res: Response, body: unknown, _c: Community, e: Expected): string | null => {
    const b = body as { count?: number; total?: number };
    const want = e.donations[target];
    return b.count === want.count && b.total === want.total
      ? null
      : `summary count ${b.count} total ${b.total}, expected ${want.count} / ${want.total}`;
  };
}

function deepCursor(c: Community, now: number): string {
  const n = Math.floor(c.rows * 0.9);
  const today = now - (now % DAY);
  const d = new Date(eventStart(n, c.rows, today) * 1000).toISOString();
  return Buffer.from(JSON.stringify({ d, i: idOf(c.code, T.event, n), q: 'asc' })).toString('base64url');
}

function lines(now: number): Line[] {
  const bbox = `${BBOX.minLon},${BBOX.minLat},${BBOX.maxLon},${BBOX.maxLat}`;
  const base = (c: Community) => `/v1/communities/${c.tag}`;
  const slug = (n: number) => `e-${n.toString(16).padStart(8, '0')}`;
  const sku = (n: number) => `p-${n.toString(16).padStart(8, '0')}`;
  return [
    { name: 'events, first page', path: (c) => `${base(c)}/events?limit=20`, check: totalIs((e) => e.visible) },
    {
      name: 'events, deep cursor page (90 %)',
      path: (c) => `${base(c)}/events?limit=20&cursor=${deepCursor(c, now)}`,
      check: (res, body, c, e) =>
        Array.isArray(body) && body.length === 20
          ? totalIs((x) => x.visible)(res, body, c, e)
          : `deep page has ${Array.isArray(body) ? body.length : 'no'} items`,
    },
    {
      name: 'events, upcoming',
      path: (c) => `${base(c)}/events?limit=20&upcoming=true`,
      check: totalIs((e) => e.upcoming),
    },
    { name: 'events, past', path: (c) => `${base(c)}/events?limit=20&past=true`, check: totalIs((e) => e.past) },
    {
      name: 'events, featured',
      path: (c) => `${base(c)}/events?limit=20&featured=true`,
      check: totalIs((e) => e.featured),
    },
    { name: 'members', path: (c) => `${base(c)}/members?limit=20`, check: totalIs((e) => e.members) },
    { name: 'articles', path: (c) => `${base(c)}/articles?limit=20`, check: totalIs((e) => e.articles) },
    { name: 'products', path: (c) => `${base(c)}/products?limit=20`, check: totalIs((e) => e.products) },
    {
      name: 'atlas hotspots, bbox',
      path: (c) => `${base(c)}/atlas/hotspots?limit=20&bbox=${bbox}`,
      check: totalIs((e) => e.bbox, BBOX_COUNT_CAP),
    },
    {
      name: 'atlas hotspots, category',
      path: (c) => `${base(c)}/atlas/hotspots?limit=20&category=${idOf(c.code, T.category, 2)}`,
      check: totalIs((e) => e.category),
    },
    {
      name: 'donation summary, event',
      path: (c) => `${base(c)}/events/${slug(targetEvents(c.rows).eventA)}/donations/summary`,
      check: summaryIs('eventA'),
    },
    {
      name: 'donation summary, product',
      path: (c) => `${base(c)}/products/${sku(TARGET_PRODUCTS.productA)}/donations/summary`,
      check: summaryIs('productA'),
    },
  ];
}

interface Timing {
  p50: number;
  p99: number;
  samples: number;
  timedOut: boolean;
  problem: string | null;
  status: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** One warm-up request (which also checks the answer), then up to REQUESTS sequential ones. */
async function time(url: string, pk: string, line: Line, c: Community, e: Expected): Promise<Timing> {
  const once = async () => {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { 'X-API-Key': pk }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = await res.json();
    return { ms: performance.now() - t0, res, body };
  };
  let first;
  try {
    first = await once();
  } catch {
    return { p50: NaN, p99: NaN, samples: 0, timedOut: true, problem: null, status: 0 };
  }
  const problem =
    first.res.status === 200
      ? line.check(first.res, first.body, c, e)
      : `HTTP ${first.res.status}: ${JSON.stringify(first.body).slice(0, 120)}`;
  // A slow line gets fewer samples, so a million-row run on an unindexed list ends in minutes.
  const n = first.ms > 1000 ? Math.min(REQUESTS, 5) : first.ms > 100 ? Math.min(REQUESTS, 20) : REQUESTS;
  const ms: number[] = [];
  let timedOut = false;
  for (let i = 0; i < n; i++) {
    try {
      ms.push((await once()).ms);
    } catch {
      timedOut = true;
      break;
    }
  }
  ms.sort((a, b) => a - b);
  return {
    p50: ms.length ? quantile(ms, 0.5) : NaN,
    p99: ms.length ? quantile(ms, 0.99) : NaN,
    samples: ms.length,
    timedOut,
    problem,
    status: first.res.status,
  };
}

const fmtMs = (ms: number) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);

// ---------------------------------------------------------------------------------------------

/** Where one run's svc and database live, and how to open the database for a build. */
interface Target {
  dialect: Dialect;
  dataDir: string;
  /** DATABASE_URL for svc ('' = SQLite in dataDir). */
  databaseUrl: string;
  open(): DatabaseHandle;
}

async function buildInto(target: Target, c: Community, now: number): Promise<Built> {
  const handle = target.open();
  try {
    if (target.dialect === 'sqlite') {
      // The build connection only: a big page cache for the index inserts, the rollback journal
      // in memory and no fsync, for rows a failed build throws away anyway. svc reopens the file
      // in WAL mode.
      // WAL cannot go straight to another mode; DELETE first, then MEMORY (a build that fails is thrown away).
      await sql`pragma journal_mode = delete`.execute(handle.db);
      await sql`pragma journal_mode = memory`.execute(handle.db);
      await sql`pragma synchronous = off`.execute(handle.db);
      await sql`pragma cache_size = -524288`.execute(handle.db);
    }
    const before = await schemaObjects(handle.db, target.dialect);
    const built = await build(handle.db, target.dialect, c, now);
    return { ...built, schemaChanged: schemaDiff(before, await schemaObjects(handle.db, target.dialect)) };
  } finally {
    await handle.close();
  }
}

/** svc on the target with its caches off, until stop(); the publishable key of each community. */
async function serve(target: Target, port: string, communities: Community[]) {
  const child = await start(
    'server/main.ts',
    {
      PORT: port,
      SVC_DATA_DIR: target.dataDir,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: target.databaseUrl,
      SVC_READ_CACHE_MS: '0',
      SVC_KEY_CACHE_MS: '0',
      // The limiter stays in the path; its budget is raised so it measures the work, not 429s.
      RATE_LIMIT_PUBLISHABLE_PER_SEC: '1000000',
      SVC_SEED_DEMO: 'false',
      SVC_WEBHOOK_WORKER: 'false',
      SVC_MAIL_WORKER: 'false',
      SVC_PURGE_WORKER: 'false',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    },
    `http://127.0.0.1:${port}/readyz`,
  );
  const origin = `http://127.0.0.1:${port}`;
  const keys = new Map<string, string>();
  for (const c of communities) {
    const r = await fetch(`${origin}/v1/communities/${c.tag}/publishable-key`);
    keys.set(c.tag, ((await r.json()) as { publishableKey: string }).publishableKey);
  }
  return { origin, keys, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Two databases: one holds the small community alone (the baseline), the other the small one and
 * the big one beside it. An svc runs on each, and every list is timed on the three in turn, in the
 * same minute, so the load of a shared machine weighs on the three figures alike.
 */
async function runOn(dialect: Dialect): Promise<BenchRow[]> {
  const area = `scale (${dialect})`;
  const rows: BenchRow[] = [];
  const now = Math.floor(Date.now() / 1000);
  const big: Community = { code: 1, tag: 'scale-big', rows: BIG, id: idOf(1, T.community, 0) };
  const small: Community = { code: 2, tag: 'scale-small', rows: SMALL, id: idOf(2, T.community, 0) };
  const expected = new Map([big, small].map((c) => [c.tag, expectedOf(c.rows)]));
  const bigLabel = BIG >= 1_000_000 ? `${BIG / 1_000_000}M` : BIG.toLocaleString('en');
  const smallLabel = SMALL >= 1000 ? `${SMALL / 1000}k` : String(SMALL);
  const dirs: string[] = [];
  const schemas: string[] = [];
  const servers: Array<Awaited<ReturnType<typeof serve>>> = [];
  let admin: pg.Client | null = null;
  const makeTarget = async (name: string): Promise<Target> => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-scale-'));
    dirs.push(dataDir);
    let target: Target;
    if (dialect === 'postgres') {
      const schema = `bench_scale_${name}_${process.pid}`;
      await admin!.query(`create schema ${schema}`);
      schemas.push(schema);
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      target = {
        dialect,
        dataDir,
        databaseUrl: url.toString(),
        open: () => openDatabase({ kind: 'postgres', url: PG_URL, schema }),
      };
    } else {
      const file = path.join(dataDir, 'svc.db');
      target = { dialect, dataDir, databaseUrl: '', open: () => openDatabase({ kind: 'sqlite', file }) };
    }
    const migrating = target.open();
    await migrate(migrating.db);
    await migrating.close();
    return target;
  };
  try {
    if (dialect === 'postgres') {
      admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
    }
    const alone = await makeTarget('alone');
    const shared = await makeTarget('shared');

    process.stdout.write(`\n${area}: the baseline database, ${small.tag} alone\n`);
    const builtAlone = await buildInto(alone, small, now);
    process.stdout.write(`\n${area}: the big database, ${small.tag} and ${big.tag}\n`);
    const builtSmall = await buildInto(shared, small, now);
    const builtBig = await buildInto(shared, big, now);
    const total = builtSmall.total + builtBig.total;
    process.stdout.write(`  built in ${total.toFixed(1)} s\n`);
    const slowest = Object.entries(builtBig.seconds)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([table, sec]) => `${table} ${sec.toFixed(0)} s`)
      .join(', ');
    rows.push({
      area,
      measure: `build, ${BIG.toLocaleString('en')} + ${SMALL.toLocaleString('en')} rows per table`,
      figure: `${total.toFixed(1)} s`,
      goal: `< ${BUILD_GOAL_S} s`,
      verdict: judge(total < BUILD_GOAL_S),
    });
    rows.push({ area, measure: 'build, slowest tables', figure: slowest, goal: '', verdict: 'info' });
    const changed = [...builtAlone.schemaChanged, ...builtSmall.schemaChanged, ...builtBig.schemaChanged];
    if (changed.length) process.stdout.write(`  the schema after the build differs: ${changed.join('; ')}\n`);
    rows.push({
      area,
      measure: 'build, indexes, triggers and constraints as migrated',
      figure: changed.length ? changed.join('; ') : 'the same',
      goal: 'the same',
      verdict: changed.length ? 'WRONG' : 'met',
    });

    const baseServer = await serve(alone, benchPort(30), [small]);
    servers.push(baseServer);
    const bigServer = await serve(shared, benchPort(31), [big, small]);
    servers.push(bigServer);
    await warmUp(baseServer, small, now);
    await warmUp(bigServer, small, now);

    const checkRows = (line: Line, c: Community, t: Timing, where: string) => {
      if (!t.problem) return;
      const note = t.problem.startsWith(NOTE);
      process.stdout.write(`    ${c.tag} ${where}: ${t.problem}\n`);
      rows.push({
        area,
        measure: `${line.name}: ${c.tag} count, ${where}`,
        figure: note ? t.problem.slice(NOTE.length) : t.problem,
        goal: note ? '' : 'exact',
        verdict: note ? 'info' : 'WRONG',
      });
    };
    process.stdout.write(
      `\n${area}: p50 / p99 of up to ${REQUESTS} sequential requests, caches off, timeout ${TIMEOUT_MS / 1000} s: ` +
        `${smallLabel} alone; ${bigLabel}; ${smallLabel} beside ${bigLabel}\n`,
    );
    const timeOn = (server: typeof baseServer, c: Community, line: Line) =>
      time(server.origin + line.path(c), server.keys.get(c.tag)!, line, c, expected.get(c.tag)!);
    for (const line of lines(now)) {
      const s = await timeOn(baseServer, small, line);
      const b = await timeOn(bigServer, big, line);
      const n = await timeOn(bigServer, small, line);
      process.stdout.write(
        `  ${line.name.padEnd(34)} ${show(s)}; ${show(b)}; ${show(n)}  (${s.samples}/${b.samples}/${n.samples} samples)\n`,
      );
      for (const [label, t] of [
        [bigLabel, b],
        [`${smallLabel} beside ${bigLabel}`, n],
      ] as const) {
        const ratio = t.p50 / s.p50;
        rows.push({
          area,
          measure: `${line.name}, p50 ${label}`,
          // The two p50s and their ratio; the p99s are in the detailed lines above.
          figure: `${smallLabel} ${p50(s)}, ${label === bigLabel ? bigLabel : 'beside'} ${p50(t)}${Number.isFinite(ratio) ? `: ${ratio.toFixed(1)}x` : ''}`,
          goal: `≤ ${RATIO_GOAL}x ${smallLabel} alone`,
          verdict: t.timedOut || s.timedOut || !(ratio <= RATIO_GOAL) ? 'NOT met' : 'met',
        });
      }
      checkRows(line, small, s, 'alone');
      checkRows(line, big, b, `beside ${smallLabel}`);
      checkRows(line, small, n, `beside ${bigLabel}`);
    }
  } finally {
    for (const server of servers) await server.stop();
    if (admin) {
      for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** A freshly started svc is slower for its first requests (JIT, statement caches): every line a few times, untimed. */
async function warmUp(server: { origin: string; keys: Map<string, string> }, c: Community, now: number) {
  for (let round = 0; round < 10; round++) {
    for (const line of lines(now)) {
      await fetch(server.origin + line.path(c), {
        headers: { 'X-API-Key': server.keys.get(c.tag)! },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      }).then((r) => r.arrayBuffer());
    }
  }
}

const show = (t: Timing) =>
  t.samples === 0 ? 'timed out' : `${fmtMs(t.p50)} / ${fmtMs(t.p99)}${t.timedOut ? ' (then timed out)' : ''}`;
const p50 = (t: Timing) => (t.samples === 0 ? 'timeout' : fmtMs(t.p50));

async function main() {
  const rows: BenchRow[] = [];
  for (const dialect of DBS) rows.push(...(await runOn(dialect)));
  report(rows);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
