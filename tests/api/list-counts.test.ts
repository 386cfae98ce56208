// The trigger-kept counts (migration 0029, docs/list-counts.md) stay equal to COUNT(*) under a
// long mixed sequence of writes: articles through the real API, and the other tables as the
// console, imports and bulk loaders write them (plain INSERT/UPDATE/DELETE, one row or many).
// After every few steps the recount compares every counter with its rows, and the API's
// X-Total-Count is compared with COUNT(*) for the event filters. The migration's backfill and the
// recount's repair are checked too.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, PostgresAdapter, sql, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEvents, recountLists } from '../../server/domain/list-counts.ts';
import { newId } from '../../server/db/ids.ts';
import type { Db } from '../../server/db/index.ts';
import { migrate, migrationFiles, openDatabase } from '../../server/db/index.ts';

const MIGRATIONS = path.join(import.meta.dirname, '../../server/db/migrations');
import { makeCommunity, makeKey, makeUser } from './support/factory.ts';
import { adminQuery, onPostgres, openTestDatabase, startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let db: Db;
const communities: Array<{ id: string; tag: string; pk: string; admin: string }> = [];

/** A small deterministic PRNG (mulberry32): a failure replays the same sequence. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  s = await startTestServer({ env: { SVC_READ_CACHE_MS: '0' } });
  db = s.database.db;
  for (const tag of ['alpha', 'beta']) {
    const c = await makeCommunity(db, tag, { visibility: tag === 'beta' ? 'MEMBERS_ONLY' : 'PUBLIC' });
    await db
      .updateTable('communities')
      .set({ features: JSON.stringify(['atlas', 'marketplace']) })
      .where('id', '=', c.id)
      .execute();
    communities.push({ ...c, admin: await makeKey(db, c.id, ['ADMIN']) });
  }
});

afterAll(async () => {
  await s?.close();
});

const HOUR = 3600_000;
const VISIBILITIES = ['PUBLIC', 'MEMBERS_ONLY', null] as const;

describe('trigger-kept list counts', () => {
  it('equal COUNT(*) after every step of a long mixed sequence of writes', async () => {
    const rand = prng(21);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const start = Date.now();
    /** Start dates around now (today's split matters), never within 10 minutes of it, and far ones. */
    const when = () => {
      const r = rand();
      const offset =
        r < 0.6 ? (10 * 60_000 + rand() * 30 * HOUR) * (rand() < 0.5 ? -1 : 1) : (rand() - 0.5) * 6 * 365 * 24 * HOUR;
      return new Date(start + offset).toISOString();
    };
    const someIds = async (table: 'events' | 'memberships' | 'products' | 'atlas_hotspots' | 'donations', n: number) =>
      (await db.selectFrom(table).select('id').execute())
        .map((r) => r.id)
        .sort(() => rand() - 0.5)
        .slice(0, n);
    const articleIds: Array<{ community: (typeof communities)[number]; id: string }> = [];
    const categories = new Map<string, string[]>();
    for (const c of communities) {
      const ids = [newId(), newId(), newId()];
      await db
        .insertInto('atlas_categories')
        .values(
          ids.map((id, i) => ({ id, community_id: c.id, name: `Cat ${i}`, icon: null, color: null, sort_order: i })),
        )
        .execute();
      categories.set(c.id, ids);
    }
    let seq = 0;
    const stamp = new Date(start).toISOString();

    const steps: Array<() => Promise<void>> = [
      // Events: single and multi-row inserts, as an import or a bulk loader writes them.
      async () => {
        const c = pick(communities);
        const n = 1 + Math.floor(rand() * 4);
        await db
          .insertInto('events')
          .values(
            Array.from({ length: n }, () => {
              const id = newId();
              return {
                id,
                community_id: c.id,
                slug: `e-${++seq}`,
                name: 'E',
                description: null,
                start_date: when(),
                end_date: null,
                location: null,
                banner_url: null,
                format: 'online' as const,
                featured: null,
                visibility: pick(VISIBILITIES),
                donation_config: null,
                created_at: stamp,
                updated_at: stamp,
              };
            }),
          )
          .execute();
      },
      async () => {
        for (const id of await someIds('events', 1)) {
          await db
            .updateTable('events')
            .set({ visibility: pick(VISIBILITIES) })
            .where('id', '=', id)
            .execute();
        }
      },
      async () => {
        for (const id of await someIds('events', 1)) {
          await db.updateTable('events').set({ start_date: when() }).where('id', '=', id).execute();
        }
      },
      // Featured: at most one per community, so the old one is cleared first.
      async () => {
        for (const id of await someIds('events', 1)) {
          const row = await db
            .selectFrom('events')
            .select('community_id')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          await db.updateTable('events').set({ featured: null }).where('community_id', '=', row.community_id).execute();
          await db.updateTable('events').set({ featured: 1 }).where('id', '=', id).execute();
        }
      },
      async () => {
        const ids = await someIds('events', 1 + Math.floor(rand() * 2));
        if (ids.length) await db.deleteFrom('events').where('id', 'in', ids).execute();
      },
      // One statement moving many rows between counters at once.
      async () => {
        const ids = await someIds('events', 5);
        if (ids.length) {
          await db
            .updateTable('events')
            .set({ visibility: pick(VISIBILITIES), start_date: when() })
            .where('id', 'in', ids)
            .execute();
        }
      },
      // Articles through the API: create, publish, unpublish, PATCH the status.
      async () => {
        const c = pick(communities);
        const r = await s.request(`/v1/communities/${c.tag}/articles`, {
          method: 'POST',
          key: c.admin,
          json: { title: `Post ${++seq}`, bannerUrl: 'https://img.example/b.png' },
        });
        expect(r.status).toBe(201);
        articleIds.push({ community: c, id: r.body.id });
      },
      async () => {
        if (!articleIds.length) return;
        const a = pick(articleIds);
        const action = pick(['publish', 'unpublish', 'patch-published', 'patch-draft']);
        const r = action.startsWith('patch')
          ? await s.request(`/v1/communities/${a.community.tag}/articles/${a.id}`, {
              method: 'PATCH',
              key: a.community.admin,
              json: { status: action === 'patch-published' ? 'PUBLISHED' : 'DRAFT' },
            })
          : await s.request(`/v1/communities/${a.community.tag}/articles/${a.id}/${action}`, {
              method: 'POST',
              key: a.community.admin,
            });
        expect(r.status, action).toBe(200);
      },
      // Memberships: join, status changes, leave.
      async () => {
        const c = pick(communities);
        const u = await makeUser(db, `u${++seq}`);
        await db
          .insertInto('memberships')
          .values({
            id: newId(),
            community_id: c.id,
            user_id: u.id,
            status: pick(['PENDING', 'ACCEPTED'] as const),
            role: 'member',
            segment_id: null,
            created_at: stamp,
            accepted_at: null,
          })
          .execute();
      },
      async () => {
        for (const id of await someIds('memberships', 2)) {
          await db
            .updateTable('memberships')
            .set({ status: pick(['PENDING', 'ACCEPTED', 'BANNED', 'REJECTED'] as const) })
            .where('id', '=', id)
            .execute();
        }
      },
      async () => {
        const ids = await someIds('memberships', 1);
        if (ids.length) await db.deleteFrom('memberships').where('id', 'in', ids).execute();
      },
      // Products and hotspots.
      async () => {
        const c = pick(communities);
        await db
          .insertInto('products')
          .values({
            id: newId(),
            community_id: c.id,
            sku: `sku-${++seq}`,
            name: 'P',
            description: null,
            price_cents: 100,
            currency: 'USD',
            image_url: null,
            is_active: pick([0, 1]),
            seller_id: null,
            donation_config: null,
            created_at: stamp,
            updated_at: stamp,
          })
          .execute();
      },
      async () => {
        for (const id of await someIds('products', 2)) {
          await db
            .updateTable('products')
            .set({ is_active: pick([0, 1]) })
            .where('id', '=', id)
            .execute();
        }
        const gone = await someIds('products', rand() < 0.3 ? 1 : 0);
        if (gone.length) await db.deleteFrom('products').where('id', 'in', gone).execute();
      },
      async () => {
        const c = pick(communities);
        await db
          .insertInto('atlas_hotspots')
          .values({
            id: newId(),
            community_id: c.id,
            category_id: pick(categories.get(c.id)!),
            name: `H${++seq}`,
            description: null,
            latitude: rand() * 100 - 50,
            longitude: rand() * 300 - 150,
            image_url: null,
            created_at: stamp,
          })
          .execute();
      },
      async () => {
        for (const id of await someIds('atlas_hotspots', 1)) {
          const row = await db
            .selectFrom('atlas_hotspots')
            .select('community_id')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          await db
            .updateTable('atlas_hotspots')
            .set({ category_id: pick(categories.get(row.community_id)!) })
            .where('id', '=', id)
            .execute();
        }
        const gone = await someIds('atlas_hotspots', rand() < 0.3 ? 1 : 0);
        if (gone.length) await db.deleteFrom('atlas_hotspots').where('id', 'in', gone).execute();
      },
      // Donations: received, refunded, (un)refunded by a correction, amount corrected, deleted.
      async () => {
        const c = pick(communities);
        const checkout = newId();
        await db
          .insertInto('checkout_sessions')
          .values({
            id: checkout,
            community_id: c.id,
            gateway: 'local',
            processor_session_id: null,
            checkout_url: null,
            purpose_kind: 'donation',
            purpose: '{}',
            line_items: '[]',
            currency: 'USD',
            amount_total: 500,
            customer_email: null,
            success_url: 'https://x.test/',
            cancel_url: 'https://x.test/',
            status: 'COMPLETED',
            expires_at: stamp,
            created_at: stamp,
            closed_at: null,
            transaction_id: null,
          } as never)
          .execute();
        await db
          .insertInto('donations')
          .values({
            id: newId(),
            community_id: c.id,
            target_type: pick(['EVENT', 'PRODUCT'] as const),
            target_id: pick(['t1', 't2']),
            checkout_session_id: checkout,
            transaction_id: 'tx',
            amount: 100 + Math.floor(rand() * 900),
            currency: 'USD',
            sidecar: 0,
            donor_email: null,
            donor_user_id: null,
            received_at: stamp,
            refunded_at: null,
          })
          .execute();
      },
      async () => {
        for (const id of await someIds('donations', 2)) {
          const r = rand();
          await db
            .updateTable('donations')
            .set(
              r < 0.5
                ? { refunded_at: stamp }
                : r < 0.7
                  ? { refunded_at: null }
                  : { amount: 1 + Math.floor(rand() * 999) },
            )
            .where('id', '=', id)
            .execute();
        }
        const gone = await someIds('donations', rand() < 0.2 ? 1 : 0);
        if (gone.length) await db.deleteFrom('donations').where('id', 'in', gone).execute();
      },
    ];

    for (let i = 1; i <= 400; i++) {
      await pick(steps)();
      if (i % 40 !== 0) continue;
      expect(await recountLists(db), `after step ${i}`).toEqual([]);
      // What readers see: the API's totals against COUNT(*) of the same rows.
      const alpha = communities[0];
      const now = new Date().toISOString();
      for (const [filter, where] of [
        ['', sql<boolean>`1 = 1`],
        ['&upcoming=true', sql<boolean>`start_date >= ${now}`],
        ['&past=true', sql<boolean>`start_date < ${now}`],
      ] as const) {
        const r = await s.request(`/v1/communities/alpha/events?limit=5${filter}`, { key: alpha.pk });
        const row = await db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('community_id', '=', alpha.id)
          .where((eb) => eb.or([eb('visibility', '=', 'PUBLIC'), eb('visibility', 'is', null)]))
          .where(where)
          .executeTakeFirstOrThrow();
        expect(Number(r.headers.get('X-Total-Count')), `events${filter} after step ${i}`).toBe(Number(row.n));
      }
    }
    // The sequence did exercise every counter.
    const counted = await db.selectFrom('list_counts').select('list').distinct().execute();
    expect(counted.map((r) => r.list).sort()).toEqual([
      'articles',
      'hotspots',
      'hotspots_by_category',
      'members',
      'products',
    ]);
  }, 120_000);

  it('split before and after now exactly, whatever the start_date text (cut short by a raw writer, this hour, the next)', async () => {
    const c = await makeCommunity(db, 'edges');
    const now = new Date();
    const iso = (ms: number) => new Date(now.getTime() + ms).toISOString();
    // Around now: this hour, the previous and next hours (the next day at 23:xx), and strings a
    // bulk loader might write cut at each grain.
    const starts = [-2, -1, 0, 1, 2].flatMap((h) => [iso(h * HOUR - 60_000), iso(h * HOUR + 60_000)]);
    for (const len of [4, 7, 10, 11, 13, 16])
      starts.push(iso(0).slice(0, len), iso(-HOUR).slice(0, len), iso(HOUR).slice(0, len));
    starts.push(iso(400 * 24 * HOUR), iso(-400 * 24 * HOUR), iso(40 * 24 * HOUR), iso(-40 * 24 * HOUR));
    const stamp = now.toISOString();
    await db
      .insertInto('events')
      .values(
        starts.map((start_date, i) => ({
          id: newId(),
          community_id: c.id,
          slug: `edge-${i}`,
          name: 'Edge',
          start_date,
          format: 'online' as const,
          visibility: VISIBILITIES[i % 3],
          created_at: stamp,
          updated_at: stamp,
        })) as never,
      )
      .execute();
    const member = { communityId: c.id, inherited: 'PUBLIC' as const, member: true };
    const count = async (where: string) =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from events where community_id = ${c.id} and ${sql.raw(where)}`.execute(db)
        ).rows[0].n,
      );
    const at = now.toISOString();
    expect(await countEvents(db, member, { now })).toBe(starts.length);
    expect(await countEvents(db, member, { now, upcoming: true })).toBe(await count(`start_date >= '${at}'`));
    expect(await countEvents(db, member, { now, past: true })).toBe(await count(`start_date < '${at}'`));
    const outsider = { communityId: c.id, inherited: 'MEMBERS_ONLY' as const };
    expect(await countEvents(db, outsider, { now, past: true })).toBe(
      await count(`start_date < '${at}' and visibility = 'PUBLIC'`),
    );
  });

  it('the recount finds a counter that drifted, and repairs it', async () => {
    const alpha = communities[0];
    await db
      .insertInto('list_counts')
      .values({ community_id: alpha.id, list: 'products', key: '', n: 0 })
      .onConflict((oc) =>
        oc.columns(['community_id', 'list', 'key']).doUpdateSet((eb) => ({ n: eb('list_counts.n', '+', 7) })),
      )
      .execute();
    const drift = await recountLists(db);
    expect(drift).toHaveLength(1);
    expect(drift[0]).toMatchObject({ table: 'list_counts' });
    expect(await recountLists(db, { repair: true })).toHaveLength(1);
    expect(await recountLists(db)).toEqual([]);
  });
});

/** Takes a migrated test database back to just before 0029, with the app's own migration files. */
async function backTo0028(tdb: Db): Promise<void> {
  const postgres = tdb.getExecutor().adapter instanceof PostgresAdapter;
  const migrator = new Migrator({
    db: tdb,
    // The app's own migration files, loaded as the app loads them (by file name).
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          await Promise.all(
            migrationFiles().map(async (f) => [
              f.replace(/\.ts$/, ''),
              (await import(path.join(MIGRATIONS, f))) as Migration,
            ]),
          ),
        ),
    },
    migrationTableSchema: postgres
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(tdb)).rows[0].s
      : undefined,
  });
  const down = await migrator.migrateTo('0028_purge_indexes');
  expect(down.error).toBeUndefined();
}

describe('the recount', () => {
  // Another connection writes events without pause while the recount reads: read apart, the
  // events counted before a write and its counters read after it would differ.
  it('reads one snapshot: writes committed while it reads never show as drift', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-recount-'));
    const t = await openTestDatabase({ sqliteFile: path.join(dir, 'db.sqlite') });
    const other = openDatabase(t.target);
    try {
      const c = await makeCommunity(t.database.db, 'snapshot');
      const stamp = new Date().toISOString();
      let stop = false;
      let written = 0;
      const writer = (async () => {
        while (!stop) {
          await other.db
            .insertInto('events')
            .values({
              id: newId(),
              community_id: c.id,
              slug: `w-${++written}`,
              name: 'W',
              start_date: new Date(Date.now() + written * HOUR).toISOString(),
              format: 'online',
              visibility: 'PUBLIC',
              created_at: stamp,
              updated_at: stamp,
            } as never)
            .execute();
          // A microtask, not a macrotask: SQLite's queries resolve as microtasks, so the two interleave.
          await Promise.resolve();
        }
      })();
      try {
        for (let i = 0; i < 5 || (written < 50 && i < 500); i++) {
          expect(await recountLists(t.database.db), `recount ${i}`).toEqual([]);
        }
      } finally {
        stop = true;
        await writer;
      }
      expect(written).toBeGreaterThanOrEqual(50);
    } finally {
      await other.close();
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('migration 0029', () => {
  it('counts the rows that were there before it', async () => {
    const t = await openTestDatabase();
    try {
      const tdb = t.database.db;
      await backTo0028(tdb);
      const c = await makeCommunity(tdb, 'before');
      const stamp = new Date().toISOString();
      await tdb
        .insertInto('events')
        .values(
          [null, 'PUBLIC', 'MEMBERS_ONLY', 'PUBLIC'].map((visibility, i) => ({
            id: newId(),
            community_id: c.id,
            slug: `old-${i}`,
            name: 'Old',
            start_date: `202${i}-0${i + 1}-1${i}T10:00:00.000Z`,
            format: 'online' as const,
            visibility: visibility as 'PUBLIC' | 'MEMBERS_ONLY' | null,
            created_at: stamp,
            updated_at: stamp,
          })) as never,
        )
        .execute();
      await migrate(tdb);
      expect(await recountLists(tdb)).toEqual([]);
      const years = await tdb
        .selectFrom('event_counts')
        .select((eb) => eb.fn.sum<number>('n').as('n'))
        .where('community_id', '=', c.id)
        .where('bucket', 'like', 'Y%')
        .executeTakeFirstOrThrow();
      expect(Number(years.n)).toBe(4);
    } finally {
      await t.close();
    }
  });

  // An old process may be writing while the new one migrates. Its event, inserted before the
  // triggers exist and committed after the fill read the table, must still be counted: the
  // migration waits for it (SHARE ROW EXCLUSIVE) before filling, not only before CREATE TRIGGER.
  it.skipIf(!onPostgres)(
    'counts a write that was in flight while it ran (PostgreSQL)',
    async () => {
      const t = await openTestDatabase();
      const other = openDatabase(t.target);
      try {
        const tdb = t.database.db;
        await backTo0028(tdb);
        const c = await makeCommunity(tdb, 'inflight');
        const stamp = new Date().toISOString();
        let commit!: () => void;
        const release = new Promise<void>((r) => (commit = r));
        let inserted!: () => void;
        const wrote = new Promise<void>((r) => (inserted = r));
        const writer = other.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('events')
            .values({
              id: newId(),
              community_id: c.id,
              slug: 'in-flight',
              name: 'In flight',
              start_date: '2026-05-01T10:00:00.000Z',
              format: 'online',
              visibility: 'PUBLIC',
              created_at: stamp,
              updated_at: stamp,
            } as never)
            .execute();
          inserted();
          await release;
        });
        await wrote;
        const migrating = migrate(tdb);
        // Long enough for the migration to reach (and read) the events table; it must wait there.
        await new Promise((r) => setTimeout(r, 1_000));
        commit();
        await writer;
        await migrating;
        expect(await recountLists(tdb)).toEqual([]);
        expect(
          await countEvents(tdb, { communityId: c.id, inherited: 'PUBLIC', member: true }, { now: new Date() }),
        ).toBe(1);
      } finally {
        await other.close();
        await t.close();
      }
    },
    60_000,
  );
});

// The bucket ranges end in `~`, which sorts after digits only in byte order; a database made with a
// linguistic collation (the default on many hosts: en_US) must count the same. ICU's en-US puts
// `~` before the digits, so a bucket column in the database's collation would match no year.
describe.skipIf(!onPostgres)('event counts on a database with a linguistic collation', () => {
  it('X-Total-Count, upcoming and past equal COUNT(*)', async () => {
    const name = `svc_collation_${crypto.randomBytes(6).toString('hex')}`;
    await adminQuery(
      `create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`,
    );
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    let server: TestServer | undefined;
    try {
      server = await startTestServer({ postgresUrl: url.toString(), env: { SVC_READ_CACHE_MS: '0' } });
      const cdb = server.database.db;
      // The premise: this database really does not compare in byte order.
      const order = await sql<{ byte: boolean; db: boolean }>`
        select ('Y~' > 'Y2026') as db, ('Y~' collate "C" > 'Y2026' collate "C") as byte`.execute(cdb);
      expect(order.rows[0]).toEqual({ db: false, byte: true });

      const c = await makeCommunity(cdb, 'icu');
      const pk = c.pk;
      const now = Date.now();
      const stamp = new Date(now).toISOString();
      // Around now (this hour, today, this month, this year) and years away, every visibility.
      const offsets = [-3 * 365 * 24, -40 * 24, -30, -2, -0.5, 0.5, 2, 30, 40 * 24, 3 * 365 * 24];
      await cdb
        .insertInto('events')
        .values(
          offsets.flatMap((h, i) =>
            VISIBILITIES.map((visibility, j) => ({
              id: newId(),
              community_id: c.id,
              slug: `icu-${i}-${j}`,
              name: 'E',
              start_date: new Date(now + h * HOUR).toISOString(),
              format: 'online' as const,
              visibility,
              created_at: stamp,
              updated_at: stamp,
            })),
          ) as never,
        )
        .execute();
      const at = new Date().toISOString();
      for (const [filter, where] of [
        ['', sql<boolean>`1 = 1`],
        ['&upcoming=true', sql<boolean>`start_date >= ${at}`],
        ['&past=true', sql<boolean>`start_date < ${at}`],
      ] as const) {
        const r = await server.request(`/v1/communities/icu/events?limit=5${filter}`, { key: pk });
        expect(r.status).toBe(200);
        const row = await cdb
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('community_id', '=', c.id)
          .where((eb) => eb.or([eb('visibility', '=', 'PUBLIC'), eb('visibility', 'is', null)]))
          .where(where)
          .executeTakeFirstOrThrow();
        expect(Number(row.n)).toBeGreaterThan(0);
        expect(Number(r.headers.get('X-Total-Count')), `events${filter}`).toBe(Number(row.n));
      }
    } finally {
      await server?.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  }, 60_000);
});
