// Phone + 6-digit SMS code sign-in: start, read the code from the outbox, verify, cookie. Raw HTTP,
// so each test sets Host, Origin, X-Forwarded-For and Cookie exactly as a browser (or a forger)
// would. The server trusts one proxy hop so tests can speak from several client IPs.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMS_CODE_MAX_ATTEMPTS } from '../../server/domain/sms-sign-in.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { clientAddresses, cookieJar, rawClient, type RawOpts, type RawResponse as Raw } from './support/raw-http.ts';
import { databaseText } from './support/db-text.ts';
import { lastSmsCode, otherThan, smsTexts } from './support/sms.ts';

const without = (body: any, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));
/** Response headers that may differ between any two answers (timing, ids). */
const headerNames = (res: Raw) =>
  Object.keys(res.headers)
    .filter((h) => !['date', 'x-request-id'].includes(h))
    .sort();

let server: TestServer;
let c: ReturnType<typeof rawClient>;
const fromIp = clientAddresses();
let phoneSeq = 100;
/** A user with a fresh phone number (E.164). */
async function userWithPhone(s: TestServer = server): Promise<{ id: string; usertag: string; phone: string }> {
  const phone = `+1415555${String(++phoneSeq).padStart(4, '0')}`;
  const user = await makeUser(s.database.db);
  await s.database.db.updateTable('users').set({ phone }).where('id', '=', user.id).execute();
  return { ...user, phone };
}

const lastCode = (phone: string, s: TestServer = server) => lastSmsCode(s, phone);

const start = (phone: string, opts: RawOpts = {}) =>
  c.post('/api/auth/sms/start', { phone }, { ...opts, headers: { ...fromIp(), ...opts.headers } });
const verify = (phone: string, code: string, opts: RawOpts = {}) =>
  c.post('/api/auth/sms/verify', { phone, code }, { ...opts, headers: { ...fromIp(), ...opts.headers } });

beforeAll(async () => {
  server = await startTestServer({
    env: { SVC_TRUST_PROXY: '1' },
    rateLimits: { signIn: { failuresPerIp: 1000, smsStartsPerPhone: 1000, smsStartsPerIp: 1000 } },
  });
  c = rawClient(server);
  await makeCommunity(server.database.db, 'club', { name: 'The Club' });
});
afterAll(async () => {
  await server.close();
});

