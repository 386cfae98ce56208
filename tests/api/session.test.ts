// Session routes: the sign-in token from cookies or Bearer, its refresh on activity, its binding
// to the site that issued it, and the refusal of cross-site cookie writes (CSRF). Requests go over
// raw HTTP so tests control Host, Origin and Fetch Metadata exactly as a browser would send them.
// Tokens made with server.sessions.issue outside a request are the platform host's (127.0.0.1).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { hashPassword } from '../../server/domain/passwords.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let user: { id: string; usertag: string };
let token: string;
let port: string;

const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  rawRequest(port, method, path, headers, body);

const bio = async () =>
  (await server.database.db.selectFrom('users').select('bio').where('id', '=', user.id).executeTakeFirstOrThrow()).bio;

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  await makeCommunity(server.database.db, 'club');
  await makeCommunity(server.database.db, 'rival', { domains: ['rival.example'] });
  user = await makeUser(server.database.db, 'ada');
  token = (await server.sessions.issue(user.id)).token;
});

afterAll(async () => {
  await server.close();
});

const own = () => `http://127.0.0.1:${port}`;
const write = (headers: Record<string, string>, body = '{"bio":"changed"}') =>
  raw('PATCH', '/api/users/me', { 'Content-Type': 'application/json', ...headers }, body);

describe('session: happy path', () => {
  it('returns the signed-in user with their private fields, to the canonical cookie or a Bearer token', async () => {
    for (const headers of [{ Cookie: `svc_auth=${token}` }, { Authorization: `Bearer ${token}` }] as Array<
      Record<string, string>
    >) {
      const res = await raw('GET', '/api/users/me', headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: user.id, usertag: 'ada', email: 'ada@example.com' });
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('prefers the cookie scoped to the community of the hosted domain', async () => {
    const other = await makeUser(server.database.db, 'bob');
    const { token: adas } = await server.sessions.issue(user.id, Date.now(), undefined, 'club');
    const { token: bobs } = await server.sessions.issue(other.id, Date.now(), undefined, 'club');
    const res = await raw('GET', '/api/users/me', {
      Host: `club.localhost:${port}`,
      Cookie: `svc_auth=${adas}; svc_auth_club=${bobs}`,
    });
    expect(res.body.usertag).toBe('bob');
  });

  it('re-issues a cookie older than a day under the same name, and leaves a fresh one alone', async () => {
    const { token: old } = await server.sessions.issue(user.id, Date.now() - 2 * 24 * 3600_000, undefined, 'club');
    const refreshed = await raw('GET', '/api/users/me', {
      Host: `club.localhost:${port}`,
      Cookie: `svc_auth_club=${old}`,
    });
    expect(refreshed.status).toBe(200);
    const cookie = String(refreshed.headers['set-cookie']);
    expect(cookie).toMatch(/^svc_auth_club=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=259\d{4}; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain(old);
    expect(cookie).not.toMatch(/Domain=/i);
    // The renewed token is still the club's: good there, refused on the platform host.
    const renewed = /svc_auth_club=([^;]+)/.exec(cookie)![1];
    expect(
      (await raw('GET', '/api/users/me', { Host: `club.localhost:${port}`, Authorization: `Bearer ${renewed}` }))
        .status,
    ).toBe(200);
    expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${renewed}` })).status).toBe(401);
    const fresh = await raw('GET', '/api/users/me', { Cookie: `svc_auth=${token}` });
    expect(fresh.headers['set-cookie']).toBeUndefined();
  });

  it("accepts a cookie write from the site's own origin, and a Bearer write from anywhere", async () => {
    const res = await write(
      { Cookie: `svc_auth=${token}`, Origin: own(), 'Sec-Fetch-Site': 'same-origin' },
      '{"bio":"from my page"}',
    );
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
    for (const headers of [
      {},
      { Cookie: 'svc_auth=garbage' },
      { Cookie: `svc_auth=${expired}` },
      { Authorization: `Bearer ${foreign}` },
    ] as Array<Record<string, string>>) {
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
    ["another site's Origin", () => ({ Origin: 'https://evil.example' }), 403],
    ['the Origin "null"', () => ({ Origin: 'null' }), 403],
    ["a sibling community's Origin", () => ({ Origin: `http://other.localhost:${port}` }), 403],
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
    const res = await raw('GET', '/api/users/me', {
      Host: `club.localhost:${port}`,
      Cookie: `svc_auth_other=${token}`,
    });
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
    for (const t of spellings)
      expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${t}` })).status).toBe(200);
    expect(
      (
        await raw(
          'POST',
          '/api/auth/sign-out',
          { Authorization: `Bearer ${mine}`, 'Content-Type': 'application/json' },
          '{}',
        )
      ).status,
    ).toBe(204);
    // ...and none after it.
    for (const t of spellings)
      expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${t}` })).status).toBe(401);
  });

  it('signs out every refreshed copy of a session, not just the token presented', async () => {
    const { token: old } = await server.sessions.issue(user.id, Date.now() - 2 * 24 * 3600_000);
    const refreshed = await raw('GET', '/api/users/me', { Cookie: `svc_auth=${old}` });
    const copy = /svc_auth=([^;]+)/.exec(String(refreshed.headers['set-cookie']))![1];
    expect(copy).not.toBe(old);
    expect(
      (
        await raw(
          'POST',
          '/api/auth/sign-out',
          { Authorization: `Bearer ${old}`, 'Content-Type': 'application/json' },
          '{}',
        )
      ).status,
    ).toBe(204);
    expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${copy}` })).status).toBe(401);
  });

  it("leaves other sessions' expired revocations to the purge, and a session past its 90 days stays refused", async () => {
    // A revoked session whose last token expired yesterday: the purge's, not the sign-out's.
    const sid = crypto.randomUUID();
    const authTime = Math.floor(Date.now() / 1000) - 91 * 24 * 3600;
    await server.database.db
      .insertInto('revoked_tokens')
      .values({
        session_id: sid,
        user_id: user.id,
        expires_at: new Date((authTime + 90 * 24 * 3600) * 1000).toISOString(),
      })
      .execute();
    const { token: mine } = await server.sessions.issue(user.id);
    const signOut = await raw(
      'POST',
      '/api/auth/sign-out',
      { Authorization: `Bearer ${mine}`, 'Content-Type': 'application/json' },
      '{}',
    );
    expect(signOut.status).toBe(204);
    const left = await server.database.db
      .selectFrom('revoked_tokens')
      .select('session_id')
      .where('session_id', '=', sid)
      .execute();
    expect(left).toHaveLength(1);
    // A token of that session, issued at its 90th day, is refused by its own expiry.
    const { token: old } = await server.sessions.issue(user.id, (authTime + 90 * 24 * 3600 - 60) * 1000, {
      sid,
      authTime,
    });
    expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${old}` })).status).toBe(401);
    expect((await raw('GET', '/api/users/me', { Authorization: `Bearer ${mine}` })).status).toBe(401);
  });

  it('never extends a session beyond 90 days after its sign-in, however often it is refreshed', async () => {
    const signedInAt = Math.floor(Date.now() / 1000) - 89 * 24 * 3600;
    const { expiresAt } = await server.sessions.issue(user.id, Date.now(), {
      sid: crypto.randomUUID(),
      authTime: signedInAt,
    });
    expect(expiresAt.getTime()).toBe((signedInAt + 90 * 24 * 3600) * 1000);
  });
});

