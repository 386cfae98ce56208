// Widget actions (`auth: {kind: 'widget'}`): a test-only write route declared and mounted exactly
// as RSVP, donate and apply will be (mountRoute), against the real database. Each refusal asserts
// that nothing was written. Requests go over raw HTTP so tests control Host, Origin, cookies and
// Fetch Metadata exactly as a browser (or a forger) would send them.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route } from '../../contract/route.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import type { DatabaseHandle } from '../../server/db/index.ts';
import { openTestDatabase, type TestDatabase } from './support/harness.ts';
import { cachedKeyResolver } from '../../server/domain/api-keys.ts';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { OutboxSeal } from '../../server/outbox-seal.ts';
import { jsonBodyReader } from '../../server/http/body.ts';
import { errorHandler } from '../../server/http/error-handler.ts';
import { createLogger } from '../../server/http/logger.ts';
import { createRateLimits } from '../../server/http/rate-limit.ts';
import { ReadCache } from '../../server/http/read-cache.ts';
import { requestId } from '../../server/http/request-id.ts';
import { sessionSiteScope } from '../../server/http/session.ts';
import { mountRoute, type RouteDeps } from '../../server/http/routes.ts';
import { normalizeOrigin } from '../../server/domain/community-origins.ts';
import { makeCommunity, makeKey, makeUser } from './support/factory.ts';

const Made = z.object({
  id: z.string(),
  slug: z.string(),
  communityTag: z.string(),
  via: z.enum(['publishableKey', 'hostedSite']),
  userId: z.string().nullable(),
});
const makeThing = route({
  operationId: 'testWidgetAction',
  method: 'post',
  path: '/api/actions/{communityTag}/things',
  tag: 'Community site',
  summary: 'test-only widget write',
  auth: { kind: 'widget' },
  params: z.object({ communityTag: z.string() }),
  body: z.object({ slug: z.string().min(1) }).strict(),
  response: { status: 201, schema: Made, description: 'made' },
  errors: [],
});

const SHOP = 'https://shop.example';
const BLOG = 'https://blog.example';
const sessions = new SessionTokens(crypto.randomBytes(32));

let testDb: TestDatabase;
let database: DatabaseHandle;
let servers: http.Server[] = [];
let port: number; // generous budget
let tightPort: number; // RATE_LIMIT_WIDGET_ACTIONS_PER_MIN = 3
let acme: { id: string; tag: string; pk: string };
let bolt: { id: string; tag: string; pk: string };
let acmeSecret: string;
let ada: { id: string; usertag: string };
let adaToken: string;

function deps(widgetActionsPerMin: number): RouteDeps {
  return {
    db: database.db,
    keys: cachedKeyResolver(database.db, 0),
    readCache: new ReadCache(0),
    rateLimits: createRateLimits(
      { publishablePerSec: 1e4, secretPerSec: 1e4, anonymousPerSec: 1e4, authFailuresPerMin: 1e4, widgetActionsPerMin },
      null,
    ),
    publicUrl: 'http://localhost',
    readBody: jsonBodyReader('1mb'),
    sessions,
    validateResponses: true,
    outboxSeal: new OutboxSeal(crypto.randomBytes(32)),
  };
}