describe('SMS sign-in: happy path', () => {
  it('lists SMS among the sign-in methods', async () => {
    const res = await c.get('/api/auth/providers');
    expect(res.body).toEqual({ password: true, sms: true, oauth: [] });
  });

  it('texts a code (normalising the number), and the code signs in: 200, the user, the cookie of the site', async () => {
    const user = await userWithPhone();
    const spaced = `${user.phone.slice(0, 2)} ${user.phone.slice(2, 5)}-${user.phone.slice(5, 8)}-${user.phone.slice(8)}`;
    const res = await start(spaced, { host: 'club.localhost' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted' });
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    const sms = await server.database.db
      .selectFrom('sms_outbox')
      .selectAll()
      .where('to_number', '=', user.phone)
      .execute();
    expect(sms).toHaveLength(1);
    expect(await smsTexts(server, user.phone)).toEqual([expect.stringMatching(/^Your The Club code is \d{6}$/)]);
    expect(sms[0].sent_at).toBeNull();

    const ok = await verify(spaced, await lastCode(user.phone), { host: 'club.localhost' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: user.id, usertag: user.usertag, phone: user.phone });
    expect(ok.headers['cache-control']).toBe('private, no-store');
    const [cookie] = ok.headers['set-cookie']!;
    expect(cookie).toMatch(/^svc_auth_club=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const me = await c.get('/api/users/me', {
      host: 'club.localhost',
      headers: { Cookie: `svc_auth_club=${cookieJar(ok).svc_auth_club}` },
    });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it("names the platform as svc off a community's domain, and sets svc_auth there", async () => {
    const user = await userWithPhone();
    expect((await start(user.phone)).status).toBe(202);
    expect(await smsTexts(server, user.phone)).toEqual([expect.stringMatching(/^Your svc code is \d{6}$/)]);
    const ok = await verify(user.phone, await lastCode(user.phone));
    expect(ok.status).toBe(200);
    expect(Object.keys(cookieJar(ok))).toEqual(['svc_auth']);
  });

  it('accepts a right code after 4 wrong ones (5 guesses in all)', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    for (let i = 0; i < SMS_CODE_MAX_ATTEMPTS - 1; i += 1)
      expect((await verify(user.phone, otherThan(code))).status).toBe(401);
    expect((await verify(user.phone, code)).status).toBe(200);
  });

  it('lets a new start supersede the code sent before', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const first = await lastCode(user.phone);
    await new Promise((r) => setTimeout(r, 2));
    await start(user.phone);
    const second = await lastCode(user.phone);
    if (first !== second) expect((await verify(user.phone, first)).status).toBe(401);
    expect((await verify(user.phone, second)).status).toBe(200);
    const live = await server.database.db
      .selectFrom('sms_codes')
      .select(['used_at', 'superseded_at'])
      .where('phone', '=', user.phone)
      .execute();
    expect(live.filter((r) => r.superseded_at !== null)).toHaveLength(1);
    expect(live.filter((r) => r.used_at !== null)).toHaveLength(1);
  });
});

describe('SMS sign-in: errors', () => {
  it('validates the phone and the code with the field named', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/auth/sms/start', { phone: '4155550123' }, 'phone'], // no +: the country is unknown
      ['/api/auth/sms/start', { phone: '+1234567' }, 'phone'], // 7 digits
      ['/api/auth/sms/start', { phone: '+1234567890123456' }, 'phone'], // 16 digits
      ['/api/auth/sms/start', { phone: '+0415555010' }, 'phone'], // no country code starts with 0
      ['/api/auth/sms/start', { phone: '+1 (415) 555-0101' }, 'phone'], // only spaces and dashes are ignored
      ['/api/auth/sms/start', { phone: '+1415555O101' }, 'phone'],
      ['/api/auth/sms/start', { phone: '+14155550101', email: 'x@example.com' }, 'email'],
      ['/api/auth/sms/start', {}, 'phone'],
      ['/api/auth/sms/verify', { phone: '+14155550101', code: '12345' }, 'code'],
      ['/api/auth/sms/verify', { phone: '+14155550101', code: '1234567' }, 'code'],
      ['/api/auth/sms/verify', { phone: '+14155550101', code: 123456 }, 'code'],
      ['/api/auth/sms/verify', { phone: '+14155550101' }, 'code'],
    ];
    for (const [path, body, field] of cases) {
      const res = await c.post(path, body, { headers: fromIp() });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.extras.field, JSON.stringify(body)).toBe(field);
    }
  });

  it('kills a code after 5 wrong guesses: then even the right one is refused', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    for (let i = 0; i < SMS_CODE_MAX_ATTEMPTS; i += 1) {
      const res = await verify(user.phone, otherThan(code));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('INVALID_CREDENTIALS');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await verify(user.phone, code)).status).toBe(401);
    const row = await server.database.db
      .selectFrom('sms_codes')
      .select(['attempts', 'used_at'])
      .where('phone', '=', user.phone)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ attempts: SMS_CODE_MAX_ATTEMPTS, used_at: null });
  });

  it('refuses an expired code with the same 401', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    await server.database.db
      .updateTable('sms_codes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('phone', '=', user.phone)
      .execute();
    const res = await verify(user.phone, code);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_CREDENTIALS');
  });

  it('refuses a code long expired but not yet purged, which a later start leaves to the purge', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    // Two days past its expiry: the purge (1 day past expiry) would take it, but has not run.
    await server.database.db
      .updateTable('sms_codes')
      .set({ expires_at: new Date(Date.now() - 2 * 24 * 3600_000).toISOString() })
      .where('phone', '=', user.phone)
      .execute();
    // Another phone's start deletes nothing of it (requests no longer clean up; the purge does).
    await start((await userWithPhone()).phone);
    const left = () =>
      server.database.db.selectFrom('sms_codes').select('id').where('phone', '=', user.phone).execute();
    expect(await left()).toHaveLength(1);
    const res = await verify(user.phone, code);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_CREDENTIALS');
    expect(await left()).toHaveLength(1);
  });

  it('expires codes after 10 minutes', async () => {
    const user = await userWithPhone();
    const before = Date.now();
    await start(user.phone);
    const row = await server.database.db
      .selectFrom('sms_codes')
      .select(['created_at', 'expires_at'])
      .where('phone', '=', user.phone)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(10 * 60 * 1000);
    expect(Date.parse(row.created_at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('uses a code once: a second verify is refused', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    expect((await verify(user.phone, code)).status).toBe(200);
    expect((await verify(user.phone, code)).status).toBe(401);
  });

  it('refuses a code once the phone belongs to another account', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    await server.database.db.updateTable('users').set({ phone: null }).where('id', '=', user.id).execute();
    const other = await makeUser(server.database.db);
    await server.database.db.updateTable('users').set({ phone: user.phone }).where('id', '=', other.id).execute();
    expect((await verify(user.phone, code)).status).toBe(401);
  });
});

