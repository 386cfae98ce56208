// E-mail + password sign-up, sign-in, sign-out and refresh, and the hosted sign-in page. Raw HTTP,
// so each test sets Host, Origin, X-Forwarded-* and Cookie exactly as a browser (or a forger)
// would. The server trusts one proxy hop so tests can speak from several client IPs and https.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetCommunityCaches } from '../../server/domain/communities.ts';
import { updateCommunitySettings } from '../../server/domain/community-settings.ts';
import { verifyPassword } from '../../server/domain/passwords.ts';
import { SESSION_LIFETIME_SECONDS } from '../../server/domain/sessions.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { outboxTo } from './support/mail.ts';
import { clientAddresses, cookieJar, rawClient, type RawResponse as Raw } from './support/raw-http.ts';

const setCookies = (res: Raw): string[] => res.headers['set-cookie'] ?? [];
const without = (body: any, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));

let server: TestServer;
let c: ReturnType<typeof rawClient>;
const fromIp = clientAddresses();

beforeAll(async () => {
  server = await startTestServer({
    env: { SVC_TRUST_PROXY: '1' },
    rateLimits: {
      signIn: { failuresPerAccount: 1000, failuresPerIp: 1000, accountWritesPerIp: 1000, emailsPerAddress: 1000 },
    },
  });
  c = rawClient(server);
  await makeCommunity(server.database.db, 'club', { name: 'The Club <&>' });
});

afterAll(async () => {
  await server.close();
});

