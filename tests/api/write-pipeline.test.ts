// What every write endpoint gets, on a real write route: the route is declared and mounted
// exactly as resource routes are (mountRoute), against the real database. Covers idempotency
// (replay, mismatch, concurrency, lock takeover, exactly-once) and request bodies (JSON only,
// size cap, auth before the body is read).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route } from '../../contract/route.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import type { DatabaseHandle } from '../../server/db/index.ts';
import { openTestDatabase, type TestDatabase } from './support/harness.ts';
import { ApiError } from '../../server/http/api-error.ts';
import { jsonBodyReader } from '../../server/http/body.ts';
import { fingerprint } from '../../server/http/idempotency.ts';
import { errorHandler } from '../../server/http/error-handler.ts';
import { createLogger } from '../../server/http/logger.ts';
import { createRateLimits } from '../../server/http/rate-limit.ts';
import { requestId } from '../../server/http/request-id.ts';
import { mountRoute } from '../../server/http/routes.ts';
import { ReadCache } from '../../server/http/read-cache.ts';
import { cachedKeyResolver, hashKey } from '../../server/domain/api-keys.ts';
import { makeCommunity, makeKey } from './support/factory.ts';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { OutboxSeal } from '../../server/outbox-seal.ts';

const createThing = route({
  operationId: 'testCreateThing',
  method: 'post',
  path: '/v1/communities/{communityTag}/things',
  tag: 'Events',
  summary: 'test-only write',
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: z.object({ communityTag: z.string() }),
  body: z
    .object({
      slug: z.string().min(1),
      mode: z
        .enum([
          'ok',
          'conflict',
          'crash-once',
          'slow',
          'stolen',
          'clash',
          'fail-after-commit',
          'two-transactions',
          'reshape',
          'auth-refusal',
        ])
        .default('ok'),
    })
    .strict(),
  response: { status: 201, schema: z.object({ id: z.string(), slug: z.string() }), description: 'created' },
  errors: [400, 409],
});

let testDb: TestDatabase;
let database: DatabaseHandle;
let server: http.Server;
let base: string;
let keyA: string;
let keyB: string;
let communityId: string;
let crashes = 0;
const LOCK_MS = 300;

beforeAll(async () => {
  testDb = await openTestDatabase();
  database = testDb.database;
  const c = await makeCommunity(database.db, 'acme');
  communityId = c.id;
  keyA = await makeKey(database.db, c.id, ['WRITE_SALES']);
  keyB = await makeKey(database.db, c.id, ['ADMIN']);

  const app = express();
  app.use(requestId);
  const rateLimits = createRateLimits(
    { publishablePerSec: 1e4, secretPerSec: 1e4, anonymousPerSec: 1e4, authFailuresPerMin: 1e4 },
    null,
  );
  mountRoute(
    app as unknown as express.Router,
    createThing,
    async ({ body, transaction }) => {
      // Hold the request open long enough for duplicates to arrive while it runs; `slow` outlives
      // several lock periods, so only the heartbeat keeps its lock.
      await new Promise((r) => setTimeout(r, body.mode === 'slow' ? LOCK_MS * 3 : 150));
      if (body.mode === 'conflict') throw new ApiError('INVALID_STATE', 'thing is locked');
      if (body.mode === 'crash-once' && crashes++ === 0) throw new Error('boom');
      if (body.mode === 'auth-refusal') throw new ApiError('INVALID_API_KEY', 'member token rejected');
      const write = () =>
        transaction(async (trx) => {
          const id = newId();
          await trx
            .insertInto('events')
            .values({
              // `clash` always writes the same slug: the second one is a unique violation.
              id,
              community_id: communityId,
              slug: body.mode === 'clash' ? 'clash~fixed' : `${body.slug}~${id}`,
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
          if (body.mode === 'stolen') {
            // As if this request stalled past its lock and another took the key over meanwhile.
            await trx.updateTable('idempotency_keys').set({ lock_token: 'someone-else' }).execute();
          }
          return { status: 201, body: { id, slug: body.slug }, headers: { Location: `/things/${id}` } };
        });
      const committed = await write();
      if (body.mode === 'fail-after-commit') throw new Error('mail server down');
      if (body.mode === 'two-transactions') await write();
      if (body.mode === 'reshape')
        return { ...committed, body: { ...committed.body, extra: 'not in the stored answer' } };
      return committed;
    },
    {
      db: database.db,
      keys: cachedKeyResolver(database.db, 0),
      readCache: new ReadCache(0),
      rateLimits,
      publicUrl: 'http://localhost',
      readBody: jsonBodyReader('1mb'),
      idempotency: { lockMs: LOCK_MS, waitMs: 1500 },
      sessions: new SessionTokens(crypto.randomBytes(32)),
      outboxSeal: new OutboxSeal(crypto.randomBytes(32)),
    },
  );
  app.use(errorHandler(createLogger('silent'), '1mb'));
  server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await testDb.close();
});

async function post(body: unknown, opts: { key?: string; idem?: string; header?: string } = {}) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': opts.key ?? keyA };
  if (opts.idem) headers[opts.header ?? 'Idempotency-Key'] = opts.idem;
  const res = await fetch(`${base}/v1/communities/acme/things`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), replayed: res.headers.get('idempotent-replayed') === 'true' };
}
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