describe('SMS sign-in: security', () => {
  it('signs in exactly once when the right code is sent many times at once', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    const results = await Promise.all(Array.from({ length: 8 }, () => verify(user.phone, code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
    expect(results.filter((r) => r.headers['set-cookie'])).toHaveLength(1);
  });

  it('keeps one live code per phone when starts come at once, and a code that was sent signs in', async () => {
    const user = await userWithPhone();
    const results = await Promise.all(Array.from({ length: 6 }, () => start(user.phone)));
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const live = await server.database.db
      .selectFrom('sms_codes')
      .select('id')
      .where('phone', '=', user.phone)
      .where('used_at', 'is', null)
      .where('superseded_at', 'is', null)
      .execute();
    expect(live).toHaveLength(1);
    const sent = await smsTexts(server, user.phone);
    expect(sent).toHaveLength(6);
    // Exactly one of the codes sent is the live one (guessing through them would spend its 5 attempts).
    const row = await server.database.db
      .selectFrom('sms_codes')
      .select(['id', 'code_hash'])
      .where('id', '=', live[0].id)
      .executeTakeFirstOrThrow();
    const key = server.sessions.deriveKey('sms codes v1');
    const codes = sent.map((text) => /(\d{6})$/.exec(text)![1]);
    const matching = codes.filter(
      (code) =>
        crypto.createHmac('sha256', key).update(`${row.id}:${user.phone}:${code}`).digest('base64url') ===
        row.code_hash,
    );
    expect(matching.length).toBeGreaterThanOrEqual(1);
    expect((await verify(user.phone, matching[0])).status).toBe(200);
  });

  it('allows no more than 5 guesses even when they come at once', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    const results = await Promise.all(Array.from({ length: 12 }, () => verify(user.phone, otherThan(code))));
    expect(results.every((r) => r.status === 401)).toBe(true);
    const row = await server.database.db
      .selectFrom('sms_codes')
      .select('attempts')
      .where('phone', '=', user.phone)
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(SMS_CODE_MAX_ATTEMPTS);
    expect((await verify(user.phone, code)).status).toBe(401);
  });

  it('answers a phone without an account exactly like one with: 202, then a 401 like a wrong code, and sends nothing', async () => {
    const user = await userWithPhone();
    const known = await start(user.phone);
    const unknown = await start('+14155559999');
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect(headerNames(unknown)).toEqual(headerNames(known));
    expect(
      await server.database.db.selectFrom('sms_outbox').select('id').where('to_number', '=', '+14155559999').execute(),
    ).toHaveLength(0);
    expect(
      await server.database.db.selectFrom('sms_codes').select('id').where('phone', '=', '+14155559999').execute(),
    ).toHaveLength(0);

    const wrong = await verify(user.phone, otherThan(await lastCode(user.phone)));
    const nobody = await verify('+14155559999', '123456');
    for (const res of [wrong, nobody]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('INVALID_CREDENTIALS');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(without(nobody.body, 'requestId')).toEqual(without(wrong.body, 'requestId'));
    expect(headerNames(nobody)).toEqual(headerNames(wrong));
  });

  it('never stores a code in plain text: only an HMAC under a server key, bound to the row and phone', async () => {
    const user = await userWithPhone();
    await start(user.phone);
    const code = await lastCode(user.phone);
    const row = await server.database.db
      .selectFrom('sms_codes')
      .selectAll()
      .where('phone', '=', user.phone)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row.code_hash).toMatch(/^[\w-]{43}$/);
    expect(row.code_hash).not.toBe(crypto.createHash('sha256').update(code).digest('base64url'));
    const key = server.sessions.deriveKey('sms codes v1');
    expect(row.code_hash).toBe(
      crypto.createHmac('sha256', key).update(`${row.id}:${user.phone}:${code}`).digest('base64url'),
    );
  });

  it('keeps no usable code in the database: the text in the SMS outbox is sealed, and the code it carries signs in', async () => {
    const user = await userWithPhone();
    await start(user.phone, { host: 'club.localhost' });
    const code = await lastCode(user.phone);
    expect(await databaseText(server.database)).not.toContain(`code is ${code}`);
    const sent = await server.database.db
      .selectFrom('sms_outbox')
      .select('text_body')
      .where('to_number', '=', user.phone)
      .executeTakeFirstOrThrow();
    expect(sent.text_body).toMatch(/^sealed:v1:/);
    expect(sent.text_body).not.toContain(code);
    expect((await verify(user.phone, code, { host: 'club.localhost' })).status).toBe(200);
  });

  const forged: Array<[string, (port: string) => Record<string, string>, number]> = [
    ["another site's Origin", () => ({ Origin: 'https://evil.example' }), 403],
    ['no Origin', () => ({ Origin: '' }), 403],
    ["a sibling community's Origin", (port) => ({ Origin: `http://other.localhost:${port}` }), 403],
    ['Fetch Metadata cross-site', () => ({ 'Sec-Fetch-Site': 'cross-site' }), 403],
    ['a form content type', () => ({ 'Content-Type': 'application/x-www-form-urlencoded' }), 415],
  ];
  for (const [name, headers, status] of forged) {
    it(`refuses start and verify with ${name}: nothing sent, no cookie`, async () => {
      const user = await userWithPhone();
      const send = (path: string, body: unknown) =>
        c.post(path, body, { host: 'club.localhost', headers: { ...fromIp(), ...headers(c.port) } });
      const started = await send('/api/auth/sms/start', { phone: user.phone });
      expect(started.status).toBe(status);
      expect(started.body.code).toBe(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'CROSS_SITE_REQUEST');
      expect(
        await server.database.db.selectFrom('sms_outbox').select('id').where('to_number', '=', user.phone).execute(),
      ).toHaveLength(0);
      // A real code, posted by a forger: still refused before it is looked at.
      await start(user.phone, { host: 'club.localhost' });
      const code = await lastCode(user.phone);
      const verified = await send('/api/auth/sms/verify', { phone: user.phone, code });
      expect(verified.status).toBe(status);
      expect(verified.headers['set-cookie']).toBeUndefined();
      const row = await server.database.db
        .selectFrom('sms_codes')
        .select(['attempts', 'used_at'])
        .where('phone', '=', user.phone)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ attempts: 0, used_at: null });
    });
  }
});

