// The admin command line as a user runs it: `node bin/svc.js ...` as a child process, against a
// temporary SQLite directory, or against DATABASE_URL (PostgreSQL) when it is set, where
// community tags, usertags and domains carry a per-run suffix so runs never collide. Then the
// importer in-process: conflicts with what the database holds, stored formats, relative dates,
// and the seeded demo read back through the real API.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type Db } from '../../server/db/index.ts';
import { recountLists } from '../../server/domain/list-counts.ts';
import { newId } from '../../server/db/ids.ts';
import { hashKey } from '../../server/domain/api-keys.ts';
import { FixtureError, importFixture, type ImportResult } from '../../server/domain/import.ts';
import { sanitizeArticleHtml } from '../../server/domain/article-html.ts';
import { verifyPassword } from '../../server/domain/passwords.ts';
import { listConversations, listMessages } from '../../server/domain/conversations.ts';
import { seedDemo, seedDemoIfEmpty } from '../../server/domain/seed.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { Redis } from 'ioredis';
import { COMMUNITY_CHANGES_CHANNEL } from '../../server/http/community-changes.ts';
import { closeSharedDatabase, onPostgres, openSharedDatabase, ROOT, runSvc } from './support/cli.ts';

const RUN = crypto.randomBytes(4).toString('hex');

const svc = runSvc;