describe('idempotency: happy path', () => {
  it('replays the first status and body for the same key and request, and writes once', async () => {
    const first = await post({ slug: 'one' }, { idem: 'k-1' });
    const second = await post({ slug: 'one' }, { idem: 'k-1' });
    expect(first.status).toBe(201);
    expect(second).toEqual({ ...first, replayed: true });
    expect(await countSlug('one')).toBe(1);
  });

  it('treats the same JSON with keys in another order as the same request', async () => {
    await post({ slug: 'order', mode: 'ok' }, { idem: 'k-order' });
    const again = await post({ mode: 'ok', slug: 'order' }, { idem: 'k-order' });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe(true);
  });

  it('accepts X-Idempotency-Key as the same header', async () => {
    const a = await post({ slug: 'x-header' }, { idem: 'k-x', header: 'X-Idempotency-Key' });
    const b = await post({ slug: 'x-header' }, { idem: 'k-x' });
    expect(b).toEqual({ ...a, replayed: true });
  });

  it('runs every request without a key', async () => {
    await post({ slug: 'no-key' });
    const again = await post({ slug: 'no-key-2' });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe(false);
  });
});

describe('idempotency: concurrency', () => {
  it('lets ten concurrent duplicates change state once and all get the first answer', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => post({ slug: 'race' }, { idem: 'k-race' })));
    expect(await countSlug('race')).toBe(1);
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
  });
});

describe('idempotency: errors', () => {
  it('answers 422 IDEMPOTENCY_KEY_MISMATCH for the same key with a different body', async () => {
    await post({ slug: 'mm-a' }, { idem: 'k-mm' });
    const r = await post({ slug: 'mm-b' }, { idem: 'k-mm' });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_MISMATCH', extras: { field: 'Idempotency-Key' } });
    expect(await countSlug('mm-b')).toBe(0);
  });

  it('does not store validation failures: the key stays free for the corrected request', async () => {
    const bad = await post({ slug: '' }, { idem: 'k-valid' });
    expect(bad.status).toBe(400);
    const good = await post({ slug: 'fixed' }, { idem: 'k-valid' });
    expect(good.status).toBe(201);
    expect(good.replayed).toBe(false);
  });

  it('keeps a domain refusal: the same request gets the same 409 again', async () => {
    const a = await post({ slug: 'c', mode: 'conflict' }, { idem: 'k-conflict' });
    const b = await post({ slug: 'c', mode: 'conflict' }, { idem: 'k-conflict' });
    expect(a.status).toBe(409);
    expect(b.status).toBe(409);
    expect(b.replayed).toBe(true);
  });

  it('does not keep a server error: a retry with the same key runs again and succeeds', async () => {
    const a = await post({ slug: 'crashy', mode: 'crash-once' }, { idem: 'k-crash' });
    expect(a.status).toBe(500);
    expect(a.body).toMatchObject({ code: 'INTERNAL', error: 'Internal server error' });
    const b = await post({ slug: 'crashy', mode: 'crash-once' }, { idem: 'k-crash' });
    expect(b.status).toBe(201);
    expect(await countSlug('crashy')).toBe(1);
  });

  it('rejects a malformed key and two differing key headers', async () => {
    const r = await post({ slug: 'bad-key' }, { idem: 'has space' });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('Idempotency-Key');
    const res = await fetch(`${base}/v1/communities/acme/things`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-API-Key': keyA,
        'Idempotency-Key': 'a1',
        'X-Idempotency-Key': 'b2',
      },
      body: JSON.stringify({ slug: 'two-keys' }),
    });
    expect(res.status).toBe(400);
  });

  it('forgets a key after 24 hours', async () => {
    await post({ slug: 'old' }, { idem: 'k-old' });
    await database.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('idem_key', '=', 'k-old')
      .execute();
    const again = await post({ slug: 'old' }, { idem: 'k-old' });
    expect(again.replayed).toBe(false);
    expect(await countSlug('old')).toBe(2);
  });
});

