// HTTPS as SVC_PUBLIC_URL declares it. TLS ends at a proxy in front of svc, so requests reach the
// server over plain http: with an https public URL every cookie is still Secure (platform host,
// `<tag>.localhost` and a community's own domain alike) and every answer carries HSTS; with an
// http public URL (development) neither, unless the request itself came over https.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HSTS_VALUE } from '../../server/http/transport-security.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { cookieJar, rawClient, type RawResponse as Raw } from './support/raw-http.ts';

const setCookies = (res: Raw): string[] => res.headers['set-cookie'] ?? [];
const DAY_MS = 86_400_000;

interface Deployment {
  server: TestServer;
  c: ReturnType<typeof rawClient>;
}

/** A deployment with Google sign-in configured (its issuer is never reached: only the cookies matter here). */
async function deployment(publicUrl?: string): Promise<Deployment> {
  const server = await startTestServer({
    publicUrl,
    env: {
      SVC_OAUTH_GOOGLE_CLIENT_ID: 'id',
      SVC_OAUTH_GOOGLE_CLIENT_SECRET: 'secret',
      SVC_OAUTH_GOOGLE_ISSUER: 'http://127.0.0.1:9',
    },
  });
  await makeCommunity(server.database.db, 'club', { name: 'The Club', domains: ['club.example'] });
  return { server, c: rawClient(server) };
}

/** Every Set-Cookie the sign-in flows produce, on the platform host and on both kinds of community host. */
async function cookiesOfEveryFlow({ server, c }: Deployment, email: string): Promise<string[]> {
  const seen: string[] = [];
  const keep = (res: Raw) => {
    seen.push(...setCookies(res));
    return res;
  };
  const platform = keep(await c.post('/api/auth/sign-up', { email, password: 'correct horse', name: 'Ada' }));
  expect(platform.status).toBe(201);
  for (const host of ['club.localhost', 'club.example']) {
    const signedIn = keep(await c.post('/api/auth/sign-in', { email, password: 'correct horse' }, { host }));
    expect(signedIn.status).toBe(200);
    const cookie = { Cookie: `svc_auth_club=${cookieJar(signedIn).svc_auth_club}` };
    expect(keep(await c.post('/api/auth/refresh', undefined, { host, headers: cookie })).status).toBe(200);
    expect(keep(await c.post('/api/auth/sign-out', undefined, { host, headers: cookie })).status).toBe(204);
    // The OAuth handoff's binding cookie is set on the community's host before the provider is reached.
    expect(keep(await c.get('/api/auth/oauth/google/start?returnTo=/', { host })).status).toBe(302);
  }
  // A cookie more than a day old is renewed by any signed-in request.
  const old = await server.sessions.issue(platform.body.id, Date.now() - 2 * DAY_MS);
  const renewed = keep(await c.get('/api/users/me', { headers: { Cookie: `svc_auth=${old.token}` } }));
  expect(renewed.status).toBe(200);
  expect(setCookies(renewed)).toHaveLength(1);
  // The flow cookie is expired by the callback whatever happens next.
  expect(keep(await c.get('/api/auth/oauth/google/callback?state=x&code=y')).status).toBe(302);
  return seen;
}

let https: Deployment;
let http: Deployment;

beforeAll(async () => {
  [https, http] = await Promise.all([deployment('https://svc.example'), deployment()]);
});
afterAll(async () => {
  await Promise.all([https.server.close(), http.server.close()]);
});

describe('transport security: happy path', () => {
  it('with an http public URL over plain http, sets no cookie Secure and sends no HSTS', async () => {
    const cookies = await cookiesOfEveryFlow(http, 'plain@example.com');
    expect(cookies.length).toBeGreaterThanOrEqual(12);
    for (const cookie of cookies) expect(cookie).not.toMatch(/;\s*Secure/i);
    for (const path of ['/healthz', '/v1/communities/club/events', '/sign-in', '/no-such-page']) {
      expect((await http.c.get(path)).headers['strict-transport-security']).toBeUndefined();
    }
  });
});

describe('transport security: security', () => {
  it('with an https public URL, marks every cookie Secure even over plain http from the proxy, on every host', async () => {
    const cookies = await cookiesOfEveryFlow(https, 'tls@example.com');
    const names = new Set(cookies.map((c) => c.split('=')[0]));
    expect(names).toEqual(
      new Set([
        'svc_auth',
        'svc_auth_club',
        'svc_auth_club.localhost',
        'svc_auth_club.example',
        'svc_oauth_bind',
        'svc_oauth_google',
      ]),
    );
    for (const cookie of cookies) expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('with an https public URL, sends Strict-Transport-Security on every answer: API, pages, errors, on every host', async () => {
    const answers = [
      await https.c.get('/healthz'),
      await https.c.get('/v1/communities/club/events'),
      await https.c.get('/sign-in', { host: 'club.example' }),
      await https.c.get('/api/communities/club', { host: 'club.localhost' }),
      await https.c.get('/no-such-page'),
      await https.c.post('/api/auth/sign-in', { email: 'nobody@example.com' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 200, 200, 404, 400]);
    for (const res of answers) expect(res.headers['strict-transport-security']).toBe(HSTS_VALUE);
    expect(HSTS_VALUE).toBe('max-age=31536000');
  });
});
