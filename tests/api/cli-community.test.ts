// `svc community update <tag> <file.json>` as an operator runs it: `node bin/svc.js` in a child
// process against a SQLite file (or a PostgreSQL schema of its own), and a server process on the
// same database that must see the change within the documented cache lifetime. Then the domain
// function in process: this process forgets its caches at once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Db } from '../../server/db/index.ts';
import { COMMUNITY_CACHE_MS } from '../../server/domain/communities.ts';
import { COMMUNITY_CHANGES_CHANNEL } from '../../server/http/community-changes.ts';
import { updateCommunitySettings } from '../../server/domain/community-settings.ts';
import { FixtureError } from '../../server/domain/import.ts';
import { closeSharedDatabase, onPostgres, openSharedDatabase, ROOT, runSvc as svc, schemaUrl } from './support/cli.ts';
import { makeCommunity } from './support/factory.ts';
import { rawRequest } from './support/raw-http.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { randomPort, runServer, waitFor, type ServerProcess } from './support/server-process.ts';
import { waitFor as waitUntil } from './support/wait.ts';

const RUN = crypto.randomBytes(4).toString('hex');
const tagA = `cli-a-${RUN}`;
const tagB = `cli-b-${RUN}`;

/** What the update may touch: both communities' rows and domains. Equal snapshots = nothing written. */
async function snapshot(db: Db) {
  const communities = await db
    .selectFrom('communities')
    .selectAll()
    .where('tag', 'in', [tagA, tagB])
    .orderBy('tag')
    .execute();
  const domains = await db
    .selectFrom('community_domains')
    .selectAll()
    .where(
      'community_id',
      'in',
      communities.map((c) => c.id),
    )
    .orderBy('hostname')
    .execute();
  return { communities, domains };
}

/**
 * An RSVP widget's request from a page on `origin`, with the community's publishable key: `403
 * ORIGIN_NOT_ALLOWED` while the community does not list the origin, else past authentication to
 * the empty body's `400`. (The preflight no longer tells: every browser origin's is granted, so
 * that a refused page can read its refusal.)
 */
async function embedAction(base: string, tag: string, origin: string): Promise<number> {
  const key = (await (await fetch(`${base}/v1/communities/${tag}/publishable-key`)).json()) as {
    publishableKey: string;
  };
  const res = await fetch(`${base}/api/actions/${tag}/events/any/rsvp`, {
    method: 'POST',
    headers: { Origin: origin, 'X-API-Key': key.publishableKey, 'Content-Type': 'application/json' },
    body: '{}',
  });
  return res.status;
}