describe('sign-in: happy path', () => {
  it('signs up on the platform host: 201 with the Me shape and the canonical svc_auth cookie', async () => {
    const res = await c.post(
      '/api/auth/sign-up',
      { email: 'Ada@Example.com', password: 'correct horse', name: 'Ada Lovelace' },
      { headers: fromIp() },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      usertag: 'ada-lovelace',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: null,
      profileImage: null,
      bio: null,
      createdAt: expect.any(String),
    });
    expect(res.headers['cache-control']).toBe('private, no-store');
    const cookies = setCookies(res);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(
      new RegExp(
        `^svc_auth=[\\w-]+\\.[\\w-]+\\.[\\w-]+; Path=/; Max-Age=(${SESSION_LIFETIME_SECONDS}|${SESSION_LIFETIME_SECONDS - 1}); HttpOnly; SameSite=Lax$`,
      ),
    );
    const me = await c.get('/api/users/me', { headers: { Cookie: `svc_auth=${cookieJar(res).svc_auth}` } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(res.body.id);
  });

  it("signs up on a community's hosted domain with the scoped cookie svc_auth_<tag>, host-only", async () => {
    const res = await c.post(
      '/api/auth/sign-up',
      { email: 'bo@example.com', password: 'correct horse', name: 'Bo', usertag: 'Bo_99' },
      { host: 'club.localhost', headers: fromIp() },
    );
    expect(res.status).toBe(201);
    expect(res.body.usertag).toBe('bo_99');
    const [cookie] = setCookies(res);
    expect(cookie).toMatch(/^svc_auth_club=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('marks the cookie Secure when the request came over https (X-Forwarded-Proto through the trusted proxy)', async () => {
    const res = await c.post(
      '/api/auth/sign-up',
      { email: 'sec@example.com', password: 'correct horse', name: 'Sec' },
      {
        host: 'club.localhost',
        headers: { ...fromIp(), 'X-Forwarded-Proto': 'https', Origin: c.origin('club.localhost', 'https') },
      },
    );
    expect(res.status).toBe(201);
    expect(setCookies(res)[0]).toMatch(/^svc_auth_club=.*; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('makes a unique usertag from the name when none is given', async () => {
    const a = await c.post(
      '/api/auth/sign-up',
      { email: 'g1@example.com', password: 'correct horse', name: 'Grace Hopper' },
      { headers: fromIp() },
    );
    const b = await c.post(
      '/api/auth/sign-up',
      { email: 'g2@example.com', password: 'correct horse', name: 'Grace Hopper' },
      { headers: fromIp() },
    );
    const x = await c.post(
      '/api/auth/sign-up',
      { email: 'x@example.com', password: 'correct horse', name: '李' },
      { headers: fromIp() },
    );
    expect(a.body.usertag).toBe('grace-hopper');
    expect(b.body.usertag).toMatch(/^grace-hopper-\d{4}$/);
    expect(x.body.usertag).toMatch(/^user-\d{4}$/);
  });

  it('signs in with e-mail (any case) and password: 200, the user, and the cookie of the site', async () => {
    const res = await c.post(
      '/api/auth/sign-in',
      { email: 'ADA@example.COM', password: 'correct horse' },
      { host: 'club.localhost', headers: fromIp() },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ usertag: 'ada-lovelace', email: 'ada@example.com' });
    const jar = cookieJar(res);
    expect(Object.keys(jar)).toEqual(['svc_auth_club']);
    const me = await c.get('/api/users/me', {
      host: 'club.localhost',
      headers: { Cookie: `svc_auth_club=${jar.svc_auth_club}` },
    });
    expect(me.body.usertag).toBe('ada-lovelace');
  });

  it('refreshes: 200 {expiresAt} about 30 days out, and a fresh cookie that works', async () => {
    const { body: user } = await c.post(
      '/api/auth/sign-in',
      { email: 'ada@example.com', password: 'correct horse' },
      { headers: fromIp() },
    );
    const { token } = await server.sessions.issue(user.id, Date.now() - 3600_000, undefined, 'club');
    const res = await c.post('/api/auth/refresh', undefined, {
      host: 'club.localhost',
      headers: { Cookie: `svc_auth_club=${token}` },
    });
    expect(res.status).toBe(200);
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(Math.abs(expiresAt - (Date.now() + SESSION_LIFETIME_SECONDS * 1000))).toBeLessThan(5000);
    const fresh = cookieJar(res).svc_auth_club;
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(token);
    const me = await c.get('/api/users/me', { host: 'club.localhost', headers: { Cookie: `svc_auth_club=${fresh}` } });
    expect(me.status).toBe(200);
  });

  it('signs out: 204, every cookie name of the site expired, and the token no longer accepted', async () => {
    const signIn = await c.post(
      '/api/auth/sign-in',
      { email: 'ada@example.com', password: 'correct horse' },
      { host: 'club.localhost', headers: fromIp() },
    );
    const token = cookieJar(signIn).svc_auth_club;
    const res = await c.post('/api/auth/sign-out', undefined, {
      host: 'club.localhost',
      headers: { Cookie: `svc_auth_club=${token}` },
    });
    expect(res.status).toBe(204);
    const cleared = setCookies(res);
    for (const name of ['svc_auth_club', 'svc_auth', 'svc_auth_club.localhost']) {
      expect(cleared).toContain(`${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
    }
    // Revoked on the server too, not only forgotten by the browser: a copy of it is worthless.
    const again = await c.get('/api/users/me', { headers: { Authorization: `Bearer ${token}` } });
    expect(again.status).toBe(401);
  });

  it('signs out everywhere: every other token of the user stops working; a new sign-in at once works', async () => {
    const first = cookieJar(
      await c.post('/api/auth/sign-in', { email: 'bo@example.com', password: 'correct horse' }, { headers: fromIp() }),
    ).svc_auth;
    const second = cookieJar(
      await c.post('/api/auth/sign-in', { email: 'bo@example.com', password: 'correct horse' }, { headers: fromIp() }),
    ).svc_auth;
    const res = await c.post('/api/auth/sign-out', { everywhere: true }, { headers: { Cookie: `svc_auth=${first}` } });
    expect(res.status).toBe(204);
    expect((await c.get('/api/users/me', { headers: { Authorization: `Bearer ${second}` } })).status).toBe(401);
    const again = await c.post(
      '/api/auth/sign-in',
      { email: 'bo@example.com', password: 'correct horse' },
      { headers: fromIp() },
    );
    const me = await c.get('/api/users/me', { headers: { Cookie: `svc_auth=${cookieJar(again).svc_auth}` } });
    expect(me.status).toBe(200);
  });

  it('lists the sign-in methods on offer: password and SMS, no OAuth yet', async () => {
    const res = await c.get('/api/auth/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ password: true, sms: true, oauth: [] });
  });

  it("serves the hosted sign-in page on the community's domain, under a nonce CSP, returning to a same-site path", async () => {
    const res = await c.get('/sign-in?next=%2Fevents%3Fpast%3Dtrue', { host: 'club.localhost' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Sign in to The Club &lt;&amp;&gt;');
    expect(res.text).toContain('data-next="/events?past=true"');
    const csp = String(res.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    // One inline script; the hosted chrome adds only module files and JSON data (hosted-site-ssr.test.ts).
    expect(res.text.match(/<script(?![^>]* src=|[^>]*type="application\/json")/g)).toHaveLength(1);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    const again = await c.get('/sign-in', { host: 'club.localhost' });
    expect(String(again.headers['content-security-policy'])).not.toContain(nonce!);
  });
});

describe('sign-in: errors', () => {
  it('answers a wrong password and an unknown e-mail identically: 401 INVALID_CREDENTIALS, same message, no cookie', async () => {
    const wrong = await c.post(
      '/api/auth/sign-in',
      { email: 'ada@example.com', password: 'wrong horse' },
      { headers: fromIp() },
    );
    const unknown = await c.post(
      '/api/auth/sign-in',
      { email: 'nobody@example.com', password: 'wrong horse' },
      { headers: fromIp() },
    );
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('INVALID_CREDENTIALS');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(without(wrong.body, 'requestId')).toEqual(without(unknown.body, 'requestId'));
    expect(Object.keys(wrong.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
  });

  it('takes about as long for an unknown e-mail as for a wrong password (scrypt runs either way)', async () => {
    const time = async (email: string) => {
      const t = process.hrtime.bigint();
      await c.post('/api/auth/sign-in', { email, password: 'wrong horse' }, { headers: fromIp() });
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    await time('warmup@example.com');
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      known.push(await time('ada@example.com'));
      unknown.push(await time(`nobody${i}@example.com`));
    }
    // scrypt dominates both; without the dummy hash an unknown e-mail would answer many times faster.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
  });

  it('validates bodies with the field named: e-mail, password length, unknown fields', async () => {
    const cases: Array<[unknown, string, string?]> = [
      [{ email: 'not-an-email', password: 'correct horse', name: 'A' }, 'email', 'INVALID_EMAIL'],
      [{ email: 'a1@example.com', password: 'short', name: 'A' }, 'password'],
      [{ email: 'a1@example.com', password: 'x'.repeat(201), name: 'A' }, 'password'],
      [{ email: 'a1@example.com', password: 'correct horse', name: '' }, 'name'],
      [{ email: 'a1@example.com', password: 'correct horse', name: 'A', usertag: 'no spaces' }, 'usertag'],
      [{ email: 'a1@example.com', password: 'correct horse', name: 'A', admin: true }, 'admin'],
    ];
    for (const [body, field, code] of cases) {
      const res = await c.post('/api/auth/sign-up', body, { headers: fromIp() });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.extras.field).toBe(field);
      expect(res.body.code).toBe(code ?? 'INVALID_INPUT');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const signIn = await c.post('/api/auth/sign-in', { email: 'ada@example.com' }, { headers: fromIp() });
    expect(signIn.status).toBe(400);
    expect(signIn.body.extras.field).toBe('password');
  });

  it('refuses a second account for an e-mail in any case (409 EMAIL_IN_USE), and tells the owner by e-mail', async () => {
    const res = await c.post(
      '/api/auth/sign-up',
      { email: 'ADA@EXAMPLE.COM', password: 'another one', name: 'Impostor' },
      { host: 'club.localhost', headers: fromIp() },
    );
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'EMAIL_IN_USE', extras: { field: 'email' } });
    expect(res.headers['set-cookie']).toBeUndefined();
    const mail = await outboxTo(server, 'ada@example.com');
    expect(mail).toHaveLength(1);
    expect(mail[0].subject).toContain('svc');
    // Links in account e-mails always point at the platform, never at the host the request came to.
    expect(mail[0].text).toContain(`${server.url}/reset-password`);
    expect(mail[0].text).not.toContain('club.localhost');
    expect(mail[0].text).not.toContain('another one');
  });

  it('refuses a usertag that is taken or reserved (409 USERTAG_TAKEN)', async () => {
    for (const usertag of ['ada-lovelace', 'admin']) {
      const res = await c.post(
        '/api/auth/sign-up',
        { email: `${usertag}@new.example`, password: 'correct horse', name: 'N', usertag },
        { headers: fromIp() },
      );
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'USERTAG_TAKEN', extras: { field: 'usertag' } });
    }
  });

  it('answers 401 SIGN_IN_REQUIRED to sign-out and refresh without a valid token', async () => {
    for (const path of ['/api/auth/sign-out', '/api/auth/refresh']) {
      for (const headers of [{}, { Cookie: 'svc_auth=garbage' }] as Array<Record<string, string>>) {
        const res = await c.post(path, undefined, { headers });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('SIGN_IN_REQUIRED');
      }
    }
  });
});

describe('sign-in: security', () => {
  let limited: TestServer;
  let l: ReturnType<typeof rawClient>;

  beforeAll(async () => {
    limited = await startTestServer({
      env: { SVC_TRUST_PROXY: '1' },
      rateLimits: { signIn: { failuresPerAccount: 3, failuresPerIp: 5, accountWritesPerIp: 3, emailsPerAddress: 100 } },
    });
    l = rawClient(limited);
    for (const [i, email] of ['one@example.com', 'two@example.com'].entries()) {
      const res = await l.post(
        '/api/auth/sign-up',
        { email, password: 'correct horse', name: `U ${i}` },
        { headers: { 'X-Forwarded-For': `198.51.100.${i + 1}` } },
      );
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await limited.close();
  });

  const signInFrom = (addr: string, email: string, password: string) =>
    l.post('/api/auth/sign-in', { email, password }, { headers: { 'X-Forwarded-For': addr } });

  it('limits failures per account across IPs: then 429 with Retry-After, even for the right password', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await signInFrom(`192.0.2.${10 + i}`, 'one@example.com', 'wrong')).status).toBe(401);
    const refused = await signInFrom('192.0.2.20', 'one@example.com', 'correct horse');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.extras.retryAfter).toBe(Number(refused.headers['retry-after']));
    expect(refused.headers['set-cookie']).toBeUndefined();
    // Another account is not affected.
    expect((await signInFrom('192.0.2.21', 'two@example.com', 'correct horse')).status).toBe(200);
  });

  it('limits an unknown e-mail the same way (the 429 says nothing about the account)', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await signInFrom(`192.0.2.${30 + i}`, 'ghost@example.com', 'wrong')).status).toBe(401);
    expect((await signInFrom('192.0.2.40', 'ghost@example.com', 'wrong')).status).toBe(429);
  });

  it('limits failures per IP across accounts; successes do not count, other IPs are not affected', async () => {
    const addr = '192.0.2.50';
    expect((await signInFrom(addr, 'two@example.com', 'correct horse')).status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await signInFrom(addr, `spray${i}@example.com`, 'wrong')).status).toBe(401);
    const refused = await signInFrom(addr, 'two@example.com', 'correct horse');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await signInFrom('192.0.2.51', 'two@example.com', 'correct horse')).status).toBe(200);
  });

  it('limits sign-ups per IP', async () => {
    const addr = { 'X-Forwarded-For': '192.0.2.60' };
    for (let i = 0; i < 3; i += 1) {
      expect(
        (
          await l.post(
            '/api/auth/sign-up',
            { email: `new${i}@example.com`, password: 'correct horse', name: 'N' },
            { headers: addr },
          )
        ).status,
      ).toBe(201);
    }
    const refused = await l.post(
      '/api/auth/sign-up',
      { email: 'new9@example.com', password: 'correct horse', name: 'N' },
      { headers: addr },
    );
    expect(refused.status).toBe(429);
  });

  const forged: Array<[string, (port: string) => Record<string, string>, number]> = [
    ["another site's Origin", () => ({ Origin: 'https://evil.example' }), 403],
    ['no Origin', () => ({ Origin: '' }), 403],
    ['the Origin "null"', () => ({ Origin: 'null' }), 403],
    ["a sibling community's Origin", (port) => ({ Origin: `http://other.localhost:${port}` }), 403],
    ['Fetch Metadata cross-site', () => ({ 'Sec-Fetch-Site': 'cross-site' }), 403],
    ['a form content type', () => ({ 'Content-Type': 'application/x-www-form-urlencoded' }), 415],
    ['a text/plain body', () => ({ 'Content-Type': 'text/plain' }), 415],
  ];
  for (const [name, headers, status] of forged) {
    it(`refuses sign-in and sign-up with ${name}, and sets no cookie`, async () => {
      const send = (path: string, body: unknown) =>
        c.post(path, body, { host: 'club.localhost', headers: { ...fromIp(), ...headers(c.port) } });
      const signIn = await send('/api/auth/sign-in', { email: 'ada@example.com', password: 'correct horse' });
      expect(signIn.status).toBe(status);
      expect(signIn.body.code).toBe(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'CROSS_SITE_REQUEST');
      expect(signIn.headers['set-cookie']).toBeUndefined();
      const before = await server.database.db.selectFrom('users').select('id').execute();
      const signUp = await send('/api/auth/sign-up', {
        email: 'forged@example.com',
        password: 'correct horse',
        name: 'F',
      });
      expect(signUp.status).toBe(status);
      expect(signUp.headers['set-cookie']).toBeUndefined();
      expect(await server.database.db.selectFrom('users').select('id').execute()).toHaveLength(before.length);
    });
  }

  it('refuses a cookie sign-out from another origin, and the session survives', async () => {
    const token = cookieJar(
      await c.post('/api/auth/sign-in', { email: 'ada@example.com', password: 'correct horse' }, { headers: fromIp() }),
    ).svc_auth;
    const res = await c.post('/api/auth/sign-out', undefined, {
      headers: { Cookie: `svc_auth=${token}`, Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await c.get('/api/users/me', { headers: { Cookie: `svc_auth=${token}` } })).status).toBe(200);
  });

  it('stores passwords only as scrypt hashes', async () => {
    const users = await server.database.db
      .selectFrom('users')
      .select(['email', 'password_hash'])
      .where('password_hash', 'is not', null)
      .execute();
    expect(users.length).toBeGreaterThan(3);
    for (const u of users) {
      expect(u.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(u.password_hash).not.toContain('correct horse');
    }
    const ada = users.find((u) => u.email === 'ada@example.com')!;
    expect(await verifyPassword('correct horse', ada.password_hash!)).toBe(true);
    // Two users with the same password get different hashes (salted).
    expect(new Set(users.map((u) => u.password_hash)).size).toBe(users.length);
  });

  it("never sends the user elsewhere after signing in: next is a path here, or a URL on the community's own sites", async () => {
    const nextOf = async (next: string) => {
      const res = await c.get(`/sign-in?next=${encodeURIComponent(next)}`, { host: 'club.localhost' });
      return /data-next="([^"]*)"/.exec(res.text)?.[1]?.replaceAll('&amp;', '&');
    };
    for (const next of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example',
      'javascript:alert(1)',
      '\t//evil.example',
      'https://shop.example.evil.example/',
      'https://user:pw@shop.example/',
      'data:text/html,hi',
    ]) {
      expect(await nextOf(next), next).toBe('/');
    }
    expect(await nextOf('/%0a/evil')).toBe('/%0a/evil');
    // The community's own sites (its embed origins and landing URL) are where its widgets' "Sign in" links come from.
    // Written behind the app's back (with an entry no update file could hold): forget what it cached, as an update does.
    await server.database.db
      .updateTable('communities')
      .set({
        embed_origins: JSON.stringify(['https://shop.example', 'not a url']),
        landing_url: 'https://www.club.example/home',
      })
      .where('tag', '=', 'club')
      .execute();
    forgetCommunityCaches(server.database.db);
    expect(await nextOf('https://shop.example/events?x=1&y=2#top')).toBe('https://shop.example/events?x=1&y=2#top');
    expect(await nextOf('https://www.club.example/')).toBe('https://www.club.example/');
    expect(await nextOf(`${c.origin('club.localhost')}/here`)).toBe(`${c.origin('club.localhost')}/here`);
    expect(await nextOf('http://shop.example/')).toBe('/');
    // Only the community's own list counts, and only on its site.
    const platform = await c.get(`/sign-in?next=${encodeURIComponent('https://shop.example/')}`);
    expect(platform.text).toContain('data-next="/"');
  });

  it('resolves next as the browser will, on the platform and on community hosts: what leads to another host ends on /', async () => {
    const hostile = [
      '/.//evil.example/phish',
      '/..//evil.example',
      '/%2e//evil.example',
      '/%2E%2E//evil.example/x',
      '/./\\evil.example',
      '/\t/evil.example',
      'https:\\\\evil.example',
      'https://club.localhost@evil.example/',
      'JAVASCRIPT:alert(1)',
    ];
    for (const host of [undefined, 'club.localhost']) {
      for (const next of hostile) {
        for (const page of ['/sign-in', '/reset-password']) {
          const res = await c.get(`${page}?next=${encodeURIComponent(next)}`, host ? { host } : {});
          expect(res.status).toBe(200);
          expect(/data-next="([^"]*)"/.exec(res.text)?.[1], `${host} ${page} ${next}`).toBe('/');
          // Nowhere on the page: not in the links to the other page, not in a provider's returnTo.
          expect(res.text, `${host} ${page} ${next}`).not.toMatch(/evil\.example|javascript:/i);
        }
      }
    }
  });

  it('hands the browser the normalised URL, never the text it was given', async () => {
    const update = await updateCommunitySettings(server.database.db, 'club', {
      embedOrigins: ['https://shop.example'],
    });
    expect(update?.applied).toBe(true);
    const nextOf = async (next: string) => {
      const res = await c.get(`/sign-in?next=${encodeURIComponent(next)}`, { host: 'club.localhost' });
      return /data-next="([^"]*)"/.exec(res.text)?.[1]?.replaceAll('&amp;', '&');
    };
    // The change above is seen at once: updateCommunitySettings forgets this process's caches.
    expect(await nextOf('HTTPS://SHOP.EXAMPLE:443/a/../events')).toBe('https://shop.example/events');
    expect(await nextOf('https://shop.example\\@evil.example/')).toBe('https://shop.example/@evil.example/');
    expect(await nextOf('/a/./b/../c?x=1')).toBe('/a/c?x=1');
    expect(await updateCommunitySettings(server.database.db, 'club', { embedOrigins: [] })).toMatchObject({
      applied: true,
    });
    expect(await nextOf('https://shop.example/events')).toBe('/');
  });
});