async function startApp(widgetActionsPerMin: number): Promise<number> {
  const app = express();
  app.use(requestId);
  app.use(sessionSiteScope(database.db, 'localhost'));
  mountRoute(
    app as unknown as express.Router,
    makeThing,
    async ({ body, widget, visitor, transaction }) => {
      expect(visitor).toEqual(widget.visitor);
      return transaction(async (trx) => {
        const id = newId();
        await trx
          .insertInto('events')
          .values({
            id,
            community_id: widget.community.id,
            slug: `${body.slug}~${id}`,
            name: body.slug,
            description: null,
            start_date: nowIso(),
            end_date: null,
            location: null,
            banner_url: null,
            format: 'online',
            featured: null,
            visibility: 'PUBLIC',
            donation_config: null,
            created_at: nowIso(),
            updated_at: nowIso(),
          })
          .execute();
        return {
          status: 201,
          body: {
            id,
            slug: body.slug,
            communityTag: widget.community.tag,
            via: widget.via,
            userId: widget.visitor?.userId ?? null,
          },
        };
      });
    },
    deps(widgetActionsPerMin),
  );
  app.use(errorHandler(createLogger('silent'), '1mb'));
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  testDb = await openTestDatabase();
  database = testDb.database;
  acme = await makeCommunity(database.db, 'acme', { domains: ['club.example'] });
  bolt = await makeCommunity(database.db, 'bolt');
  // Stored as an admin might type them: the second one is allowed in its normalised form, and
  // the malformed entries allow nothing.
  await database.db
    .updateTable('communities')
    .where('id', '=', acme.id)
    .set({
      embed_origins: JSON.stringify([SHOP, 'HTTPS://Blog.Example:443/', 'null', '*', 'https://bad.example/path', 42]),
    })
    .execute();
  await database.db
    .updateTable('communities')
    .where('id', '=', bolt.id)
    .set({ embed_origins: JSON.stringify([SHOP, 'https://bolt.example']) })
    .execute();
  acmeSecret = await makeKey(database.db, acme.id, ['ADMIN']);
  ada = await makeUser(database.db, 'ada');
  adaToken = (await sessions.issue(ada.id, Date.now(), undefined, 'acme')).token;
  port = await startApp(1e4);
  tightPort = await startApp(3);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
  await testDb.close();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function raw(method: string, path: string, headers: Record<string, string>, body?: string, on = port): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: on, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A write to `/api/actions/<tag>/things` with a JSON body. */
const act = (
  headers: Record<string, string>,
  body: unknown = { slug: 'x' },
  opts: { tag?: string; on?: number } = {},
) =>
  raw(
    'POST',
    `/api/actions/${opts.tag ?? 'acme'}/things`,
    { 'Content-Type': 'application/json', ...headers },
    typeof body === 'string' ? body : JSON.stringify(body),
    opts.on,
  );

/** What a widget on a customer's page sends. */
const embedded = (origin: string, key = acme.pk) => ({
  'X-API-Key': key,
  Origin: origin,
  'Sec-Fetch-Site': 'cross-site',
});
/** What a widget on the hosted apex (`acme.localhost`) sends: same-origin, no key. */
const hosted = (extra: Record<string, string> = {}) => {
  const site = `acme.localhost:${port}`;
  return { Host: site, Origin: `http://${site}`, 'Sec-Fetch-Site': 'same-origin', ...extra };
};

const things = async () =>
  Number(
    (
      await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const countSlug = async (slug: string) =>
  Number(
    (
      await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('slug', 'like', `${slug}~%`)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Runs `send` and asserts it was refused with `status`/`code` and wrote nothing. */
async function refused(send: () => Promise<Raw>, status: number, code: string): Promise<Raw> {
  const before = await things();
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.code).toBe(code);
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  expect(await things()).toBe(before);
  return res;
}

describe('widget actions: happy path', () => {
  it('accepts the publishable key from a listed embed origin, with CORS for exactly that origin', async () => {
    const res = await act(embedded(SHOP), { slug: 'embed' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ slug: 'embed', communityTag: 'acme', via: 'publishableKey', userId: null });
    expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
    expect(res.headers['access-control-expose-headers']).toContain('Idempotent-Replayed');
    expect(res.headers['x-ratelimit-limit']).toBe('10000');
    expect(await countSlug('embed')).toBe(1);
  });

  it('matches a stored origin in its normalised form (case, default port, trailing slash)', async () => {
    const res = await act(embedded(BLOG), { slug: 'blog' });
    expect(res.status).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe(BLOG);
  });

  it('accepts an anonymous same-origin write on the hosted apex, without a key or CORS headers', async () => {
    const res = await act(hosted(), { slug: 'apex-anon' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ via: 'hostedSite', userId: null, communityTag: 'acme' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await countSlug('apex-anon')).toBe(1);
  });

  it('hands the signed-in visitor to the handler when the sign-in cookie comes along', async () => {
    for (const cookie of [`svc_auth_acme=${adaToken}`, `svc_auth=${adaToken}`]) {
      const res = await act(hosted({ Cookie: cookie }), { slug: 'apex-ada' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ via: 'hostedSite', userId: ada.id });
    }
    expect(await countSlug('apex-ada')).toBe(2);
  });

  it("works on the community's custom domain, and without Fetch Metadata (older browsers)", async () => {
    const res = await act(
      { Host: 'club.example', Origin: 'http://club.example', Cookie: `svc_auth_acme=${adaToken}` },
      { slug: 'custom' },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ via: 'hostedSite', userId: ada.id });
  });

  it('reads an invalid, expired or foreign token as anonymous rather than refusing', async () => {
    const { token: expired } = await sessions.issue(ada.id, Date.now() - 31 * 24 * 3600_000, undefined, 'acme');
    const { token: foreign } = await new SessionTokens(crypto.randomBytes(32)).issue(ada.id);
    for (const token of ['garbage', expired, foreign]) {
      const res = await act(hosted({ Cookie: `svc_auth_acme=${token}` }), { slug: 'apex-bad-token' });
      expect(res.status).toBe(201);
      expect(res.body.userId).toBeNull();
    }
  });
});

describe('widget actions: errors (nothing changes)', () => {
  it("answers 401 API_KEY_REQUIRED to a keyless write that is not on the community's own site", async () => {
    await refused(() => act({ Origin: SHOP }), 401, 'API_KEY_REQUIRED');
    await refused(
      () => act({ Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' }),
      401,
      'API_KEY_REQUIRED',
    );
    // Same-origin, but on another community's site.
    const bolts = `bolt.localhost:${port}`;
    await refused(
      () =>
        act({
          Host: bolts,
          Origin: `http://${bolts}`,
          'Sec-Fetch-Site': 'same-origin',
          Cookie: `svc_auth_bolt=${adaToken}`,
        }),
      401,
      'API_KEY_REQUIRED',
    );
    // A blank key is no key.
    await refused(() => act({ 'X-API-Key': '  ', Origin: SHOP }), 401, 'API_KEY_REQUIRED');
  });

  it('refuses the key without an Origin, or from an origin that is not listed (403 ORIGIN_NOT_ALLOWED)', async () => {
    const noOrigin = await refused(() => act({ 'X-API-Key': acme.pk }), 403, 'ORIGIN_NOT_ALLOWED');
    expect(noOrigin.body.error).toBe('This origin is not an allowed embed origin of the community');
    for (const origin of [
      'https://evil.example',
      'http://shop.example',
      'https://shop.example:8443',
      'https://sub.shop.example',
      'https://bad.example',
      `http://acme.localhost:${port}`,
    ]) {
      const res = await refused(() => act(embedded(origin)), 403, 'ORIGIN_NOT_ALLOWED');
      // Readable by the refused page (and only the refusal: the handler never ran), so its widget
      // can say the site is not set up rather than "We couldn't reach the server".
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
    }
  });

  it('refuses the Origin "null" (sandboxed frames, file: pages) even though "null" is in the stored list', async () => {
    const res = await refused(() => act(embedded('null')), 403, 'ORIGIN_NOT_ALLOWED');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('compares the Origin as browsers send it: a non-canonical spelling is not a listed origin', async () => {
    await refused(() => act(embedded('HTTPS://SHOP.EXAMPLE')), 403, 'ORIGIN_NOT_ALLOWED');
    await refused(() => act(embedded(`${SHOP}/`)), 403, 'ORIGIN_NOT_ALLOWED');
  });

  it("refuses another community's publishable key with 403 COMMUNITY_MISMATCH, even from an origin both list", async () => {
    const res = await refused(() => act(embedded(SHOP, bolt.pk)), 403, 'COMMUNITY_MISMATCH');
    expect(res.body.error).toBe('API key does not belong to this community');
  });

  it('refuses secret keys, valid or not, without saying which (403 SECRET_KEY_NOT_ALLOWED)', async () => {
    await refused(() => act(embedded(SHOP, acmeSecret)), 403, 'SECRET_KEY_NOT_ALLOWED');
    await refused(() => act(embedded(SHOP, 'sk_live_not-a-real-key')), 403, 'SECRET_KEY_NOT_ALLOWED');
    // On the hosted apex too: a key always takes the key path.
    await refused(() => act(hosted({ 'X-API-Key': acmeSecret })), 403, 'SECRET_KEY_NOT_ALLOWED');
  });

  it('answers 401 INVALID_API_KEY to an unknown or malformed key', async () => {
    await refused(() => act(embedded(SHOP, 'pk_live_unknown')), 401, 'INVALID_API_KEY');
    await refused(() => act(embedded(SHOP, 'whatever')), 401, 'INVALID_API_KEY');
  });

  it('answers a malformed body with 400 and the field, readable by the listed origin', async () => {
    const empty = await refused(() => act(embedded(SHOP), { slug: '' }), 400, 'INVALID_INPUT');
    expect(empty.body.extras.field).toBe('slug');
    expect(empty.headers['access-control-allow-origin']).toBe(SHOP);
    const unknown = await refused(() => act(embedded(SHOP), { slug: 'a', admin: true }), 400, 'INVALID_INPUT');
    expect(unknown.body.extras.field).toBe('admin');
    const missing = await refused(() => act(hosted(), {}), 400, 'INVALID_INPUT');
    expect(missing.body.extras.field).toBe('slug');
    await refused(() => act(embedded(SHOP), '{"slug":'), 400, 'MALFORMED_JSON');
    await refused(
      () => act({ ...embedded(SHOP), 'Content-Type': 'text/plain' }, 'slug=x'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});

describe('widget actions: security', () => {
  const preflight = (origin: string | null, tag = 'acme') =>
    raw('OPTIONS', `/api/actions/${tag}/things`, {
      ...(origin === null ? {} : { Origin: origin }),
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, x-api-key, idempotency-key',
    });

  it('answers a preflight from a listed origin with exactly that origin, never * and never credentials', async () => {
    for (const origin of [SHOP, BLOG]) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
      for (const h of ['x-api-key', 'content-type', 'idempotency-key', 'x-svc-auth-token', 'x-svc-member-token'])
        expect(allowed).toContain(h);
    }
  });

  it('grants the preflight of any other browser origin, so that the request itself is refused readably', async () => {
    const cases: Array<[string, string]> = [
      ['https://evil.example', 'acme'],
      [BLOG, 'bolt'],
      [SHOP, 'nosuch'],
      ['http://127.0.0.2:8080', 'acme'],
    ];
    for (const [origin, tag] of cases) {
      const res = await preflight(origin, tag);
      expect(res.status, `${origin} ${tag}`).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
    }
    // ...and then the request is refused, readable by that page, with nothing written.
    const res = await refused(() => act(embedded('https://evil.example')), 403, 'ORIGIN_NOT_ALLOWED');
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example');
  });

  it('gives no CORS headers to a preflight with the Origin "null", "*", a non-canonical one, or none', async () => {
    const cases: Array<[string | null, string]> = [
      ['null', 'acme'],
      [null, 'acme'],
      ['*', 'acme'],
      ['HTTPS://EVIL.EXAMPLE', 'acme'],
      ['https://evil.example/', 'acme'],
      ['javascript:alert(1)', 'acme'],
    ];
    for (const [origin, tag] of cases) {
      const res = await preflight(origin, tag);
      expect(res.status, `${origin} ${tag}`).toBe(403);
      expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('never answers * or null or with credentials, whatever is asked', async () => {
    const answers = await Promise.all([
      preflight(SHOP),
      preflight('null'),
      act(embedded(SHOP)),
      act(embedded('null')),
      act(hosted()),
      act({ Origin: '*', 'X-API-Key': acme.pk }),
    ]);
    for (const res of answers) {
      expect(['*', 'null']).not.toContain(res.headers['access-control-allow-origin']);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('refuses cross-site cookie writes on the hosted apex, and changes nothing', async () => {
    const cookie = `svc_auth_acme=${adaToken}`;
    const site = `acme.localhost:${port}`;
    const forged: Array<[string, Record<string, string>, number, string]> = [
      [
        "another site's Origin",
        { Host: site, Cookie: cookie, Origin: 'https://evil.example' },
        403,
        'CROSS_SITE_REQUEST',
      ],
      [
        'a listed embed origin (cookies are same-origin only)',
        { Host: site, Cookie: cookie, Origin: SHOP },
        403,
        'CROSS_SITE_REQUEST',
      ],
      ['no Origin', { Host: site, Cookie: cookie }, 403, 'CROSS_SITE_REQUEST'],
      ['the Origin "null"', { Host: site, Cookie: cookie, Origin: 'null' }, 403, 'CROSS_SITE_REQUEST'],
      [
        "a sibling community's Origin",
        { Host: site, Cookie: cookie, Origin: `http://bolt.localhost:${port}` },
        403,
        'CROSS_SITE_REQUEST',
      ],
      [
        'Fetch Metadata cross-site',
        { ...hosted({ Cookie: cookie }), 'Sec-Fetch-Site': 'cross-site' },
        403,
        'CROSS_SITE_REQUEST',
      ],
      [
        'Fetch Metadata same-site',
        { ...hosted({ Cookie: cookie }), 'Sec-Fetch-Site': 'same-site' },
        403,
        'CROSS_SITE_REQUEST',
      ],
      [
        'a form content type',
        { ...hosted({ Cookie: cookie }), 'Content-Type': 'application/x-www-form-urlencoded' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'a text/plain body',
        { ...hosted({ Cookie: cookie }), 'Content-Type': 'text/plain' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
    ];
    for (const [name, headers, status, code] of forged) {
      const res = await refused(() => act(headers, { slug: 'forged' }), status, code);
      // The refused page may read the refusal (CORS without credentials, so never with the
      // cookie); "null" and a missing Origin get no CORS.
      const readable = headers.Origin && headers.Origin !== 'null' ? headers.Origin : undefined;
      expect(res.headers['access-control-allow-origin'], name).toBe(readable);
      expect(res.headers['access-control-allow-credentials'], name).toBeUndefined();
    }
    expect(await countSlug('forged')).toBe(0);
  });

  it('never reads the cookie on the key path: the visitor stays anonymous there', async () => {
    const res = await act(
      { ...embedded(SHOP), Cookie: `svc_auth_acme=${adaToken}; svc_auth=${adaToken}` },
      { slug: 'key-cookie' },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ via: 'publishableKey', userId: null });
  });

  it('answers 429 RATE_LIMITED with Retry-After past the per-IP budget of a community, and writes nothing more', async () => {
    for (let i = 0; i < 3; i += 1) {
      const ok = await act(embedded(SHOP), { slug: 'budget' }, { on: tightPort });
      expect(ok.status).toBe(201);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
    }
    const over = await refused(() => act(embedded(SHOP), { slug: 'budget' }, { on: tightPort }), 429, 'RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(over.body.extras.retryAfter).toBe(Number(over.headers['retry-after']));
    expect(over.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    // The hosted path shares the budget (it is the client's), and a spent budget is refused
    // before any credential is looked at.
    const tightSite = `acme.localhost:${tightPort}`;
    await refused(
      () => act({ Host: tightSite, Origin: `http://${tightSite}` }, { slug: 'budget' }, { on: tightPort }),
      429,
      'RATE_LIMITED',
    );
    await refused(
      () => act(embedded(SHOP, 'pk_live_guess'), { slug: 'budget' }, { on: tightPort }),
      429,
      'RATE_LIMITED',
    );
    expect(await countSlug('budget')).toBe(3);
    // Per community: the same client still has its budget on another community.
    const elsewhere = await act(embedded(SHOP, bolt.pk), { slug: 'budget-bolt' }, { tag: 'bolt', on: tightPort });
    expect(elsewhere.status).toBe(201);
  });

  it('replays an idempotent widget write and changes nothing the second time', async () => {
    const key = crypto.randomUUID();
    const first = await act({ ...embedded(SHOP), 'Idempotency-Key': key }, { slug: 'idem-embed' });
    const again = await act({ ...embedded(SHOP), 'Idempotency-Key': key }, { slug: 'idem-embed' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers['access-control-allow-origin']).toBe(SHOP);
    expect(await countSlug('idem-embed')).toBe(1);
    const other = await refused(
      () => act({ ...embedded(SHOP), 'Idempotency-Key': key }, { slug: 'idem-other' }),
      422,
      'IDEMPOTENCY_KEY_MISMATCH',
    );
    expect(other.body.extras.field).toBe('Idempotency-Key');
  });

  it('keeps idempotency records per signed-in visitor on the hosted site: the same key from another visitor runs anew', async () => {
    const bob = await makeUser(database.db, 'bob');
    const { token: bobs } = await sessions.issue(bob.id, Date.now(), undefined, 'acme');
    const key = crypto.randomUUID();
    const mine = await act(hosted({ Cookie: `svc_auth_acme=${adaToken}`, 'Idempotency-Key': key }), {
      slug: 'idem-user',
    });
    const replay = await act(hosted({ Cookie: `svc_auth_acme=${adaToken}`, 'Idempotency-Key': key }), {
      slug: 'idem-user',
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(mine.body);
    const theirs = await act(hosted({ Cookie: `svc_auth_acme=${bobs}`, 'Idempotency-Key': key }), {
      slug: 'idem-user',
    });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.userId).toBe(bob.id);
    expect(await countSlug('idem-user')).toBe(2);
  });

  it('does not spend an Idempotency-Key on a refused origin: the corrected request runs', async () => {
    const key = crypto.randomUUID();
    await refused(
      () => act({ ...embedded('https://evil.example'), 'Idempotency-Key': key }, { slug: 'idem-refused' }),
      403,
      'ORIGIN_NOT_ALLOWED',
    );
    const ok = await act({ ...embedded(SHOP), 'Idempotency-Key': key }, { slug: 'idem-refused' });
    expect(ok.status).toBe(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('widget actions: declaration and configuration', () => {
  const base = {
    operationId: 'testBadWidget',
    tag: 'Community site' as const,
    summary: 'x',
    auth: { kind: 'widget' as const },
    response: { status: 200, schema: z.object({}), description: 'x' },
    errors: [],
  };

  it('refuses at mount a widget route outside /api/actions/{communityTag}/, or a read', () => {
    const router = express.Router();
    const noop = async () => ({ body: {} });
    expect(() =>
      mountRoute(
        router,
        route({ ...base, method: 'post', path: '/api/communities/{communityTag}/rsvp' }),
        noop,
        deps(1),
      ),
    ).toThrow(/must start with \/api\/actions\/\{communityTag\}\//);
    expect(() =>
      mountRoute(router, route({ ...base, method: 'post', path: '/api/actions/rsvp' }), noop, deps(1)),
    ).toThrow(/must start with/);
    expect(() =>
      mountRoute(router, route({ ...base, method: 'get', path: '/api/actions/{communityTag}/things' }), noop, deps(1)),
    ).toThrow(/widget routes are writes/);
  });

  it('normalises embed origins to what browsers send, and rejects anything that is not an origin', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example:443/')).toBe('https://shop.example');
    expect(normalizeOrigin('http://localhost:8080')).toBe('http://localhost:8080');
    expect(normalizeOrigin('https://bücher.example')).toBe('https://xn--bcher-kva.example');
    for (const bad of [
      'null',
      '*',
      '',
      'shop.example',
      'ftp://shop.example',
      'https://shop.example/path',
      'https://u:p@shop.example',
      'https://shop.example?',
      'https://shop.example#x',
    ]) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it('reads RATE_LIMIT_WIDGET_ACTIONS_PER_MIN (default 60 where the bucket is made)', () => {
    expect(loadConfig({ RATE_LIMIT_WIDGET_ACTIONS_PER_MIN: '5' }).rateLimits.widgetActionsPerMin).toBe(5);
    expect(loadConfig({}).rateLimits.widgetActionsPerMin).toBeUndefined();
    expect(() => loadConfig({ RATE_LIMIT_WIDGET_ACTIONS_PER_MIN: '0' })).toThrow(ConfigError);
  });
});