/** How long until `check` returns `want`, polling; throws past `ms`. */
async function timeUntil(check: () => Promise<number>, want: number, ms: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if ((await check()) === want) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ${want} after ${ms} ms`);
}

describe('svc community update', { timeout: 90_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-community-'));
  const env: Record<string, string> = { SVC_DATA_DIR: path.join(tmp, 'data') };
  const schema = `cli_community_${RUN}`;
  if (onPostgres) env.DATABASE_URL = schemaUrl(schema);
  let database: DatabaseHandle;
  let server: ServerProcess | null = null;

  /** Writes `settings` as a JSON file and runs the command on it. */
  function update(tag: string, settings: unknown, ...flags: string[]) {
    const file = path.join(tmp, `settings-${crypto.randomUUID()}.json`);
    fs.writeFileSync(file, typeof settings === 'string' ? settings : JSON.stringify(settings));
    return svc(['community', 'update', tag, file, ...flags], env).then((r) => ({ ...r, file }));
  }

  beforeAll(async () => {
    database = await openSharedDatabase(schema, env.SVC_DATA_DIR);
    const fixture = path.join(tmp, 'fixture.json');
    fs.writeFileSync(
      fixture,
      fs.readFileSync(path.join(ROOT, 'tests/fixtures/cli-import.json'), 'utf8').replaceAll('{{run}}', RUN),
    );
    const imported = await svc(['import', fixture], env);
    expect(imported.code, imported.stderr).toBe(0);
  });

  afterAll(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await closeSharedDatabase(database, schema);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('happy', () => {
    it('--help documents the command and its options', async () => {
      const r = await svc(['community', 'update', '--help'], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: svc community update [options] <tag> <file>');
      expect(r.stdout).toMatch(/--dry-run[\s\S]*--json/);
    });

    it('--dry-run prints the diff field by field and writes nothing', async () => {
      const before = await snapshot(database.db);
      const r = await update(
        tagA,
        {
          visibility: 'MEMBERS_ONLY',
          embedOrigins: ['https://cli-a.example.test', `https://new-${RUN}.example`],
          themeConfig: { brandColor: '#ff0000', bgColor: '#ffffff' },
          landingUrl: null,
          pageSettings: [
            { pageKey: 'EVENTS', visibility: 'MEMBERS_ONLY' },
            { pageKey: 'CHAT', enabled: false },
          ],
        },
        '--dry-run',
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')).toEqual([
        `Community ${tagA}: 5 settings would change (dry run, nothing written):`,
        '  visibility                      "PUBLIC" -> "MEMBERS_ONLY"',
        '  landingUrl                      "https://cli-a.example.test/" -> null',
        `  embedOrigins                    + https://new-${RUN}.example`,
        '  pageSettings.EVENTS.visibility  null -> "MEMBERS_ONLY"',
        '  themeConfig.brandColor          "#123456" -> "#ff0000"',
        '',
      ]);
      expect(await snapshot(database.db)).toEqual(before);
    });

    it('applies the change in one go and prints it; the same file again changes nothing', async () => {
      const settings = {
        accessibility: 'OPEN',
        domains: [`cli-a-${RUN}.example.test`, `www-${RUN}.example.test`],
        storefrontConfig: { header: { storeName: 'New name' } },
      };
      const r = await update(tagA, settings);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Updated community ${tagA}: 3 settings changed:`);
      expect(r.stdout).toMatch(/accessibility\s+"APPLICATION" -> "OPEN"/);
      expect(r.stdout).toMatch(new RegExp(`domains\\s+\\+ www-${RUN}\\.example\\.test\\n`));
      expect(r.stdout).toMatch(/storefrontConfig\.header\.storeName\s+"CLI A" -> "New name"/);
      expect(r.stdout).toMatch(/storefrontConfig\.nav\s+\[\{"href":"\/events","label":"Events"\}\] -> \(none\)/);
      const row = await database.db
        .selectFrom('communities')
        .selectAll()
        .where('tag', '=', tagA)
        .executeTakeFirstOrThrow();
      expect(row.accessibility).toBe('OPEN');
      expect(JSON.parse(row.storefront_config)).toEqual({ header: { storeName: 'New name' } });
      // Fields the file leaves out stay as they were.
      expect(row.visibility).toBe('PUBLIC');
      expect(JSON.parse(row.theme_config)).toEqual({ brandColor: '#123456', bgColor: '#ffffff' });
      const domains = await database.db
        .selectFrom('community_domains')
        .select('hostname')
        .where('community_id', '=', row.id)
        .orderBy('hostname')
        .execute();
      expect(domains.map((d) => d.hostname)).toEqual([`cli-a-${RUN}.example.test`, `www-${RUN}.example.test`]);

      const again = await update(tagA, { ...settings, domains: [...settings.domains].reverse() });
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(`Community ${tagA}: nothing to change.\n`);
    });

    it('--json prints every changed field with its whole value before and after', async () => {
      const r = await update(
        tagA,
        { domains: [`cli-a-${RUN}.example.test`], landingUrl: 'https://landing.example/' },
        '--json',
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({
        tag: tagA,
        dryRun: false,
        applied: true,
        changes: [
          {
            field: 'domains',
            before: [`cli-a-${RUN}.example.test`, `www-${RUN}.example.test`],
            after: [`cli-a-${RUN}.example.test`],
          },
          { field: 'landingUrl', before: 'https://cli-a.example.test/', after: 'https://landing.example/' },
        ],
      });
    });

    it('a running server sees a new embed origin and a new domain, and stops honouring a removed origin, within the cache lifetime', async () => {
      const port = randomPort(3900);
      server = runServer({
        PORT: port,
        SVC_DATA_DIR: env.SVC_DATA_DIR,
        SVC_SEED_DEMO: 'false',
        // This test polls widget actions faster than a visitor would send them.
        RATE_LIMIT_WIDGET_ACTIONS_PER_MIN: '100000',
        ...(onPostgres ? { DATABASE_URL: env.DATABASE_URL } : {}),
      });
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`${base}/readyz`);
      const site = `https://shop-${RUN}.example`;
      const domain = `moved-${RUN}.example.test`;
      // A keyless widget write on the community's own domain gets past authentication to validation
      // (400, the body is empty); on a host that is no community's it needs a key (401).
      const onDomain = async () =>
        (
          await rawRequest(
            port,
            'POST',
            `/api/actions/${tagA}/events/any/rsvp`,
            {
              Host: `${domain}:${port}`,
              Origin: `http://${domain}:${port}`,
              'Content-Type': 'application/json',
            },
            '{}',
          )
        ).status;
      // The server has looked the community and the host up (and cached that neither is listed).
      expect(await embedAction(base, tagA, 'https://cli-a.example.test')).toBe(400);
      expect(await embedAction(base, tagA, site)).toBe(403);
      expect(await onDomain()).toBe(401);

      const added = await update(tagA, {
        embedOrigins: ['https://cli-a.example.test', site],
        domains: [`cli-a-${RUN}.example.test`, domain],
      });
      expect(added.code, added.stderr).toBe(0);
      const seenAfter = await timeUntil(() => embedAction(base, tagA, site), 400, COMMUNITY_CACHE_MS + 3000);
      expect(seenAfter).toBeLessThanOrEqual(COMMUNITY_CACHE_MS + 1000);
      const servedAfter = await timeUntil(onDomain, 400, COMMUNITY_CACHE_MS + 3000);
      expect(servedAfter).toBeLessThanOrEqual(COMMUNITY_CACHE_MS + 1000);

      const removed = await update(tagA, { embedOrigins: [site] });
      expect(removed.code, removed.stderr).toBe(0);
      const goneAfter = await timeUntil(
        () => embedAction(base, tagA, 'https://cli-a.example.test'),
        403,
        COMMUNITY_CACHE_MS + 3000,
      );
      expect(goneAfter).toBeLessThanOrEqual(COMMUNITY_CACHE_MS + 1000);
      expect(await embedAction(base, tagA, site)).toBe(400);
    });

    it.runIf(Boolean(process.env.REDIS_URL))(
      'with REDIS_URL, a running server forgets the community at once, well within the cache lifetime',
      async () => {
        const port = randomPort(4300);
        const redis = new Redis(process.env.REDIS_URL!);
        const subscribers = async () =>
          Number(((await redis.pubsub('NUMSUB', COMMUNITY_CHANGES_CHANNEL)) as [string, number])[1]);
        const before = await subscribers();
        const fast = runServer({
          PORT: port,
          SVC_DATA_DIR: env.SVC_DATA_DIR,
          SVC_SEED_DEMO: 'false',
          REDIS_URL: process.env.REDIS_URL!,
          RATE_LIMIT_WIDGET_ACTIONS_PER_MIN: '100000',
          ...(onPostgres ? { DATABASE_URL: env.DATABASE_URL } : {}),
        });
        try {
          const base = `http://127.0.0.1:${port}`;
          await waitFor(`${base}/readyz`);
          // The server subscribes in the background at start (not before it is ready): until Redis
          // counts its subscription, an announcement would pass it by and only the TTL would apply.
          await waitUntil(async () => (await subscribers()) > before, 'the server subscribing to settings changes');
          const origin = `https://fast-${RUN}.example`;
          // Looked up now, and cached for COMMUNITY_CACHE_MS: not an embed origin of B.
          expect(await embedAction(base, tagB, origin)).toBe(403);
          const warmedAt = Date.now();
          const r = await update(tagB, { embedOrigins: [origin] });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).not.toContain('Redis could not be reached');
          const after = await timeUntil(() => embedAction(base, tagB, origin), 400, COMMUNITY_CACHE_MS + 3000);
          expect(after).toBeLessThanOrEqual(1000);
          // Seen while the cached lookup was still fresh: the announcement did it, not the TTL.
          expect(Date.now() - warmedAt).toBeLessThan(COMMUNITY_CACHE_MS);
        } finally {
          fast.child.kill('SIGTERM');
          await fast.exited;
          redis.disconnect();
        }
      },
    );
  });

  describe('error', () => {
    it('refuses an invalid file with every bad field named, exit 1, no stack trace, nothing written', async () => {
      const before = await snapshot(database.db);
      const r = await update(tagA, {
        visibility: 'SECRET',
        embedOrigins: ['https://ok.example', 'https://ok.example', 'https://path.example/x'],
        domains: ['not a host'],
        landingUrl: 'javascript:alert(1)',
        name: 'Renamed',
        events: [],
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error: invalid settings file ${r.file}`);
      for (const field of [
        'visibility:',
        'embedOrigins[2]:',
        'domains[0]:',
        'landingUrl:',
        'name: unknown field',
        'events: unknown field',
      ]) {
        expect(r.stderr).toContain(`  ${field}`);
      }
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // Rules across fields are checked once the fields are valid.
      const dup = await update(tagA, { embedOrigins: ['https://ok.example', 'https://ok.example'] });
      expect(dup.code).toBe(1);
      expect(dup.stderr).toContain('embedOrigins[1]: duplicate origin "https://ok.example" (first at index 0)');
      expect(await snapshot(database.db)).toEqual(before);
    });

    it('refuses a domain another community serves, naming it, and writes none of the file', async () => {
      expect((await update(tagB, { domains: [`b-${RUN}.example.test`] })).code).toBe(0);
      const before = await snapshot(database.db);
      const r = await update(tagA, {
        visibility: 'MEMBERS_ONLY',
        domains: [`fresh-${RUN}.example.test`, `b-${RUN}.example.test`],
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`domains[1]: domain is already used by community "${tagB}"`);
      expect(await snapshot(database.db)).toEqual(before);
    });

    it('refuses an unknown community, a missing file and a file that is not JSON', async () => {
      const unknown = await update(`nope-${RUN}`, { visibility: 'PUBLIC' });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`community "nope-${RUN}" not found`);
      const missing = await svc(['community', 'update', tagA, path.join(tmp, 'missing.json')], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no such file');
      const broken = await update(tagA, '{"visibility": ');
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain('not valid JSON');
      const usage = await svc(['community', 'update', tagA], env);
      expect(usage.code).toBe(1);
      expect(usage.stderr).toContain("missing required argument 'file'");
    });
  });
});

describe('updateCommunitySettings in process', () => {
  let server: TestServer;
  let community: { id: string; tag: string; pk: string };
  const shop = 'https://shop.example';
  /** 403 while the community does not list `origin`, else 400 (past authentication, empty body). */
  const embedActionHere = async (origin: string) =>
    (
      await server.request(`/api/actions/${community.tag}/events/any/rsvp`, {
        method: 'POST',
        headers: { Origin: origin, 'X-API-Key': community.pk },
        json: {},
      })
    ).status;

  beforeAll(async () => {
    server = await startTestServer();
    community = await makeCommunity(server.database.db, 'inproc');
  });
  afterAll(async () => {
    await server?.close();
  });

  it("forgets this process's cached origins at once: no waiting for the cache lifetime", async () => {
    expect(await embedActionHere(shop)).toBe(403);
    await updateCommunitySettings(server.database.db, community.tag, { embedOrigins: [shop] });
    expect(await embedActionHere(shop)).toBe(400);
    await updateCommunitySettings(server.database.db, community.tag, { embedOrigins: [] });
    expect(await embedActionHere(shop)).toBe(403);
  });

  it('a dry run writes nothing and forgets nothing; an unknown community is null', async () => {
    const result = await updateCommunitySettings(
      server.database.db,
      community.tag,
      { embedOrigins: [shop] },
      { dryRun: true },
    );
    expect(result).toMatchObject({ applied: false, changes: [{ field: 'embedOrigins', before: [], after: [shop] }] });
    expect(await embedActionHere(shop)).toBe(403);
    expect(await updateCommunitySettings(server.database.db, 'no-such-community', {})).toBeNull();
  });

  it('refuses invalid input with a FixtureError naming each field', async () => {
    const err = await updateCommunitySettings(server.database.db, community.tag, {
      embedOrigins: ['*'],
      tag: 'x',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).issues.map((i) => i.path)).toEqual(['embedOrigins[0]', 'tag']);
  });
});