/** A fixture template from tests/fixtures with `{{run}}` replaced, written to dir. */
function fixtureFile(dir: string, name: string, run = RUN): string {
  const text = fs.readFileSync(path.join(ROOT, 'tests/fixtures', name), 'utf8').replaceAll('{{run}}', run);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Every row the import file touches, in a stable order: equal snapshots = nothing changed. */
async function snapshot(db: Db, tags: string[]): Promise<Record<string, unknown[]>> {
  const communities = await db.selectFrom('communities').selectAll().where('tag', 'in', tags).orderBy('tag').execute();
  const ids = communities.map((c) => c.id);
  const byCommunity = async (
    table:
      | 'events'
      | 'tiers'
      | 'articles'
      | 'products'
      | 'segments'
      | 'atlas_categories'
      | 'atlas_hotspots'
      | 'api_keys'
      | 'memberships',
  ) => db.selectFrom(table).selectAll().where('community_id', 'in', ids).orderBy('id').execute();
  const members = await byCommunity('memberships');
  return {
    communities,
    domains: await db
      .selectFrom('community_domains')
      .selectAll()
      .where('community_id', 'in', ids)
      .orderBy('hostname')
      .execute(),
    users: await db
      .selectFrom('users')
      .selectAll()
      .where(
        'id',
        'in',
        members.map((m) => m.user_id),
      )
      .orderBy('id')
      .execute(),
    memberships: members,
    events: await byCommunity('events'),
    tiers: await byCommunity('tiers'),
    tierForms: await db
      .selectFrom('tier_forms')
      .innerJoin('tiers', 'tiers.id', 'tier_forms.tier_id')
      .selectAll('tier_forms')
      .where('tiers.community_id', 'in', ids)
      .orderBy('tier_id')
      .execute(),
    articles: await byCommunity('articles'),
    products: await byCommunity('products'),
    segments: await byCommunity('segments'),
    segmentForms: await db
      .selectFrom('segment_forms')
      .innerJoin('segments', 'segments.id', 'segment_forms.segment_id')
      .selectAll('segment_forms')
      .where('segments.community_id', 'in', ids)
      .orderBy('segment_id')
      .execute(),
    atlasCategories: await byCommunity('atlas_categories'),
    atlasHotspots: await byCommunity('atlas_hotspots'),
    apiKeys: await byCommunity('api_keys'),
  };
}

const allCreated = (r: ImportResult) => r.communities.flatMap((c) => Object.values(c.counts).map((n) => n.created));

describe('svc command line', { timeout: 60_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
  // Without DATABASE_URL the CLI uses SQLite under SVC_DATA_DIR; with it, PostgreSQL.
  const env: Record<string, string> = { SVC_DATA_DIR: path.join(tmp, 'data') };
  // On PostgreSQL the CLI works in a schema of its own, named in the URL, as an operator could.
  const schema = `cli_${RUN}`;
  if (onPostgres) {
    const url = new URL(process.env.DATABASE_URL as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env.DATABASE_URL = url.toString();
  }
  const tagA = `cli-a-${RUN}`;
  const tagB = `cli-b-${RUN}`;
  let database: DatabaseHandle;
  let file: string;
  let first: ImportResult;

  beforeAll(async () => {
    file = fixtureFile(tmp, 'cli-import.json');
    database = await openSharedDatabase(schema, env.SVC_DATA_DIR);
  });

  afterAll(async () => {
    await closeSharedDatabase(database, schema);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('--help works for every command', async () => {
    const commands = [[], ['import'], ['seed'], ['key'], ['key', 'create'], ['key', 'list'], ['key', 'revoke']];
    const runs = await Promise.all(commands.map((c) => svc([...c, '--help'], env)));
    runs.forEach((r, i) => {
      expect(r.code, commands[i].join(' ')).toBe(0);
      expect(r.stdout).toContain(`Usage: svc${commands[i].length ? ` ${commands[i].join(' ')}` : ''}`);
    });
    expect(runs[1].stdout).toContain('--json');
    // A command's module loads only when it runs (server/cli/index.ts); help still lists them all.
    for (const group of ['broadcasts', 'community', 'import', 'key', 'mail', 'payments', 'seed', 'sms', 'webhook'])
      expect(runs[0].stdout, group).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    expect(runs[4].stdout).toMatch(/--community <tag>[\s\S]*--scopes <list>[\s\S]*--name <name>/);
    // The CLI is the operator's; its help says where leaders do the same themselves.
    expect(runs[0].stdout).toContain('leader console at https://<community site>/admin');
    expect(runs[3].stdout).toContain('https://<community site>/admin/integrations');
  });

  it('import --json creates everything and prints the publishable and secret keys', async () => {
    const r = await svc(['import', file, '--json'], env);
    expect(r.stderr).toContain('shown only once');
    expect(r.code).toBe(0);
    first = JSON.parse(r.stdout) as ImportResult;
    expect(first.communities.map((c) => c.tag)).toEqual([tagA, tagB]);
    expect(first.unchanged).toBe(0);
    const [a, b] = first.communities;
    expect(a.counts).toMatchObject({
      communities: { created: 1 },
      domains: { created: 1 },
      users: { created: 3 },
      memberships: { created: 3 },
      events: { created: 3 },
      tiers: { created: 3 },
      articles: { created: 2 },
      products: { created: 2 },
      segments: { created: 2 },
      atlasCategories: { created: 1 },
      atlasHotspots: { created: 1 },
      apiKeys: { created: 2 },
    });
    // Ana is a user of the file already created under A: B's founder membership is new, the user is not.
    expect(b.counts).toMatchObject({
      users: { created: 0, unchanged: 0 },
      memberships: { created: 2 },
      events: { created: 1 },
    });
    for (const c of first.communities) {
      expect(c.publishableKey).toMatch(/^pk_live_/);
      for (const k of c.secretKeys) expect(k.key).toMatch(/^sk_live_/);
    }
    expect(a.secretKeys.map((k) => [k.name, k.scopes])).toEqual([
      ['admin', ['ADMIN']],
      ['sales', ['READ_PUBLIC', 'WRITE_SALES']],
    ]);
  });

  it('stores secret keys only as hashes', async () => {
    const secrets = first.communities.flatMap((c) => c.secretKeys.map((k) => k.key as string));
    const rows = await database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', 'in', secrets.map(hashKey))
      .execute();
    expect(rows).toHaveLength(secrets.length);
    for (const row of rows) {
      expect(row.kind).toBe('secret');
      for (const value of Object.values(row)) expect(secrets).not.toContain(value);
      expect(secrets.some((s) => s.startsWith(row.key_prefix))).toBe(true);
    }
  });

  it('importing the same file again changes nothing', async () => {
    const before = await snapshot(database.db, [tagA, tagB]);
    const text = await svc(['import', file], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/0 created, \d+ unchanged/);
    expect(text.stdout).not.toMatch(/sk_live_[A-Za-z0-9_-]{20,}/);
    const again = await svc(['import', file, '--json'], env);
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout) as ImportResult;
    expect(second.created).toBe(0);
    expect(allCreated(second).every((n) => n === 0)).toBe(true);
    expect(second.unchanged).toBe(first.created);
    expect(second.communities.map((c) => c.publishableKey)).toEqual(first.communities.map((c) => c.publishableKey));
    // Secrets are shown once: the existing keys come back without them.
    for (const [ci, c] of second.communities.entries()) {
      expect(c.secretKeys.map((k) => ({ id: k.id, key: k.key }))).toEqual(
        first.communities[ci].secretKeys.map((k) => ({ id: k.id, key: null })),
      );
    }
    expect(await snapshot(database.db, [tagA, tagB])).toEqual(before);
  });

  it('key list shows prefixes, never secrets', async () => {
    const secrets = first.communities.flatMap((c) => c.secretKeys.map((k) => k.key as string));
    const json = await svc(['key', 'list', '--community', tagA, '--json'], env);
    expect(json.code).toBe(0);
    const keys = JSON.parse(json.stdout) as {
      id: string;
      kind: string;
      prefix: string;
      name: string | null;
      communityTag: string;
    }[];
    expect(keys.map((k) => [k.kind, k.name]).sort()).toEqual([
      ['publishable', 'Publishable key'],
      ['secret', 'admin'],
      ['secret', 'sales'],
    ]);
    expect(keys.every((k) => k.communityTag === tagA && k.prefix.length <= 14)).toBe(true);
    const text = await svc(['key', 'list'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(first.communities[0].secretKeys[0].id);
    for (const out of [json.stdout, text.stdout]) {
      for (const s of secrets) expect(out).not.toContain(s);
      expect(out).not.toContain(first.communities[0].publishableKey);
    }
    const unknown = await svc(['key', 'list', '--community', `nope-${RUN}`], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not found');
  });

  it('key create prints the secret once and stores its hash', async () => {
    const r = await svc(
      ['key', 'create', '--community', tagB, '--scopes', 'write_sales, READ_PUBLIC', '--name', 'ci', '--json'],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('shown only once');
    const created = JSON.parse(r.stdout) as {
      id: string;
      key: string;
      scopes: string[];
      name: string;
      communityTag: string;
    };
    expect(created).toMatchObject({ communityTag: tagB, name: 'ci', scopes: ['WRITE_SALES', 'READ_PUBLIC'] });
    expect(created.key).toMatch(/^sk_live_/);
    const row = await database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashKey(created.key));
    expect(Object.values(row)).not.toContain(created.key);

    const text = await svc(['key', 'create', '--community', tagB, '--scopes', 'ADMIN'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/key:\s+sk_live_\S+/);

    for (const [args, message] of [
      [['--community', tagB, '--scopes', 'ADMIN,ROOT'], 'unknown scope ROOT'],
      [['--community', `nope-${RUN}`, '--scopes', 'ADMIN'], 'not found'],
      [['--community', tagB], "required option '--scopes <list>'"],
    ] as const) {
      const bad = await svc(['key', 'create', ...args], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(message);
      expect(bad.stdout).toBe('');
    }
  });

  it('key revoke revokes once, then is a no-op; a re-import then creates a fresh key of that name', async () => {
    const admin = first.communities[1].secretKeys[0];
    const r = await svc(['key', 'revoke', admin.id, '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      id: admin.id,
      communityTag: tagB,
      alreadyRevoked: false,
      revokedAt: expect.any(String),
    });
    const row = await database.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', admin.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();

    const again = await svc(['key', 'revoke', admin.id], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already revoked');

    const pk = await svc(['key', 'list', '--community', tagB, '--json'], env);
    const pkId = (JSON.parse(pk.stdout) as { id: string; kind: string }[]).find((k) => k.kind === 'publishable')
      ?.id as string;
    const refused = await svc(['key', 'revoke', pkId], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('publishable keys cannot be revoked');
    const missing = await svc(['key', 'revoke', 'no-such-id'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no API key with id no-such-id');

    const reimport = await svc(['import', file, '--json'], env);
    const result = JSON.parse(reimport.stdout) as ImportResult;
    expect(result.created).toBe(1);
    expect(result.communities[1].counts.apiKeys).toEqual({ created: 1, unchanged: 0 });
    expect(result.communities[1].secretKeys[0]).toMatchObject({
      name: 'admin',
      key: expect.stringMatching(/^sk_live_/),
    });
  });

  it.runIf(Boolean(process.env.REDIS_URL))(
    "key revoke with REDIS_URL tells the servers, which forget the community's cached keys at once",
    async () => {
      const created = JSON.parse(
        (await svc(['key', 'create', '--community', tagB, '--scopes', 'READ_PUBLIC', '--json'], env)).stdout,
      ) as { id: string };
      const { id: communityId } = await database.db
        .selectFrom('communities')
        .select('id')
        .where('tag', '=', tagB)
        .executeTakeFirstOrThrow();
      const redis = new Redis(process.env.REDIS_URL!);
      const heard: unknown[] = [];
      try {
        await redis.subscribe(COMMUNITY_CHANGES_CHANNEL);
        redis.on('message', (_channel: string, text: string) => heard.push(JSON.parse(text)));
        const r = await svc(['key', 'revoke', created.id], env);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toContain('Redis could not be reached');
        const deadline = Date.now() + 2000;
        const mine = () => heard.filter((m) => (m as { communityId?: string }).communityId === communityId);
        while (mine().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(mine()).toEqual([{ communityId, from: 'cli' }]);
        // Revoking it again changes nothing, so it announces nothing.
        await svc(['key', 'revoke', created.id], env);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(mine()).toHaveLength(1);
      } finally {
        redis.disconnect();
      }
    },
  );

  it('an invalid file exits 1 with the JSON paths on stderr, no stack trace, and writes nothing', async () => {
    const bad = fixtureFile(tmp, 'cli-invalid.json');
    const r = await svc(['import', bad], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`invalid fixture ${bad}`);
    expect(r.stderr).toContain('communities[0].events[0].tiers[0].priceCents:');
    expect(r.stderr).toContain('communities[0].events[0].tiers[0].colour: unknown field');
    expect(r.stderr).toContain('communities[0].events[1].startDate:');
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const notJson = path.join(tmp, 'broken.json');
    fs.writeFileSync(notJson, '{"communities": [');
    const r2 = await svc(['import', notJson], env);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('not valid JSON');
    const r3 = await svc(['import', path.join(tmp, 'missing.json')], env);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain('no such file');
  });

  it('a file that conflicts with the database exits 1 and rolls back whole', async () => {
    const run = `${RUN}x`;
    const conflicting = fixtureFile(tmp, 'cli-import.json', run);
    const doc = JSON.parse(fs.readFileSync(conflicting, 'utf8'));
    doc.communities[1].founder = `ghost-${run}`;
    fs.writeFileSync(conflicting, JSON.stringify(doc));
    const r = await svc(['import', conflicting], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`communities[1].founder: no user "ghost-${run}" in this file or the database`);
    // Community A was valid, but the import is all or nothing.
    const rows = await database.db.selectFrom('communities').select('id').where('tag', '=', `cli-a-${run}`).execute();
    expect(rows).toHaveLength(0);
  });

  it('usage errors and unknown commands exit 1', async () => {
    const r = await svc(['frobnicate'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    const r2 = await svc(['import'], env);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain("missing required argument 'file'");
  });

  it('seed imports the demo fixture and is idempotent', async () => {
    const r = await svc(['seed', '--json'], env);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as ImportResult;
    expect(result.communities.map((c) => c.tag)).toEqual(['demo', 'other']);
    expect(result.communities[0].publishableKey).toMatch(/^pk_live_/);
    const again = await svc(['seed'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/: 0 created, \d+ unchanged/);
    expect(again.stdout).toContain('"demo-admin" (ADMIN): exists as sk_live_');
  });

  it('maintenance recount finds counters that writes past the triggers left wrong, and --repair rewrites them', async () => {
    const exact = await svc(['maintenance', 'recount'], env);
    expect(exact.stderr).toBe('');
    expect(exact.code).toBe(0);
    expect(exact.stdout.trim()).toBe('every count is exact');

    // What a restore that skips triggers leaves: a counter off, and a community's event counters gone.
    const a = await database.db
      .selectFrom('communities')
      .select('id')
      .where('tag', '=', tagA)
      .executeTakeFirstOrThrow();
    const products = async () =>
      Number(
        (
          await database.db
            .selectFrom('products')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('community_id', '=', a.id)
            .where('is_active', '=', 1)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const active = await products();
    expect(active).toBeGreaterThan(0);
    await database.db
      .updateTable('list_counts')
      .set((eb) => ({ n: eb('n', '+', 5) }))
      .where('community_id', '=', a.id)
      .where('list', '=', 'products')
      .execute();
    const eventCounters = await database.db
      .deleteFrom('event_counts')
      .where('community_id', '=', a.id)
      .executeTakeFirst();
    expect(Number(eventCounters.numDeletedRows)).toBeGreaterThan(0);

    const found = await svc(['maintenance', 'recount', '--json'], env);
    expect(found.code).toBe(1);
    expect(found.stderr).toMatch(/counters are off; `svc maintenance recount --repair` rewrites them/);
    const report = JSON.parse(found.stdout) as {
      drift: { table: string; community: string; counter: string; stored: string; actual: string }[];
      repaired: boolean;
    };
    expect(report.repaired).toBe(false);
    expect(report.drift).toContainEqual({
      table: 'list_counts',
      community: tagA,
      counter: 'products',
      stored: String(active + 5),
      actual: String(active),
    });
    const events = report.drift.filter((d) => d.table === 'event_counts');
    expect(events.length).toBe(Number(eventCounters.numDeletedRows));
    expect(events.every((d) => d.community === tagA && d.stored === '0' && Number(d.actual) > 0)).toBe(true);
    expect(report.drift).toHaveLength(events.length + 1);

    const repaired = await svc(['maintenance', 'recount', '--repair'], env);
    expect(repaired.stderr).toBe('');
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(
      new RegExp(`^list_counts\\s+${tagA}\\s+products\\s+${active + 5}\\s+${active}$`, 'm'),
    );
    expect(repaired.stdout).toContain(`${report.drift.length} counters repaired`);
    const after = await database.db
      .selectFrom('list_counts')
      .select('n')
      .where('community_id', '=', a.id)
      .where('list', '=', 'products')
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(active);
    expect((await svc(['maintenance', 'recount'], env)).stdout.trim()).toBe('every count is exact');
  });
});

describe('importFixture in process', () => {
  let server: TestServer;
  let db: Db;
  const template = fs.readFileSync(path.join(ROOT, 'tests/fixtures/cli-import.json'), 'utf8');
  /** The CLI test fixture as an object; the database is a fresh one, so any suffix will do. */
  const fixture = (run: string) => JSON.parse(template.replaceAll('{{run}}', run));

  beforeAll(async () => {
    server = await startTestServer();
    db = server.database.db;
  });
  afterAll(async () => {
    await server?.close();
  });

  async function expectIssues(input: unknown, expected: { path: string; message: unknown }[]) {
    const err = await importFixture(db, input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).issues).toEqual(expected);
  }

  it('seeds the demo only into an empty database, and the API serves it', async () => {
    const seeded = await seedDemoIfEmpty(db, { baseUrl: server.url });
    expect(seeded?.created).toBeGreaterThan(100);
    expect(await seedDemoIfEmpty(db, { baseUrl: server.url })).toBeNull();
    expect((await seedDemo(db, { baseUrl: server.url })).created).toBe(0);

    const pk = seeded?.communities[0].publishableKey as string;
    const upcoming = await server.request('/v1/communities/demo/events?upcoming=true&limit=100', { key: pk });
    expect(upcoming.status).toBe(200);
    const now = new Date().toISOString();
    expect(upcoming.body.length).toBeGreaterThanOrEqual(10);
    expect(upcoming.body.every((e: { startDate: string }) => e.startDate >= now)).toBe(true);
    const past = await server.request('/v1/communities/demo/events?past=true&limit=100', { key: pk });
    expect(past.body.length).toBeGreaterThanOrEqual(10);
    const featured = await server.request('/v1/communities/demo/events?featured=true', { key: pk });
    expect(featured.body).toHaveLength(1);
    expect(featured.body[0]).toMatchObject({ featured: true, slug: 'big-summit-day' });
    const overnight = await server.request('/v1/communities/demo/events/cascade-crest-overnight/tiers', { key: pk });
    expect(overnight.body.every((t: { hasForm: boolean }) => t.hasForm)).toBe(true);
    // The banners are paths in the file, made absolute against the platform, which serves them.
    const welcome = await server.request('/v1/communities/demo/articles/slug/welcome-to-demo-hikers', { key: pk });
    expect(welcome.body.bannerUrl).toBe(`${server.url}/demo/banners/welcome.svg`);
    const banner = await fetch(welcome.body.bannerUrl);
    expect(banner.status).toBe(200);
    expect(banner.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(banner.headers.get('content-security-policy')).toBe("default-src 'none'");
    const community = await server.request('/api/communities/by-domain/demo.localhost');
    expect(community.body).toMatchObject({
      communityTag: 'demo',
      name: 'Demo Hikers',
      visibility: 'PUBLIC',
      accessibility: 'OPEN',
    });
  });

  it("imports the demo's conversations once, in order, each unread only for the one who did not speak last", async () => {
    await seedDemoIfEmpty(db, { baseUrl: server.url });
    const idOf = async (usertag: string) =>
      (await db.selectFrom('users').select('id').where('usertag', '=', usertag).executeTakeFirstOrThrow()).id;
    const [maya, priya] = [await idOf('maya'), await idOf('priya')];
    const mine = await listConversations(db, maya, { limit: 10, offset: 0 });
    expect(mine.total).toBe(1);
    expect(mine.items[0]).toMatchObject({ kind: 'direct', unreadCount: 1 });
    expect(mine.items[0].lastMessage?.sender?.usertag).toBe('priya');
    const theirs = await listConversations(db, priya, { limit: 10, offset: 0 });
    expect(theirs.items[0]).toMatchObject({ id: mine.items[0].id, unreadCount: 0 });
    const thread = await listMessages(db, maya, mine.items[0].id, { limit: 10, offset: 0 });
    // Newest first, as the messaging API lists them.
    expect(thread?.items.map((m) => m.body.split(' ')[0])).toEqual(['Great,', 'Yes,', 'Hi']);
    // The second import finds the pair's conversation and leaves it alone.
    const again = await seedDemo(db, { baseUrl: server.url });
    expect(again.communities[0].counts.conversations).toEqual({ created: 0, unchanged: 2 });
    expect((await listConversations(db, maya, { limit: 10, offset: 0 })).total).toBe(1);
  });

  it('refuses a conversation with a non-member or a message from outside it, naming the path', async () => {
    const input = fixture('conv');
    const c = input.communities[0];
    c.conversations = [
      {
        between: [c.founder, 'nobody-here'],
        messages: [{ from: 'ben-conv', body: 'hi', at: '-1d@10:00' }],
      },
    ];
    const err = await importFixture(db, input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).issues.map((i) => i.path).sort()).toEqual([
      'communities[0].conversations[0].between[1]',
      'communities[0].conversations[0].messages[0].from',
    ]);
  });

  it('sanitizes imported article HTML exactly as the API does', async () => {
    const input = fixture('xss');
    input.communities[0].articles = [
      {
        slug: 'hostile',
        title: 'Hostile',
        status: 'DRAFT',
        content:
          '<p onclick="steal()">Hi<script>alert(1)</script><a href="javascript:alert(2)">x</a><img src="https://img.example/a.png" onerror="alert(3)"></p>',
      },
    ];
    const result = await importFixture(db, input);
    const tag = result.communities[0].tag;
    const row = await db
      .selectFrom('articles')
      .innerJoin('communities', 'communities.id', 'articles.community_id')
      .select('articles.content')
      .where('communities.tag', '=', tag)
      .where('articles.slug', '=', 'hostile')
      .executeTakeFirstOrThrow();
    expect(row.content).toBe(sanitizeArticleHtml(input.communities[0].articles[0].content));
    for (const bad of ['onclick', '<script', 'javascript:', 'onerror']) expect(row.content).not.toContain(bad);
    expect(row.content).toContain('https://img.example/a.png');
  });

  // An import writes one event per statement, each taking its year/month/day/hour counter rows
  // (migration 0029); another transaction writing events of the same community in another order
  // would deadlock with it. Here a loader holds 2030's counters, the import's first new event
  // takes 2031's, its second wants 2030's, and the loader then writes in 2031.
  it.skipIf(!onPostgres)(
    'does not deadlock with another writer of the same community’s events',
    async () => {
      const first = fixture('dl');
      await importFixture(db, first);
      const tag = first.communities[0].tag as string;
      const community = await db
        .selectFrom('communities')
        .select('id')
        .where('tag', '=', tag)
        .executeTakeFirstOrThrow();
      const at = (iso: string, slug: string) => ({ slug, name: slug, startDate: iso, format: 'online', tiers: [] });
      const second = fixture('dl');
      second.communities[0].events.push(
        at('2031-01-01T10:00:00.000Z', 'dl-2031'),
        at('2030-06-01T10:00:00.000Z', 'dl-2030'),
      );
      const other = openDatabase(server.databaseTarget);
      const stamp = new Date().toISOString();
      const row = (slug: string, start_date: string) =>
        ({
          id: newId(),
          community_id: community.id,
          slug,
          name: slug,
          start_date,
          format: 'online',
          visibility: null,
          created_at: stamp,
          updated_at: stamp,
        }) as never;
      try {
        let importing!: Promise<unknown>;
        await other.db.transaction().execute(async (trx) => {
          await trx.insertInto('events').values(row('loader-2030', '2030-06-01T09:00:00.000Z')).execute();
          // Settled either way, so a deadlock fails this test rather than going unhandled.
          importing = importFixture(db, second).catch((e: unknown) => e);
          // Long enough for the import to block on the loader (on 2030's counters, without its lock).
          await new Promise((r) => setTimeout(r, 1_000));
          await trx.insertInto('events').values(row('loader-2031', '2031-01-01T10:30:00.000Z')).execute();
        });
        const result = await importing;
        expect(result).not.toBeInstanceOf(Error);
        expect((result as ImportResult).communities[0].counts.events.created).toBe(2);
        expect(await recountLists(db)).toEqual([]);
      } finally {
        await other.close();
      }
    },
    30_000,
  );

  it('keeps existing rows when the relative dates resolve differently on a later import', async () => {
    const t0 = new Date('2025-03-01T12:00:00Z');
    const first = await importFixture(db, fixture('rel'), { now: t0 });
    const tag = first.communities[0].tag;
    const community = await db.selectFrom('communities').select('id').where('tag', '=', tag).executeTakeFirstOrThrow();
    const before = await db
      .selectFrom('events')
      .select(['slug', 'start_date', 'end_date'])
      .where('community_id', '=', community.id)
      .orderBy('slug')
      .execute();
    expect(before.find((e) => e.slug === 'next-meetup')?.start_date).toBe('2025-03-06T18:00:00.000Z');
    const later = await importFixture(db, fixture('rel'), { now: new Date('2025-03-04T08:00:00Z') });
    expect(later.created).toBe(0);
    expect(
      await db
        .selectFrom('events')
        .select(['slug', 'start_date', 'end_date'])
        .where('community_id', '=', community.id)
        .orderBy('slug')
        .execute(),
    ).toEqual(before);
  });

  it('stores the portable formats: 0/1 booleans, featured 1 or NULL, JSON text, scrypt passwords', async () => {
    const result = await importFixture(db, fixture('fmt'), { now: new Date('2025-03-01T12:00:00Z') });
    const id = result.communities[0].id;
    const c = await db.selectFrom('communities').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(c.page_settings)).toEqual([
      { pageKey: 'EVENTS', enabled: true, visibility: null },
      { pageKey: 'CHAT', enabled: false, visibility: null },
    ]);
    expect(JSON.parse(c.embed_origins)).toEqual(['https://cli-a.example.test']);
    expect(c).toMatchObject({ rules_version: 2, landing_url: 'https://cli-a.example.test/' });

    const events = await db
      .selectFrom('events')
      .select(['slug', 'featured', 'start_date', 'donation_config'])
      .where('community_id', '=', id)
      .orderBy('slug')
      .execute();
    expect(events.map((e) => [e.slug, e.featured])).toEqual([
      ['next-meetup', 1],
      ['no-tiers', null],
      ['past-meetup', null],
    ]);
    expect(events.find((e) => e.slug === 'no-tiers')?.start_date).toBe('2030-01-01T09:00:00.000Z');
    const tiers = await db
      .selectFrom('tiers')
      .leftJoin('tier_forms', 'tier_forms.tier_id', 'tiers.id')
      .select(['tiers.name', 'tiers.currency', 'tiers.capacity', 'tiers.sold', 'tiers.is_active', 'tier_forms.schema'])
      .where('tiers.community_id', '=', id)
      .orderBy('tiers.name')
      .execute();
    expect(
      tiers.map((t) => [
        t.name,
        t.currency,
        t.capacity,
        t.sold,
        t.is_active,
        t.schema ? JSON.parse(t.schema)[0].id : null,
      ]),
    ).toEqual([
      ['Free', 'USD', null, 0, 1, null],
      ['Sold out', 'USD', 2, 2, 1, null],
      ['With form', 'USD', 10, 0, 1, 'size'],
    ]);

    const users = await db
      .selectFrom('users')
      .selectAll()
      .where('usertag', 'like', '%-fmt')
      .orderBy('usertag')
      .execute();
    expect(users[0]).toMatchObject({ usertag: 'ana-fmt', email: 'ana+fmt@example.com' });
    expect(users[0].password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct horse battery', users[0].password_hash as string)).toBe(true);
    expect(await verifyPassword('wrong', users[0].password_hash as string)).toBe(false);
    expect(users[1].password_hash).toBeNull();

    const memberships = await db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select([
        'users.usertag',
        'memberships.status',
        'memberships.role',
        'memberships.segment_id',
        'memberships.created_at',
        'memberships.accepted_at',
      ])
      .where('community_id', '=', id)
      .orderBy('users.usertag')
      .execute();
    expect(memberships.map((m) => [m.usertag, m.status, m.role, m.segment_id !== null, m.accepted_at])).toEqual([
      ['ana-fmt', 'ACCEPTED', 'founder', false, '2025-03-01T12:00:00.000Z'],
      ['ben-fmt', 'ACCEPTED', 'admin', true, '2025-02-19T12:00:00.000Z'],
      ['cy-fmt', 'PENDING', 'member', false, null],
    ]);

    const articles = await db
      .selectFrom('articles')
      .select(['slug', 'status', 'published_at', 'excerpt', 'content'])
      .where('community_id', '=', id)
      .orderBy('slug')
      .execute();
    expect(articles).toEqual([
      { slug: 'draft-post', status: 'DRAFT', published_at: null, excerpt: '', content: '' },
      {
        slug: 'hello-world',
        status: 'PUBLISHED',
        published_at: '2025-03-01T12:00:00.000Z',
        excerpt: 'First post',
        content: '<p>Hi</p>',
      },
    ]);
    const segments = await db
      .selectFrom('segments')
      .selectAll()
      .where('community_id', '=', id)
      .orderBy('name')
      .execute();
    expect(
      segments.map((s) => [
        s.name,
        s.auto_approve,
        s.price_monthly,
        s.installment_count,
        s.installment_renews_annually,
      ]),
    ).toEqual([
      ['Free', 1, null, null, 0],
      ['Paid', 0, 500, 3, 0],
    ]);
    const products = await db
      .selectFrom('products')
      .select(['sku', 'seller_id', 'donation_config'])
      .where('community_id', '=', id)
      .orderBy('sku')
      .execute();
    expect(JSON.parse(products[0].donation_config as string)).toEqual({
      enabled: true,
      mode: 'pwyw',
      minAmount: 100,
      currency: 'USD',
    });
    expect(products[1].seller_id).toBe(users[1].id);
  });

  it('reports conflicts with the database by JSON path, and imports nothing', async () => {
    await importFixture(db, fixture('base'));
    await importFixture(db, fixture('dom'));
    const communities = await db.selectFrom('communities').select('tag').execute();

    // The same e-mail under another usertag, and a usertag with another e-mail.
    const users = fixture('u1');
    users.communities[0].users[1].email = 'ben+base@example.com';
    users.communities[0].users[2].usertag = 'cy-base';
    users.communities[0].memberships[1].usertag = 'cy-base';
    await expectIssues(users, [
      { path: 'communities[0].users[1].email', message: 'e-mail already belongs to the existing user "ben-base"' },
      { path: 'communities[0].users[2].usertag', message: 'usertag is taken by an existing user with another e-mail' },
    ]);

    // A domain of another community, an unknown segment, and a second featured event.
    const clash = fixture('base');
    clash.communities[1].domains = ['cli-a-dom.example.test'];
    clash.communities[0].memberships[0].segment = 'Gold';
    clash.communities[0].events = [
      { slug: 'brand-new', name: 'New', startDate: '+1d', format: 'online', featured: true },
    ];
    await expectIssues(clash, [
      { path: 'communities[0].memberships[0].segment', message: 'no segment named "Gold" in this community' },
      { path: 'communities[0].events[0].featured', message: 'community already has a featured event ("next-meetup")' },
      { path: 'communities[1].domains[0]', message: 'domain is already used by community "cli-a-dom"' },
    ]);
    expect(await db.selectFrom('communities').select('tag').execute()).toEqual(communities);

    // References may point at users that only the database has.
    const refs = {
      communities: [
        {
          tag: 'refs-only',
          name: 'Refs',
          visibility: 'PUBLIC',
          accessibility: 'OPEN',
          founder: 'ana-base',
          memberships: [{ usertag: 'ben-base', status: 'ACCEPTED' }],
          products: [{ sku: 's', name: 'S', priceCents: 1, currency: 'USD', seller: 'cy-base' }],
        },
      ],
    };
    const ok = await importFixture(db, refs);
    expect(ok.communities[0].counts).toMatchObject({
      users: { created: 0, unchanged: 0 },
      memberships: { created: 2 },
      products: { created: 1 },
    });
  });
});
