// Adding a phone number to the signed-in account: a code texted to the number, typed back by the
// same user; removing it. Raw HTTP with the sign-in cookie, so each test sets Host, Origin,
// X-Forwarded-For and Cookie exactly as a browser (or a forger) would. The server trusts one
// proxy hop so tests can speak from several client IPs.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0014 from '../../server/db/migrations/0014_sms_purpose.ts';
import { isUniqueViolation } from '../../server/db/index.ts';
import { SMS_CODE_MAX_ATTEMPTS } from '../../server/domain/sms-sign-in.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { openTestDatabase, startTestServer, type TestServer } from './support/harness.ts';
import { clientAddresses, rawClient, type RawOpts as Opts } from './support/raw-http.ts';
import { lastSmsCode, otherThan, smsTexts } from './support/sms.ts';

interface Visitor {
  id: string;
  usertag: string;
  cookie: string;
  host?: string;
}

let server: TestServer;
let c: ReturnType<typeof rawClient>;
const fromIp = clientAddresses();
let phoneSeq = 100;
const newPhone = () => `+1415555${String(++phoneSeq).padStart(4, '0')}`;

/** A new user signed in on the platform host (or on a community's host with `site`). */
async function signedIn(s: TestServer = server, site?: string): Promise<Visitor> {
  const user = await makeUser(s.database.db);
  const { token } = await s.sessions.issue(user.id, Date.now(), undefined, site ?? null);
  return site
    ? { ...user, cookie: `svc_auth_${site}=${token}`, host: `${site}.localhost` }
    : { ...user, cookie: `svc_auth=${token}` };
}

const as = (v: Visitor, headers: Record<string, string> = {}): Opts => ({
  host: v.host,
  headers: { Cookie: v.cookie, ...fromIp(), ...headers },
});
const start = (v: Visitor, phone: string, headers?: Record<string, string>) =>
  c.post('/api/users/me/phone', { phone }, as(v, headers));
const confirm = (v: Visitor, phone: string, code: string, headers?: Record<string, string>) =>
  c.post('/api/users/me/phone/verify', { phone, code }, as(v, headers));
const remove = (v: Visitor) => c.delete('/api/users/me/phone', as(v));
const signInStart = (phone: string) => c.post('/api/auth/sms/start', { phone }, { headers: fromIp() });
const signInVerify = (phone: string, code: string) =>
  c.post('/api/auth/sms/verify', { phone, code }, { headers: fromIp() });

const lastCode = (phone: string, s: TestServer = server) => lastSmsCode(s, phone);
const texts = (phone: string, s: TestServer = server) => smsTexts(s, phone);
const phoneOf = async (userId: string, s: TestServer = server) =>
  (await s.database.db.selectFrom('users').select('phone').where('id', '=', userId).executeTakeFirstOrThrow()).phone;
const codeRows = (phone: string) =>
  server.database.db.selectFrom('sms_codes').selectAll().where('phone', '=', phone).orderBy('created_at').execute();

/** Starts and verifies: the number is the visitor's. */
async function addPhone(v: Visitor, phone: string): Promise<void> {
  expect((await start(v, phone)).status).toBe(202);
  expect((await confirm(v, phone, await lastCode(phone))).status).toBe(200);
}

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