describe('idempotency: locks', () => {
  const path = '/v1/communities/acme/things';
  const holdRow = async (idem: string, body: unknown, lockedUntil: number) => {
    const keyId = (
      await database.db
        .selectFrom('api_keys')
        .select('id')
        .where('key_hash', '=', hashKey(keyA))
        .executeTakeFirstOrThrow()
    ).id;
    await database.db
      .insertInto('idempotency_keys')
      .values({
        owner: `key:${keyId}`,
        idem_key: idem,
        request_hash: fingerprint('post', path, body),
        state: 'in_progress',
        response_status: null,
        response_body: null,
        created_at: nowIso(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        locked_until: new Date(lockedUntil).toISOString(),
        lock_token: 'dead-holder',
      })
      .execute();
  };

  it('takes over a key whose holder died (its lock expired) and runs the request once', async () => {
    await holdRow('k-dead', { slug: 'dead' }, Date.now() - 1000);
    const r = await post({ slug: 'dead' }, { idem: 'k-dead' });
    expect(r.status).toBe(201);
    expect(r.replayed).toBe(false);
    expect(await countSlug('dead')).toBe(1);
    expect((await post({ slug: 'dead' }, { idem: 'k-dead' })).replayed).toBe(true);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS with Retry-After when the holder is alive past the wait', async () => {
    await holdRow('k-busy', { slug: 'busy' }, Date.now() + 60_000);
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': keyA, 'Idempotency-Key': 'k-busy' },
      body: JSON.stringify({ slug: 'busy' }),
    });
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await res.json()).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(await countSlug('busy')).toBe(0);
  });

  it('keeps the lock of a slow request alive, so a duplicate waits instead of running it again', async () => {
    const first = post({ slug: 'slow', mode: 'slow' }, { idem: 'k-slow' });
    await new Promise((r) => setTimeout(r, LOCK_MS * 1.5));
    const second = await post({ slug: 'slow', mode: 'slow' }, { idem: 'k-slow' });
    expect((await first).status).toBe(201);
    expect(second.replayed).toBe(true);
    expect(await countSlug('slow')).toBe(1);
  });

  it('rolls back the change of a request that lost its lock: the change and its stored answer commit together', async () => {
    const r = await post({ slug: 'stolen', mode: 'stolen' }, { idem: 'k-stolen' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(await countSlug('stolen')).toBe(0);
  });
});

