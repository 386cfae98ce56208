// Cross-cutting behaviour every route shares: the error envelope, request ids, bodies, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;

beforeAll(async () => {
  s = await startTestServer();
  pk = (await makeCommunity(s.database.db, 'acme')).pk;
});
afterAll(async () => { await s.close(); });

function expectEnvelope(r: { status: number; body: any; headers: Headers; text: string }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toMatchObject({ code, requestId: r.headers.get('x-request-id') });
  expect(typeof r.body.error).toBe('string');
  expect(Object.keys(r.body).every((k) => ['error', 'code', 'requestId', 'extras'].includes(k))).toBe(true);
  expect(r.text).not.toMatch(/at .*\.ts:\d+|node_modules|Error: /);
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
    expectEnvelope(await s.request('/v1/nothing', { method: 'POST', json: { blob: 'x'.repeat(2 * 1024 * 1024) } }), 404, 'NOT_FOUND');
  });

  it('answers a path with a broken percent-encoding with a 400 envelope, not a 500', async () => {
    expectEnvelope(await s.request('/v1/communities/acme/events/%E0%A4', { key: pk }), 400, 'INVALID_INPUT');
    expectEnvelope(await s.request('/api/communities/%ZZ'), 400, 'INVALID_INPUT');
  });

  it('answers a write to a read-only path with 405 before reading its body', async () => {
    const r = await s.request('/v1/communities/acme/events', {
      method: 'POST', key: pk, headers: { 'Content-Type': 'application/json' }, body: '{"name": ',
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