describe('phone: happy path', () => {
  it('texts a code to the number (normalised) without adding it; the code adds it, and GET /api/users/me shows it', async () => {
    const v = await signedIn();
    const phone = newPhone();
    const spaced = `${phone.slice(0, 2)} ${phone.slice(2, 5)}-${phone.slice(5, 8)}-${phone.slice(8)}`;
    const res = await start(v, spaced);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted' });
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(await texts(phone)).toEqual([
      expect.stringMatching(/^Your svc code to add this phone number to your account is \d{6}$/),
    ]);
    expect(await phoneOf(v.id)).toBeNull();

    const ok = await confirm(v, spaced, await lastCode(phone));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: v.id, usertag: v.usertag, phone });
    expect(ok.headers['cache-control']).toBe('private, no-store');
    const me = await c.get('/api/users/me', { headers: { Cookie: v.cookie } });
    expect(me.body.phone).toBe(phone);
  });

  it('makes the number sign in to the account with an SMS code', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    expect((await signInStart(phone)).status).toBe(202);
    const signIn = await signInVerify(phone, await lastCode(phone));
    expect(signIn.status).toBe(200);
    expect(signIn.body.id).toBe(v.id);
  });

  it('e-mails the account owner when a number is added, showing only its last digits', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    const mails = await server.database.db
      .selectFrom('mail_outbox')
      .select(['subject', 'text_body'])
      .where('to_address', '=', `${v.usertag}@example.com`)
      .execute();
    expect(mails).toEqual([expect.objectContaining({ subject: 'A phone number was added to your svc account' })]);
    expect(mails[0].text_body).toContain(phone.slice(-4));
    expect(mails[0].text_body).not.toContain(phone);
  });

  it('replaces the phone the account had: the old number no longer signs in', async () => {
    const v = await signedIn();
    const [first, second] = [newPhone(), newPhone()];
    await addPhone(v, first);
    await addPhone(v, second);
    expect(await phoneOf(v.id)).toBe(second);
    await signInStart(first);
    expect(await texts(first)).toHaveLength(1); // only the verification code: no account has the number now
    await signInStart(second);
    expect((await signInVerify(second, await lastCode(second))).status).toBe(200);
  });

  it('accepts a right code after 4 wrong ones (5 guesses in all)', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    for (let i = 0; i < SMS_CODE_MAX_ATTEMPTS - 1; i += 1)
      expect((await confirm(v, phone, otherThan(code))).status).toBe(400);
    expect((await confirm(v, phone, code)).status).toBe(200);
  });

  it('lets a new start replace the code asked for before, for this number or another', async () => {
    const v = await signedIn();
    const [first, second] = [newPhone(), newPhone()];
    await start(v, first);
    const firstCode = await lastCode(first);
    await start(v, second);
    expect((await confirm(v, first, firstCode)).status).toBe(400);
    expect((await confirm(v, second, await lastCode(second))).status).toBe(200);
    const rows = await server.database.db
      .selectFrom('sms_codes')
      .select(['phone', 'superseded_at', 'used_at', 'purpose'])
      .where('user_id', '=', v.id)
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.purpose === 'VERIFY_PHONE')).toBe(true);
    expect(rows.find((r) => r.phone === first)!.superseded_at).not.toBeNull();
    expect(rows.find((r) => r.phone === second)!.used_at).not.toBeNull();
  });

  it('removes the phone: 200 without it, the number no longer signs in, and another account may add it', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    const res = await remove(v);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: v.id, phone: null });
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(await phoneOf(v.id)).toBeNull();
    expect((await remove(v)).status).toBe(200); // harmless again

    await signInStart(phone);
    expect(await texts(phone)).toHaveLength(1);
    const other = await signedIn();
    await addPhone(other, phone);
    expect(await phoneOf(other.id)).toBe(phone);
  });

  it('voids a sign-in code sent to a number the account removed since', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    await signInStart(phone);
    const code = await lastCode(phone);
    await remove(v);
    expect((await signInVerify(phone, code)).status).toBe(401);
  });
});

