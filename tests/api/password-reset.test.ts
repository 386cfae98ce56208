// Password reset by e-mail, end to end through the mail outbox: ask for a link, read it from the
// outbox as a user reads their inbox, set a new password with it. Raw HTTP so tests control Host
// and Origin (the link must never point where a forged Host says).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmPasswordReset, createPasswordReset } from '../../server/domain/accounts.ts';
import { hashPassword } from '../../server/domain/passwords.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { databaseText } from './support/db-text.ts';
import { outboxTo } from './support/mail.ts';
import { rawRequest, type RawResponse as Raw } from './support/raw-http.ts';
import { newId, nowIso } from '../../server/db/ids.ts';

let server: TestServer;
let port: string;
let ip = 0;
const fromIp = () => ({ 'X-Forwarded-For': `203.0.113.${(++ip % 250) + 1}` });

/** A JSON write from the site's own pages on `host` (default: the platform host). */
const post = (path: string, json: unknown, opts: { host?: string; headers?: Record<string, string> } = {}) => {
  const host = `${opts.host ?? '127.0.0.1'}:${port}`;
  return rawRequest(
    port,
    'POST',
    path,
    { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json', ...fromIp(), ...opts.headers },
    JSON.stringify(json),
  );
};
const get = (path: string, opts: { host?: string; headers?: Record<string, string> } = {}) =>
  rawRequest(port, 'GET', path, { Host: `${opts.host ?? '127.0.0.1'}:${port}`, ...opts.headers });

const outbox = (to?: string) => outboxTo(server, to);

/** The link of the newest reset e-mail to `to`, as the user would click it. */
async function resetLink(to: string): Promise<URL> {
  const [mail] = await outbox(to);
  expect(mail, `no mail to ${to}`).toBeDefined();
  const link = /https?:\/\/\S+\/reset-password\?token=\S+/.exec(mail.text)?.[0];
  expect(link).toBeTruthy();
  return new URL(link!);
}

async function makeAccount(email: string, password = 'old password') {
  const id = newId();
  await server.database.db
    .insertInto('users')
    .values({
      id,
      email,
      name: email.split('@')[0],
      usertag: email.split('@')[0].replace(/[^a-z0-9]/g, '-'),
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: await hashPassword(password),
      created_at: nowIso(),
    })
    .execute();
  return id;
}

const cookieOf = (res: Raw, name: string) =>
  (res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);

beforeAll(async () => {
  server = await startTestServer({
    env: { SVC_TRUST_PROXY: '1' },
    rateLimits: {
      signIn: { failuresPerAccount: 1000, failuresPerIp: 1000, accountWritesPerIp: 1000, emailsPerAddress: 3 },
    },
  });
  port = new URL(server.url).port;
  await makeCommunity(server.database.db, 'club', { name: 'The Club', domains: ['club.example'] });
});

afterAll(async () => {
  await server.close();
});

describe('password reset: happy path', () => {
  it('e-mails a link to the platform, which sets the new password and signs the user in there', async () => {
    const userId = await makeAccount('ada@example.com');
    const asked = await post('/api/auth/password-reset', { email: 'Ada@Example.com' }, { host: 'club.localhost' });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ status: 'accepted' });

    const [mail] = await outbox('ada@example.com');
    expect(mail.subject).toBe('Reset your svc password');
    expect(mail.html).toContain(`href="${server.url}/reset-password`);
    const link = await resetLink('ada@example.com');
    expect(link.origin).toBe(server.url);
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The page the link opens.
    const page = await get(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Choose a new password');
    expect(page.text).not.toContain(token);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(String(page.headers['content-security-policy'])).toMatch(/script-src 'nonce-[^']+'/);

    const done = await post('/api/auth/password-reset/confirm', { token, password: 'new password' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: userId, email: 'ada@example.com' });
    const cookie = cookieOf(done, 'svc_auth');
    expect(cookie).toBeTruthy();
    expect((await get('/api/users/me', { headers: { Cookie: `svc_auth=${cookie}` } })).body.id).toBe(userId);

    expect((await post('/api/auth/sign-in', { email: 'ada@example.com', password: 'new password' })).status).toBe(200);
    expect((await post('/api/auth/sign-in', { email: 'ada@example.com', password: 'old password' })).status).toBe(401);
  });

  it('signs out every session the user had before the reset', async () => {
    const userId = await makeAccount('bo@example.com');
    const { token: before } = await server.sessions.issue(userId);
    expect((await get('/api/users/me', { headers: { Authorization: `Bearer ${before}` } })).status).toBe(200);
    await post('/api/auth/password-reset', { email: 'bo@example.com' });
    const link = await resetLink('bo@example.com');
    expect(link.origin).toBe(server.url);
    const done = await post('/api/auth/password-reset/confirm', {
      token: link.searchParams.get('token'),
      password: 'new password',
    });
    expect(done.status).toBe(200);
    expect((await get('/api/users/me', { headers: { Authorization: `Bearer ${before}` } })).status).toBe(401);
    // The session the reset just made works (it is issued after the revocation, even in the same second).
    expect((await get('/api/users/me', { headers: { Cookie: `svc_auth=${cookieOf(done, 'svc_auth')}` } })).status).toBe(
      200,
    );
  });

  it("never links to the host it was asked on, not even a community's own domain (its operator would get the token)", async () => {
    await makeAccount('cy@example.com');
    await post('/api/auth/password-reset', { email: 'cy@example.com' }, { host: 'club.example' });
    expect((await resetLink('cy@example.com')).origin).toBe(server.url);
    expect((await outbox('cy@example.com'))[0].text).not.toContain('club.example');
  });

  it('serves the page that asks for a link when there is no token', async () => {
    const page = await get('/reset-password', { host: 'club.localhost' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('E-mail me a link');
  });
});

describe('password reset: errors', () => {
  it('refuses an unknown token with 400 RESET_TOKEN_INVALID and the field named', async () => {
    const res = await post('/api/auth/password-reset/confirm', { token: 'A'.repeat(43), password: 'new password' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'RESET_TOKEN_INVALID', extras: { field: 'token' } });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a used token', async () => {
    await makeAccount('used@example.com');
    await post('/api/auth/password-reset', { email: 'used@example.com' });
    const token = (await resetLink('used@example.com')).searchParams.get('token');
    expect((await post('/api/auth/password-reset/confirm', { token, password: 'first new one' })).status).toBe(200);
    const again = await post('/api/auth/password-reset/confirm', { token, password: 'second new one' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('RESET_TOKEN_INVALID');
    expect((await post('/api/auth/sign-in', { email: 'used@example.com', password: 'first new one' })).status).toBe(
      200,
    );
  });

  it('refuses an expired token and leaves the password alone', async () => {
    await makeAccount('late@example.com');
    await post('/api/auth/password-reset', { email: 'late@example.com' });
    const token = (await resetLink('late@example.com')).searchParams.get('token');
    await server.database.db
      .updateTable('password_resets')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    const res = await post('/api/auth/password-reset/confirm', { token, password: 'new password' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('RESET_TOKEN_INVALID');
    expect((await post('/api/auth/sign-in', { email: 'late@example.com', password: 'old password' })).status).toBe(200);
  });

  it('closes every other open link of the user once one is used', async () => {
    await makeAccount('two-links@example.com');
    await post('/api/auth/password-reset', { email: 'two-links@example.com' });
    const first = (await resetLink('two-links@example.com')).searchParams.get('token');
    await post('/api/auth/password-reset', { email: 'two-links@example.com' });
    const second = (await resetLink('two-links@example.com')).searchParams.get('token');
    expect(first).not.toBe(second);
    expect((await post('/api/auth/password-reset/confirm', { token: second, password: 'new password' })).status).toBe(
      200,
    );
    expect((await post('/api/auth/password-reset/confirm', { token: first, password: 'other password' })).status).toBe(
      400,
    );
  });

  it('validates the new password and the body', async () => {
    for (const [body, field] of [
      [{ token: 'x', password: 'short' }, 'password'],
      [{ password: 'long enough' }, 'token'],
      [{ token: 'x', password: 'long enough', extra: 1 }, 'extra'],
    ] as const) {
      const res = await post('/api/auth/password-reset/confirm', body);
      expect(res.status).toBe(400);
      expect(res.body.extras.field).toBe(field);
    }
    const bad = await post('/api/auth/password-reset', { email: 'not an e-mail' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_EMAIL');
  });
});

describe('password reset: security', () => {
  it('answers an unknown e-mail exactly as a known one, and sends nothing', async () => {
    await makeAccount('known@example.com');
    const before = (await outbox()).length;
    const unknown = await post('/api/auth/password-reset', { email: 'nobody@example.com' });
    const known = await post('/api/auth/password-reset', { email: 'known@example.com' });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(known.headers).sort());
    const after = await outbox();
    expect(after).toHaveLength(before + 1);
    expect(after[0].to).toBe('known@example.com');
  });

  it('lets exactly one of several concurrent uses of a token win', async () => {
    await makeAccount('race@example.com');
    await post('/api/auth/password-reset', { email: 'race@example.com' });
    const token = (await resetLink('race@example.com')).searchParams.get('token');
    const results = await Promise.all([
      post('/api/auth/password-reset/confirm', { token, password: 'password one' }),
      post('/api/auth/password-reset/confirm', { token, password: 'password two' }),
      post('/api/auth/password-reset/confirm', { token, password: 'password three' }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400]);
    const winner = ['password one', 'password two', 'password three'][results.findIndex((r) => r.status === 200)];
    expect((await post('/api/auth/sign-in', { email: 'race@example.com', password: winner })).status).toBe(200);
  });

  it('holds single use in SQL: eight concurrent confirmations straight on the database, one wins', async () => {
    await makeAccount('sql-race@example.com');
    const reset = await createPasswordReset(server.database.db, 'SQL-Race@example.com');
    expect(reset).not.toBeNull();
    const hash = await hashPassword('whatever it is');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => confirmPasswordReset(server.database.db, reset!.token, hash)),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it('keeps no usable token in the database: only its hash, and the e-mail in the outbox sealed', async () => {
    await makeAccount('hashed@example.com');
    await post('/api/auth/password-reset', { email: 'hashed@example.com' });
    const token = (await resetLink('hashed@example.com')).searchParams.get('token')!;
    const rows = await server.database.db.selectFrom('password_resets').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.token_hash)).toContain(crypto.createHash('sha256').update(token).digest('base64url'));
    // Not in any column of any table: the outbox keeps the message sealed under a key the database does not hold.
    const everything = await databaseText(server.database);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('/reset-password?token=');
    const stored = await server.database.db
      .selectFrom('mail_outbox')
      .select(['text_body', 'html_body'])
      .where('to_address', '=', 'hashed@example.com')
      .executeTakeFirstOrThrow();
    expect([stored.text_body, stored.html_body]).toEqual([
      expect.stringMatching(/^sealed:v1:/),
      expect.stringMatching(/^sealed:v1:/),
    ]);
    // And the token in the e-mail is the one that works.
    expect((await post('/api/auth/password-reset/confirm', { token, password: 'hashed new password' })).status).toBe(
      200,
    );
  });

  it('never links to the host a forged Host header names', async () => {
    await makeAccount('victim@example.com');
    const forged = await rawRequest(
      port,
      'POST',
      '/api/auth/password-reset',
      {
        Host: 'evil.example',
        Origin: 'http://evil.example',
        'Content-Type': 'application/json',
        ...fromIp(),
      },
      JSON.stringify({ email: 'victim@example.com' }),
    );
    expect(forged.status).toBe(202);
    const [mail] = await outbox('victim@example.com');
    expect(mail.text).not.toContain('evil.example');
    expect((await resetLink('victim@example.com')).origin).toBe(server.url);
  });

  it('refuses a reset request or confirmation from another site', async () => {
    await makeAccount('csrf@example.com');
    const before = (await outbox()).length;
    for (const path of ['/api/auth/password-reset', '/api/auth/password-reset/confirm']) {
      const res = await post(path, { email: 'csrf@example.com' }, { headers: { Origin: 'https://evil.example' } });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CROSS_SITE_REQUEST');
    }
    expect(await outbox()).toHaveLength(before);
  });

  it('sends an address at most its hourly share of e-mails, answering 202 all the same', async () => {
    await makeAccount('flood@example.com');
    for (let i = 0; i < 5; i += 1) {
      const res = await post('/api/auth/password-reset', { email: 'flood@example.com' });
      expect(res.status).toBe(202);
    }
    expect(await outbox('flood@example.com')).toHaveLength(3);
  });

  it('limits reset requests per IP with 429', async () => {
    const limited = await startTestServer({ rateLimits: { signIn: { accountWritesPerIp: 2 } } });
    try {
      const p = new URL(limited.url).port;
      const ask = () =>
        rawRequest(
          p,
          'POST',
          '/api/auth/password-reset',
          {
            Origin: limited.url,
            'Content-Type': 'application/json',
          },
          JSON.stringify({ email: 'someone@example.com' }),
        );
      expect((await ask()).status).toBe(202);
      expect((await ask()).status).toBe(202);
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});