describe('SMS sign-in: rate limits', () => {
  let limited: TestServer;
  let l: ReturnType<typeof rawClient>;

  beforeAll(async () => {
    limited = await startTestServer({
      env: { SVC_TRUST_PROXY: '1' },
      rateLimits: { signIn: { smsStartsPerPhone: 3, smsStartsPerIp: 4, failuresPerIp: 5 } },
    });
    l = rawClient(limited);
  });
  afterAll(async () => {
    await limited.close();
  });

  const startFrom = (addr: string, phone: string) =>
    l.post('/api/auth/sms/start', { phone }, { headers: { 'X-Forwarded-For': addr } });

  it('limits starts per phone across IPs, the same for a phone with or without an account', async () => {
    const user = await userWithPhone(limited);
    for (const phone of [user.phone, '+14155558888']) {
      for (let i = 0; i < 3; i += 1) expect((await startFrom(`192.0.2.${i + 1}`, phone)).status).toBe(202);
      const refused = await startFrom('192.0.2.9', phone);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.extras.retryAfter).toBe(Number(refused.headers['retry-after']));
    }
    expect(
      await limited.database.db.selectFrom('sms_outbox').select('id').where('to_number', '=', user.phone).execute(),
    ).toHaveLength(3);
    // Another phone is not affected.
    expect((await startFrom('192.0.2.9', '+14155557777')).status).toBe(202);
  });

  it('limits starts per IP across phones; other IPs are not affected', async () => {
    const addr = '198.51.100.7';
    for (let i = 0; i < 4; i += 1) expect((await startFrom(addr, `+1415555600${i}`)).status).toBe(202);
    const refused = await startFrom(addr, '+14155556009');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await startFrom('198.51.100.8', '+14155556009')).status).toBe(202);
  });

  it('counts wrong codes in the per-IP sign-in failure budget: then even a right code waits', async () => {
    const user = await userWithPhone(limited);
    expect((await startFrom('198.51.100.20', user.phone)).status).toBe(202);
    const code = await lastCode(user.phone, limited);
    const addr = { 'X-Forwarded-For': '198.51.100.21' };
    for (let i = 0; i < 5; i += 1)
      expect(
        (await l.post('/api/auth/sms/verify', { phone: '+14155550000', code: '000000' }, { headers: addr })).status,
      ).toBe(401);
    const refused = await l.post('/api/auth/sms/verify', { phone: user.phone, code }, { headers: addr });
    expect(refused.status).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(
      (
        await l.post(
          '/api/auth/sms/verify',
          { phone: user.phone, code },
          { headers: { 'X-Forwarded-For': '198.51.100.22' } },
        )
      ).status,
    ).toBe(200);
  });
});