describe('phone: errors', () => {
  it('validates the phone and the code with the field named', async () => {
    const v = await signedIn();
    const cases: Array<[string, unknown, string]> = [
      ['/api/users/me/phone', { phone: '4155550123' }, 'phone'],
      ['/api/users/me/phone', { phone: '+1234567' }, 'phone'],
      ['/api/users/me/phone', { phone: '+0415555010' }, 'phone'],
      ['/api/users/me/phone', { phone: '+1 (415) 555-0101' }, 'phone'],
      ['/api/users/me/phone', {}, 'phone'],
      ['/api/users/me/phone', { phone: '+14155550101', userId: v.id }, 'userId'],
      ['/api/users/me/phone/verify', { phone: '+14155550101', code: '12345' }, 'code'],
      ['/api/users/me/phone/verify', { phone: '+14155550101', code: 123456 }, 'code'],
      ['/api/users/me/phone/verify', { code: '123456' }, 'phone'],
    ];
    for (const [path, body, field] of cases) {
      const res = await c.post(path, body, as(v));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.extras.field, JSON.stringify(body)).toBe(field);
    }
    expect(
      await server.database.db.selectFrom('sms_codes').select('id').where('user_id', '=', v.id).execute(),
    ).toHaveLength(0);
  });

  it('refuses a wrong code with 400 PHONE_CODE_INVALID naming the code, and adds nothing', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const res = await confirm(v, phone, otherThan(await lastCode(phone)));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('PHONE_CODE_INVALID');
    expect(res.body.extras.field).toBe('code');
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('refuses a right code sent with another number than the one it was texted to', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const res = await confirm(v, newPhone(), await lastCode(phone));
    expect(res.body.code).toBe('PHONE_CODE_INVALID');
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('refuses an expired code', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    const [row] = await codeRows(phone);
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(10 * 60 * 1000);
    await server.database.db
      .updateTable('sms_codes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', row.id)
      .execute();
    expect((await confirm(v, phone, code)).body.code).toBe('PHONE_CODE_INVALID');
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('kills a code after 5 wrong guesses: then even the right one is refused', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    for (let i = 0; i < SMS_CODE_MAX_ATTEMPTS; i += 1)
      expect((await confirm(v, phone, otherThan(code))).status).toBe(400);
    expect((await confirm(v, phone, code)).body.code).toBe('PHONE_CODE_INVALID');
    const [row] = await codeRows(phone);
    expect(row).toMatchObject({ attempts: SMS_CODE_MAX_ATTEMPTS, used_at: null });
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('uses a code once', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    expect((await confirm(v, phone, code)).status).toBe(200);
    await remove(v);
    expect((await confirm(v, phone, code)).body.code).toBe('PHONE_CODE_INVALID');
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('refuses a number another account has with 409 PHONE_IN_USE, only once the code is right, never saying whose', async () => {
    const holder = await signedIn();
    const phone = newPhone();
    await addPhone(holder, phone);
    const v = await signedIn();
    // The start answers as for any number, and the text goes out: the holder of the number is who
    // proves it, and only they learn it is taken.
    const started = await start(v, phone);
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ status: 'accepted' });
    expect((await confirm(v, phone, '000000')).body.code).toBe('PHONE_CODE_INVALID');
    const refused = await confirm(v, phone, await lastCode(phone));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('PHONE_IN_USE');
    expect(refused.body.extras.field).toBe('phone');
    for (const secret of [holder.id, holder.usertag, `${holder.usertag}@example.com`])
      expect(refused.text).not.toContain(secret);
    expect(await phoneOf(holder.id)).toBe(phone);
    expect(await phoneOf(v.id)).toBeNull();
  });

  it('answers 401 to a visitor who is not signed in, and sends nothing', async () => {
    const phone = newPhone();
    const anonymous = { id: '', usertag: '', cookie: '' };
    for (const res of [
      await start(anonymous, phone),
      await confirm(anonymous, phone, '123456'),
      await remove(anonymous),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('SIGN_IN_REQUIRED');
    }
    expect(await texts(phone)).toEqual([]);
  });
});

describe('phone: security', () => {
  it('never lets a sign-in code add a phone: refused, and the sign-in code still works after', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    await signInStart(phone);
    const signInCode = await lastCode(phone);
    const res = await confirm(v, phone, signInCode);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('PHONE_CODE_INVALID');
    // Not even a guess was spent on it.
    const signInRow = (await codeRows(phone)).find((r) => r.purpose === 'SIGN_IN')!;
    expect(signInRow).toMatchObject({ attempts: 0, used_at: null, superseded_at: null });
    expect((await signInVerify(phone, signInCode)).status).toBe(200);
  });

  it('never lets a phone code sign in: refused, and the phone code still works after', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    // The account re-verifies its own number: the number has an account, so a sign-in would find it.
    await start(v, phone);
    const phoneCode = await lastCode(phone);
    const res = await signInVerify(phone, phoneCode);
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
    const live = (await codeRows(phone)).filter((r) => r.used_at === null && r.superseded_at === null);
    expect(live).toMatchObject([{ purpose: 'VERIFY_PHONE', attempts: 0 }]);
    expect((await confirm(v, phone, phoneCode)).status).toBe(200);
  });

  it('keeps the two kinds of code apart: a sign-in start does not replace a phone code, nor the reverse', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await addPhone(v, phone);
    await start(v, phone);
    const phoneCode = await lastCode(phone);
    await signInStart(phone);
    const signInCode = await lastCode(phone);
    await start(v, newPhone()); // replaces v's phone code only
    expect((await signInVerify(phone, signInCode)).status).toBe(200);
    expect((await confirm(v, phone, phoneCode)).status).toBe(400);
  });

  it('binds a code to the user who asked: another account can neither use it nor spend its guesses nor replace it', async () => {
    const owner = await signedIn();
    const intruder = await signedIn();
    const phone = newPhone();
    await start(owner, phone);
    const code = await lastCode(phone);
    for (let i = 0; i < SMS_CODE_MAX_ATTEMPTS + 1; i += 1)
      expect((await confirm(intruder, phone, code)).body.code).toBe('PHONE_CODE_INVALID');
    expect((await start(intruder, phone)).status).toBe(202);
    const ownerRow = (await codeRows(phone)).find((r) => r.user_id === owner.id)!;
    expect(ownerRow).toMatchObject({ attempts: 0, used_at: null, superseded_at: null });
    expect((await confirm(owner, phone, code)).status).toBe(200);
    expect(await phoneOf(intruder.id)).toBeNull();
  });

  it('stores only an HMAC of the code, bound to its row and number', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    const [row] = await codeRows(phone);
    expect(JSON.stringify(row)).not.toContain(code);
    const key = server.sessions.deriveKey('sms codes v1');
    expect(row.code_hash).toBe(
      crypto.createHmac('sha256', key).update(`${row.id}:${phone}:${code}`).digest('base64url'),
    );
  });

  it('adds the number exactly once when the right code is sent many times at once', async () => {
    const v = await signedIn();
    const phone = newPhone();
    await start(v, phone);
    const code = await lastCode(phone);
    const results = await Promise.all(Array.from({ length: 6 }, () => confirm(v, phone, code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(await phoneOf(v.id)).toBe(phone);
  });

  it('gives a number to exactly one of two accounts verifying it at once; the other gets 409', async () => {
    const [a, b] = [await signedIn(), await signedIn()];
    const phone = newPhone();
    await start(a, phone);
    const codeA = await lastCode(phone);
    await start(b, phone);
    const codeB = await lastCode(phone);
    const results = await Promise.all([confirm(a, phone, codeA), confirm(b, phone, codeB)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const owners = await server.database.db.selectFrom('users').select('id').where('phone', '=', phone).execute();
    expect(owners).toHaveLength(1);
    expect(owners[0].id).toBe(results[0].status === 200 ? a.id : b.id);
  });

  it("a community site's session cannot add, verify or remove a phone: a phone signs in everywhere", async () => {
    const v = await signedIn(server, 'club');
    const phone = newPhone();
    const started = await start(v, phone);
    expect(started.status).toBe(403);
    expect(started.body.code).toBe('PLATFORM_ONLY');
    expect(await texts(phone)).toEqual([]);
    expect((await confirm(v, phone, '123456')).body.code).toBe('PLATFORM_ONLY');
    expect((await remove(v)).body.code).toBe('PLATFORM_ONLY');
  });

  it('a session signed in more than 10 minutes ago must sign in again first', async () => {
    const user = await makeUser(server.database.db);
    const { token } = await server.sessions.issue(user.id, Date.now() - 11 * 60_000, undefined, null);
    const stale: Visitor = { ...user, cookie: `svc_auth=${token}` };
    const phone = newPhone();
    const res = await start(stale, phone);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('REAUTH_REQUIRED');
    expect(await texts(phone)).toEqual([]);
    expect((await remove(stale)).body.code).toBe('REAUTH_REQUIRED');
  });

  const forged: Array<[string, (port: string) => Record<string, string>, number]> = [
    ["another site's Origin", () => ({ Origin: 'https://evil.example' }), 403],
    ['no Origin', () => ({ Origin: '' }), 403],
    ["a sibling community's Origin", (port) => ({ Origin: `http://other.localhost:${port}` }), 403],
    ['Fetch Metadata cross-site', () => ({ 'Sec-Fetch-Site': 'cross-site' }), 403],
    ['a form content type', () => ({ 'Content-Type': 'application/x-www-form-urlencoded' }), 415],
  ];
  for (const [name, headers, status] of forged) {
    it(`refuses cookie writes with ${name}: nothing texted, added or removed`, async () => {
      const v = await signedIn();
      const phone = newPhone();
      const started = await start(v, phone, headers(c.port));
      expect(started.status).toBe(status);
      expect(started.body.code).toBe(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'CROSS_SITE_REQUEST');
      expect(await texts(phone)).toEqual([]);

      // A real code, posted by a forger: refused before it is looked at.
      await start(v, phone);
      const code = await lastCode(phone);
      expect((await confirm(v, phone, code, headers(c.port))).status).toBe(status);
      expect(await phoneOf(v.id)).toBeNull();
      expect((await codeRows(phone))[0]).toMatchObject({ attempts: 0, used_at: null });

      expect((await confirm(v, phone, code)).status).toBe(200);
      const removed = await c.delete('/api/users/me/phone', as(v, headers(c.port)));
      expect(removed.status).toBe(status);
      expect(await phoneOf(v.id)).toBe(phone);
    });
  }
});

describe('phone: rate limits', () => {
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

  const startFrom = (v: Visitor, addr: string, phone: string) =>
    l.post('/api/users/me/phone', { phone }, { headers: { Cookie: v.cookie, 'X-Forwarded-For': addr } });

  it('shares the per-number budget with SMS sign-in: a number gets its hourly texts whichever flow asks', async () => {
    const v = await signedIn(limited);
    const phone = newPhone();
    for (let i = 0; i < 2; i += 1) {
      expect(
        (await l.post('/api/auth/sms/start', { phone }, { headers: { 'X-Forwarded-For': `192.0.2.${i + 1}` } })).status,
      ).toBe(202);
    }
    expect((await startFrom(v, '192.0.2.3', phone)).status).toBe(202);
    const refused = await startFrom(v, '192.0.2.4', phone);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await texts(phone, limited)).toHaveLength(1);
    expect((await startFrom(v, '192.0.2.4', newPhone())).status).toBe(202);
  });

  it('limits starts per IP across numbers', async () => {
    const v = await signedIn(limited);
    const addr = '198.51.100.7';
    for (let i = 0; i < 4; i += 1) expect((await startFrom(v, addr, newPhone())).status).toBe(202);
    const phone = newPhone();
    expect((await startFrom(v, addr, phone)).status).toBe(429);
    expect(await texts(phone, limited)).toEqual([]);
    expect((await startFrom(v, '198.51.100.8', phone)).status).toBe(202);
  });

  it('counts wrong codes in the per-IP sign-in failure budget: then even a right code waits', async () => {
    const v = await signedIn(limited);
    const phone = newPhone();
    expect((await startFrom(v, '198.51.100.20', phone)).status).toBe(202);
    const code = await lastCode(phone, limited);
    const verifyFrom = (addr: string, body: unknown) =>
      l.post('/api/users/me/phone/verify', body, { headers: { Cookie: v.cookie, 'X-Forwarded-For': addr } });
    // Guesses at a number without a code: spend the budget, not the live code's guesses.
    for (let i = 0; i < 5; i += 1)
      expect((await verifyFrom('198.51.100.21', { phone: newPhone(), code: '000000' })).status).toBe(400);
    const refused = await verifyFrom('198.51.100.21', { phone, code });
    expect(refused.status).toBe(429);
    expect(await phoneOf(v.id, limited)).toBeNull();
    expect((await verifyFrom('198.51.100.22', { phone, code })).status).toBe(200);
  });
});

describe('phone: migration 0014_sms_purpose', () => {
  it('makes every code that existed before it a sign-in code, still one live per phone; verification codes one live per user', async () => {
    const t = await openTestDatabase();
    try {
      const db = t.database.db;
      await m0014.down(db);
      const user = await makeUser(db);
      const row = (id: string) => ({
        id,
        phone: '+14155550100',
        user_id: user.id,
        code_hash: 'h',
        created_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 60_000).toISOString(),
        used_at: null,
        superseded_at: null,
      });
      // Written as 0005 wrote them: no purpose.
      await (db as any).insertInto('sms_codes').values(row('00000000-0000-7000-8000-000000000001')).execute();
      await m0014.up(db);
      expect(await db.selectFrom('sms_codes').select(['id', 'purpose']).execute()).toEqual([
        { id: '00000000-0000-7000-8000-000000000001', purpose: 'SIGN_IN' },
      ]);
      const refused = (p: Promise<unknown>) =>
        p.then(
          () => false,
          (err) => isUniqueViolation(err),
        );
      expect(
        await refused(db.insertInto('sms_codes').values(row('00000000-0000-7000-8000-000000000002')).execute()),
      ).toBe(true);
      // A verification code of the same user and number lives beside the sign-in code; a second does not.
      await db
        .insertInto('sms_codes')
        .values({ ...row('00000000-0000-7000-8000-000000000003'), purpose: 'VERIFY_PHONE' })
        .execute();
      expect(
        await refused(
          db
            .insertInto('sms_codes')
            .values({ ...row('00000000-0000-7000-8000-000000000004'), phone: '+14155550199', purpose: 'VERIFY_PHONE' })
            .execute(),
        ),
      ).toBe(true);
    } finally {
      await t.close();
    }
  });
});
