// Cross-cutting behaviour every route shares: the error envelope, request ids, bodies, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawExchange, type RawExchange } from './support/raw-http.ts';

let s: TestServer;
let pk: string;

beforeAll(async () => {
  s = await startTestServer();
  pk = (await makeCommunity(s.database.db, 'acme')).pk;
});
afterAll(async () => {
  await s.close();
});

function expectEnvelope(
  r: { status: number; body: any; headers: Headers; text: string },
  status: number,
  code: string,
) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toMatchObject({ code, requestId: r.headers.get('x-request-id') });
  expect(typeof r.body.error).toBe('string');
  expect(Object.keys(r.body).every((k) => ['error', 'code', 'requestId', 'extras'].includes(k))).toBe(true);
  expect(r.text).not.toMatch(/at .*\.ts:\d+|node_modules|Error: /);
}

const port = () => new URL(s.url).port;

/** The envelope of an answer Node's parser or timeouts produced, written straight to the socket. */
function expectRawEnvelope(r: RawExchange, code: string) {
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(r.body).toEqual({ error: expect.any(String), code, requestId: r.headers['x-request-id'] });
  expect(r.headers.connection).toBe('close');
}

describe('conventions: happy path', () => {
  it('answers /healthz and /readyz with the database reachable', async () => {
    expect((await s.request('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await s.request('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });

  it('puts an X-Request-Id on every response, keeping a safe one the caller sent', async () => {
    const minted = await s.request('/healthz');
    expect(minted.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const kept = await s.request('/healthz', { headers: { 'X-Request-Id': 'trace-1234-abcd' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-1234-abcd');
    const unsafe = await s.request('/healthz', { headers: { 'X-Request-Id': '<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves the OpenAPI document on /openapi.json and /v1/openapi.json, and the reference on /docs', async () => {
    const a = await s.request('/openapi.json');
    const b = await s.request('/v1/openapi.json');
    expect(a.status).toBe(200);
    expect(a.body.openapi).toMatch(/^3\.1\./);
    expect(b.body).toEqual(a.body);
    const docs = await s.request('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(docs.text).toContain('listEvents');
  });
});

describe('conventions: errors', () => {
  it('answers an unknown route with the 404 envelope, even with a 2 MB body', async () => {
    expectEnvelope(await s.request('/nope'), 404, 'NOT_FOUND');
    expectEnvelope(await s.request('/v1/communities/acme/nothing-here', { key: pk }), 404, 'NOT_FOUND');
    expectEnvelope(
      await s.request('/v1/nothing', { method: 'POST', json: { blob: 'x'.repeat(2 * 1024 * 1024) } }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers a path with a broken percent-encoding with a 400 envelope naming the path parameter, not a 500', async () => {
    const slug = await s.request('/v1/communities/acme/events/%E0%A4', { key: pk });
    expectEnvelope(slug, 400, 'INVALID_INPUT');
    expect(slug.body.extras).toEqual({ field: 'slug' });
    const tag = await s.request('/api/communities/%ZZ');
    expectEnvelope(tag, 400, 'INVALID_INPUT');
    expect(tag.body.extras).toEqual({ field: 'communityTag' });
    // Not a route of the contract: the path as a whole is what is wrong.
    const page = await s.request('/checkout/%C3%28');
    expectEnvelope(page, 400, 'INVALID_INPUT');
    expect(page.body.extras).toEqual({ field: 'path' });
  });

  it('answers headers over 16 KB with a 431 envelope and closes the connection', async () => {
    const r = await rawExchange(port(), [
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    ]);
    expect(r.status).toBe(431);
    expectRawEnvelope(r, 'HEADERS_TOO_LARGE');
  });

  it('answers a request that is not HTTP with a 400 envelope', async () => {
    const r = await rawExchange(port(), ['HELLO SERVER\r\n\r\n']);
    expect(r.status).toBe(400);
    expectRawEnvelope(r, 'INVALID_INPUT');
  });

  it('answers a write to a read-only path with 405 before reading its body', async () => {
    const r = await s.request('/v1/communities/acme/events', {
      method: 'POST',
      key: pk,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    expectEnvelope(r, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('conventions: security', () => {
  it('never leaks a stack trace or framework banner', async () => {
    const r = await s.request('/v1/communities/acme/events', { key: pk });
    expect(r.headers.get('x-powered-by')).toBeNull();
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('conventions: timeouts', () => {
  let slow: TestServer;
  let admin: string;
  beforeAll(async () => {
    slow = await startTestServer({ env: { SVC_REQUEST_TIMEOUT_MS: '1000', SVC_HEADERS_TIMEOUT_MS: '500' } });
    const c = await makeCommunity(slow.database.db, 'slow');
    admin = await makeKey(slow.database.db, c.id, ['ADMIN']);
  });
  afterAll(async () => {
    await slow.close();
  });
  const slowPort = () => new URL(slow.url).port;

  it('answers a request whose body stalls with a 408 envelope once SVC_REQUEST_TIMEOUT_MS has passed, and closes it', async () => {
    const head =
      `POST /v1/communities/slow/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${admin}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title": "sta';
    const r = await rawExchange(slowPort(), [head], { waitMs: 5000 });
    expect(r.status).toBe(408);
    expectRawEnvelope(r, 'REQUEST_TIMEOUT');
    // Node checks each second: the answer comes between the timeout and a second after it.
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(r.closedAfterMs).toBeLessThan(3000);
    expect(await slow.database.db.selectFrom('articles').select('id').execute()).toHaveLength(0);
  });

  it('answers headers that never end with a 408 envelope once SVC_HEADERS_TIMEOUT_MS has passed', async () => {
    const r = await rawExchange(slowPort(), ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Trickle: 1\r\n'], {
      gapMs: 200,
      waitMs: 5000,
    });
    expect(r.status).toBe(408);
    expectRawEnvelope(r, 'REQUEST_TIMEOUT');
    expect(r.closedAfterMs).toBeLessThan(3000);
  });

  it('still answers a request sent in pieces within the timeouts', async () => {
    const r = await rawExchange(
      slowPort(),
      ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'Connection: close\r\n\r\n'],
      { gapMs: 200 },
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
});