describe('session: security (tokens bound to their site)', () => {
  const onHost = (host: string, headers: Record<string, string>) =>
    raw('GET', '/api/users/me', { Host: `${host}:${port}`, ...headers });
  /** Every way a token can be presented on `host`. */
  const carriers = (host: string, t: string): Array<Record<string, string>> => [
    { Cookie: `svc_auth=${t}` },
    { Cookie: `svc_auth_${host.replace(/^www\./, '')}=${t}` },
    ...(host === 'club.localhost'
      ? [{ Cookie: `svc_auth_club=${t}` }]
      : host === 'rival.example'
        ? [{ Cookie: `svc_auth_rival=${t}` }]
        : []),
    { Authorization: `Bearer ${t}` },
  ];

  it('binds a token signed in on a community host to that community: refused on another community and on the platform', async () => {
    const email = 'signs-in@example.com';
    const member = await makeUser(server.database.db, 'signs-in');
    await server.database.db
      .updateTable('users')
      .set({ email, password_hash: await hashPassword('correct horse') })
      .where('id', '=', member.id)
      .execute();
    const host = `club.localhost:${port}`;
    const signIn = await raw(
      'POST',
      '/api/auth/sign-in',
      { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
      JSON.stringify({ email, password: 'correct horse' }),
    );
    expect(signIn.status).toBe(200);
    const clubToken = /svc_auth_club=([^;]+)/.exec(String(signIn.headers['set-cookie']))![1];

    for (const headers of carriers('club.localhost', clubToken))
      expect((await onHost('club.localhost', headers)).status).toBe(200);
    for (const headers of carriers('rival.example', clubToken)) {
      const res = await onHost('rival.example', headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.code).toBe('SIGN_IN_REQUIRED');
    }
    for (const headers of carriers('127.0.0.1', clubToken))
      expect((await onHost('127.0.0.1', headers)).status).toBe(401);
  });

  it('refuses a platform token on a community host, cookie or Bearer', async () => {
    expect((await onHost('127.0.0.1', { Authorization: `Bearer ${token}` })).status).toBe(200);
    for (const host of ['club.localhost', 'rival.example']) {
      for (const headers of carriers(host, token))
        expect((await onHost(host, headers)).status, `${host} ${JSON.stringify(headers)}`).toBe(401);
    }
  });
});
