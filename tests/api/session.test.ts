// Session routes: the sign-in token from cookies or Bearer, its refresh on activity, and the
// refusal of cross-site cookie writes (CSRF). Requests go over raw HTTP so tests control Host,
// Origin and Fetch Metadata exactly as a browser would send them.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let user: { id: string; usertag: string };
let token: string;
let port: string;

const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => rawRequest(port, method, path, headers, body);

const bio = async () => (await server.database.db.selectFrom('users').select('bio').where('id', '=', user.id).executeTakeFirstOrThrow()).bio;

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  await makeCommunity(server.database.db, 'club');
  user = await makeUser(server.database.db, 'ada');
  token = (await server.sessions.issue(user.id)).token;
});

afterAll(async () => { await server.close(); });

const own = () => `http://127.0.0.1:${port}`;
const write = (headers: Record<string, string>, body = '{"bio":"changed"}') =>
  raw('PATCH', '/api/users/me', { 'Content-Type': 'application/json', ...headers }, body);

describe('session: happy path', () => {
  it('returns the signed-in user with their private fields, to the canonical cookie or a Bearer token', async () => {
    for (const headers of [{ Cookie: `svc_auth=${token}` }, { Authorization: `Bearer ${token}` }] as Array<Record<string, string>>) {
      const res = await raw('GET', '/api/users/me', headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: user.id, usertag: 'ada', email: 'ada@example.com' });
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('prefers the cookie scoped to the community of the hosted domain', async () => {
    const other = await makeUser(server.database.db, 'bob');
    const { token: bobs } = await server.sessions.issue(other.id);
    const res = await raw('GET', '/api/users/me', { Host: `club.localhost:${port}`, Cookie: `svc_auth=${token}; svc_auth_club=${bobs}` });
    expect(res.body.usertag).toBe('bob');
  });

  it('re-issues a cookie older than a day under the same name, and leaves a fresh one alone', async () => {
    const { token: old } = await server.sessions.issue(user.id, Date.now() - 2 * 24 * 3600_000);
    const refreshed = await raw('GET', '/api/users/me', { Host: `club.localhost:${port}`, Cookie: `svc_auth_club=${old}` });
    expect(refreshed.status).toBe(200);
    const cookie = String(refreshed.headers['set-cookie']);
    expect(cookie).toMatch(/^svc_auth_club=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=259\d{4}; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain(old);
    expect(cookie).not.toMatch(/Domain=/i);
    const fresh = await raw('GET', '/api/users/me', { Cookie: `svc_auth=${token}` });
    expect(fresh.headers['set-cookie']).toBeUndefined();
  });

  it('accepts a cookie write from the site\'s own origin, and a Bearer write from anywhere', async () => {
    const res = await write({ Cookie: `svc_auth=${token}`, Origin: own(), 'Sec-Fetch-Site': 'same-origin' }, '{"bio":"from my page"}');
    expect(res.status).toBe(200);
    expect(await bio()).toBe('from my page');
    const api = await write({ Authorization: `Bearer ${token}` }, '{"bio":"from a script"}');
    expect(api.status).toBe(200);
    expect(await bio()).toBe('from a script');
  });
});

describe('session: errors', () => {
  it('answers 401 SIGN_IN_REQUIRED without a token, and with a forged, expired or foreign one', async () => {
    const { token: expired } = await server.sessions.issue(user.id, Date.now() - 31 * 24 * 3600_000);
    const { token: foreign } = await new SessionTokens(crypto.randomBytes(32)).issue(user.id);
    for (const headers of [{}, { Cookie: "svc_auth=garbage" }, { Cookie: `svc_auth=${expired}` }, { Authorization: `Bearer ${foreign}` }] as Array<Record<string, string>>) {
      const res = await raw('GET', '/api/users/me', headers);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'SIGN_IN_REQUIRED', error: 'Sign in to continue' });
    }
  });

  it('rejects an invalid change with the field named, and changes nothing', async () => {
    const before = await bio();
    const res = await write({ Authorization: `Bearer ${token}` }, '{"name":""}');
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('name');
    const unknown = await write({ Authorization: `Bearer ${token}` }, '{"email":"x@example.com"}');
    expect(unknown.status).toBe(400);
    expect(await bio()).toBe(before);
  });
});

describe('session: security (CSRF)', () => {
  // Headers are built when the test runs: the port is known only after the server starts.
  const forged: Array<[string, () => Record<string, string>, number]> = [
    ['no Origin', () => ({}), 403],
    ['another site\'s Origin', () => ({ Origin: 'https://evil.example' }), 403],
    ['the Origin "null"', () => ({ Origin: 'null' }), 403],
    ['a sibling community\'s Origin', () => ({ Origin: `http://other.localhost:${port}` }), 403],
    ['Fetch Metadata cross-site', () => ({ Origin: own(), 'Sec-Fetch-Site': 'cross-site' }), 403],
    ['Fetch Metadata same-site', () => ({ Origin: own(), 'Sec-Fetch-Site': 'same-site' }), 403],
    ['a form content type', () => ({ Origin: own(), 'Content-Type': 'application/x-www-form-urlencoded' }), 415],
    ['a text/plain body', () => ({ Origin: own(), 'Content-Type': 'text/plain' }), 415],
  ];
  for (const [name, headers, status] of forged) {
    it(`refuses a cookie write with ${name} and changes nothing`, async () => {
      const before = await bio();
      const res = await write({ Cookie: `svc_auth=${token}`, ...headers() }, '{"bio":"forged"}');
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'CROSS_SITE_REQUEST');
      expect(await bio()).toBe(before);
    });
  }

  it('never lets a cookie scoped to another community sign a visitor in here', async () => {
    const res = await raw('GET', '/api/users/me', { Host: `club.localhost:${port}`, Cookie: `svc_auth_other=${token}` });
    expect(res.status).toBe(401);
  });

  it('keeps idempotency records per user: the same key from another user is a separate request', async () => {
    const other = await makeUser(server.database.db, 'cy');
    const { token: cys } = await server.sessions.issue(other.id);
    const key = crypto.randomUUID();
    const first = await write({ Authorization: `Bearer ${token}`, 'Idempotency-Key': key }, '{"bio":"once"}');
    const replay = await write({ Authorization: `Bearer ${token}`, 'Idempotency-Key': key }, '{"bio":"once"}');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const theirs = await write({ Authorization: `Bearer ${cys}`, 'Idempotency-Key': key }, '{"bio":"once"}');
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).toBe(other.id);
  });

  it('keeps a signed-out session out however its token is respelled (the last base64url character has spare bits)', async () => {
    const { token: mine } = await server.sessions.issue(user.id);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mine.at(-1)!);
    const spellings = [0, 1, 2, 3].map((k) => mine.slice(0, -1) + alphabet[(last & ~3) | k]);
    // Every spelling verifies before the sign-out (that is what makes this attack possible)...
    for (const t of spellings) expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${t}` })).status).toBe(200);
    expect((await raw('POST', '/api/auth/sign-out', { Authorization: `Bearer ${mine}`, 'Content-Type': 'application/json' }, '{}')).status).toBe(204);
    // ...and none after it.
    for (const t of spellings) expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${t}` })).status).toBe(401);
  });

  it('signs out every refreshed copy of a session, not just the token presented', async () => {
    const { token: old } = await server.sessions.issue(user.id, Date.now() - 2 * 24 * 3600_000);
    const refreshed = await raw('GET', '/api/users/me', { Cookie: `svc_auth=${old}` });
    const copy = /svc_auth=([^;]+)/.exec(String(refreshed.headers['set-cookie']))![1];
    expect(copy).not.toBe(old);
    expect((await raw('POST', '/api/auth/sign-out', { Authorization: `Bearer ${old}`, 'Content-Type': 'application/json' }, '{}')).status).toBe(204);
    expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${copy}` })).status).toBe(401);
  });

  it('never extends a session beyond 90 days after its sign-in, however often it is refreshed', async () => {
    const signedInAt = Math.floor(Date.now() / 1000) - 89 * 24 * 3600;
    const { expiresAt } = await server.sessions.issue(user.id, Date.now(), { sid: crypto.randomUUID(), authTime: signedInAt });
    expect(expiresAt.getTime()).toBe((signedInAt + 90 * 24 * 3600) * 1000);
  });
});