describe('idempotency: handler failures', () => {
  it('lets a unique violation inside the handler fail the request once instead of retrying it', async () => {
    expect((await post({ slug: 'clash', mode: 'clash' }, { idem: 'k-clash-1' })).status).toBe(201);
    const started = Date.now();
    const second = await post({ slug: 'clash', mode: 'clash' }, { idem: 'k-clash-2' });
    expect(second.status).toBe(500);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('replays, and never re-runs, a change that committed before the handler failed', async () => {
    const first = await post({ slug: 'after', mode: 'fail-after-commit' }, { idem: 'k-after' });
    expect(first.status).toBe(500);
    const retry = await post({ slug: 'after', mode: 'fail-after-commit' }, { idem: 'k-after' });
    expect(retry.status).toBe(201);
    expect(retry.replayed).toBe(true);
    expect(await countSlug('after')).toBe(1);
  });

  it('refuses a second transaction in one idempotent request, keeping the first change and its answer', async () => {
    const first = await post({ slug: 'twice', mode: 'two-transactions' }, { idem: 'k-twice' });
    expect(first.status).toBe(500);
    expect(await countSlug('twice')).toBe(1);
    const retry = await post({ slug: 'twice', mode: 'two-transactions' }, { idem: 'k-twice' });
    expect(retry).toMatchObject({ status: 201, replayed: true });
  });

  it('answers with what the transaction committed, so the first response and the replay are equal', async () => {
    const first = await post({ slug: 'shape', mode: 'reshape' }, { idem: 'k-shape' });
    const replay = await post({ slug: 'shape', mode: 'reshape' }, { idem: 'k-shape' });
    expect(first.body).not.toHaveProperty('extra');
    expect(replay.body).toEqual(first.body);
  });

  it('replays the headers of the first answer', async () => {
    const res = () =>
      fetch(`${base}/v1/communities/acme/things`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': keyA, 'Idempotency-Key': 'k-location' },
        body: JSON.stringify({ slug: 'located' }),
      });
    const a = await res();
    const b = await res();
    expect(a.headers.get('location')).toMatch(/^\/things\//);
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does not store an auth refusal raised by the handler: the retry runs again', async () => {
    const a = await post({ slug: 'auth-h', mode: 'auth-refusal' }, { idem: 'k-auth-h' });
    const b = await post({ slug: 'auth-h', mode: 'auth-refusal' }, { idem: 'k-auth-h' });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(b.replayed).toBe(false);
  });
});

describe('request bodies', () => {
  const send = (body: string, headers: Record<string, string>) =>
    fetch(`${base}/v1/communities/acme/things`, { method: 'POST', headers, body }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const r = await send('{"slug": ', { 'Content-Type': 'application/json', 'X-API-Key': keyA });
    expect(r).toMatchObject({ status: 400, body: { code: 'MALFORMED_JSON' } });
  });

  it('answers a 2 MB body with 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await send(JSON.stringify({ slug: 'x'.repeat(2 * 1024 * 1024) }), {
      'Content-Type': 'application/json',
      'X-API-Key': keyA,
    });
    expect(r).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers other media types and charsets with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin9']) {
      const r = await send('slug=x', { 'Content-Type': type, 'X-API-Key': keyA });
      expect(r).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
  });

  it('refuses a request without valid credentials before reading its body', async () => {
    for (const body of ['{"slug": ', JSON.stringify({ slug: 'x'.repeat(2 * 1024 * 1024) })]) {
      const none = await send(body, { 'Content-Type': 'application/json' });
      expect(none.status).toBe(401);
      const bad = await send(body, { 'Content-Type': 'application/json', 'X-API-Key': 'sk_live_wrong' });
      expect(bad.status).toBe(401);
    }
  });

  it('reports the first invalid body field by name', async () => {
    const r = await send(JSON.stringify({ slug: 'x', extra: 1 }), {
      'Content-Type': 'application/json',
      'X-API-Key': keyA,
    });
    expect(r).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', extras: { field: 'extra' } } });
  });
});

describe('idempotency: security', () => {
  it('scopes keys to the API key: another key with the same Idempotency-Key is a new request', async () => {
    const a = await post({ slug: 'scoped' }, { idem: 'k-scope', key: keyA });
    const b = await post({ slug: 'scoped' }, { idem: 'k-scope', key: keyB });
    expect(b.replayed).toBe(false);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('refuses a write to a publishable key even when its stored scopes were tampered with', async () => {
    const pk = (
      await database.db
        .selectFrom('api_keys')
        .select('publishable_key')
        .where('kind', '=', 'publishable')
        .executeTakeFirstOrThrow()
    ).publishable_key!;
    await database.db
      .updateTable('api_keys')
      .set({ scopes: JSON.stringify(['ADMIN', 'WRITE_SALES']) })
      .where('kind', '=', 'publishable')
      .execute();
    const r = await post({ slug: 'via-pk' }, { key: pk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['READ_PUBLIC'] } });
    expect(await countSlug('via-pk')).toBe(0);
  });

  it('does not consume the key when auth fails', async () => {
    const r = await post({ slug: 'auth' }, { idem: 'k-auth', key: 'sk_live_wrong' });
    expect(r.status).toBe(401);
    const rows = await database.db
      .selectFrom('idempotency_keys')
      .select('idem_key')
      .where('idem_key', '=', 'k-auth')
      .execute();
    expect(rows).toHaveLength(0);
  });
});
