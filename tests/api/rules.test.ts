import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { makeCommunity, makeKey, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let communityId: string;
let pk: string;
let writer: string;
let otherWriter: string;
const user: Record<string, string> = {};
const CURRENT = 3;

const accept = (json: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  s.request('/v1/communities/guild/rules/accept', {
    key: init.key ?? writer,
    method: 'POST',
    json,
    headers: init.headers,
  });

const acceptances = (userId: string) =>
  s.database.db
    .selectFrom('rules_acceptances')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .orderBy('rules_version')
    .execute();

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'guild');
  communityId = c.id;
  pk = c.pk;
  await db.updateTable('communities').set({ rules_version: CURRENT }).where('id', '=', c.id).execute();
  writer = await makeKey(db, c.id, ['WRITE_MEMBERS']);
  for (const [tag, status] of [
    ['ada', 'ACCEPTED'],
    ['ben', 'ACCEPTED'],
    ['cy', 'ACCEPTED'],
    ['pat', 'PENDING'],
    ['rex', 'REJECTED'],
    ['bo', 'BANNED'],
  ] as const) {
    user[tag] = (await makeUser(db, tag)).id;
    await makeMembership(db, c.id, user[tag], status);
  }
  user.stranger = (await makeUser(db, 'stranger')).id;

  const other = await makeCommunity(db, 'other-guild');
  otherWriter = await makeKey(db, other.id, ['WRITE_MEMBERS']);
  user.outsider = (await makeUser(db, 'outsider')).id;
  await makeMembership(db, other.id, user.outsider, 'ACCEPTED');
});
afterAll(async () => {
  await s.close();
});

describe('rules: happy', () => {
  it('records the acceptance of the current version for a member named by userId', async () => {
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, rulesVersion: CURRENT, userId: user.ada, acceptedAt: expect.any(String) });
    const rows = await acceptances(user.ada);
    expect(rows).toEqual([
      { community_id: communityId, user_id: user.ada, rules_version: CURRENT, accepted_at: r.body.acceptedAt },
    ]);
  });

  it('identifies the member by a sign-in token in X-Svc-Auth-Token', async () => {
    const { token } = await s.sessions.issue(user.ben);
    const r = await accept({ rulesVersion: CURRENT }, { headers: { 'X-Svc-Auth-Token': token } });
    expect(r.status).toBe(200);
    expect(r.body.userId).toBe(user.ben);
    expect(await acceptances(user.ben)).toHaveLength(1);
  });

  it('takes userId and a token together when they name the same member', async () => {
    const { token } = await s.sessions.issue(user.cy);
    const r = await accept({ rulesVersion: CURRENT, userId: user.cy }, { headers: { 'X-Svc-Auth-Token': token } });
    expect(r.status).toBe(200);
    expect(r.body.userId).toBe(user.cy);
  });

  it('is idempotent: accepting again keeps one row and the first time', async () => {
    const first = await accept({ rulesVersion: CURRENT, userId: user.ada });
    await new Promise((r) => setTimeout(r, 5));
    const again = await accept({ rulesVersion: CURRENT, userId: user.ada });
    expect(again.status).toBe(200);
    expect(again.body.acceptedAt).toBe(first.body.acceptedAt);
    expect(await acceptances(user.ada)).toHaveLength(1);
  });

  it('records one acceptance when the same member accepts concurrently', async () => {
    const db = s.database.db;
    const dee = (await makeUser(db, 'dee')).id;
    await makeMembership(db, communityId, dee, 'ACCEPTED');
    const answers = await Promise.all(Array.from({ length: 6 }, () => accept({ rulesVersion: CURRENT, userId: dee })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.acceptedAt)).size).toBe(1);
    expect(await acceptances(dee)).toHaveLength(1);
  });

  it('keeps earlier versions when a member accepts a new one', async () => {
    const db = s.database.db;
    await db
      .updateTable('communities')
      .set({ rules_version: CURRENT + 1 })
      .where('id', '=', communityId)
      .execute();
    try {
      const r = await accept({ rulesVersion: CURRENT + 1, userId: user.ada });
      expect(r.status).toBe(200);
      expect((await acceptances(user.ada)).map((a) => a.rules_version)).toEqual([CURRENT, CURRENT + 1]);
    } finally {
      await db.updateTable('communities').set({ rules_version: CURRENT }).where('id', '=', communityId).execute();
    }
  });

  it('replays the answer for a repeated Idempotency-Key', async () => {
    const key = crypto.randomUUID();
    const first = await accept({ rulesVersion: CURRENT, userId: user.cy }, { headers: { 'Idempotency-Key': key } });
    const again = await accept({ rulesVersion: CURRENT, userId: user.cy }, { headers: { 'Idempotency-Key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('rules: errors', () => {
  it.each([CURRENT - 1, CURRENT + 1, 0])(
    'answers 400 RULES_VERSION_MISMATCH for version %s and records nothing',
    async (version) => {
      const r = await accept({ rulesVersion: version, userId: user.ben });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: 'RULES_VERSION_MISMATCH',
        extras: { field: 'rulesVersion', currentVersion: CURRENT },
      });
      expect((await acceptances(user.ben)).map((a) => a.rules_version)).not.toContain(version);
    },
  );

  it('answers RULES_VERSION_MISMATCH while a community has no rules (version 0)', async () => {
    const db = s.database.db;
    const bare = await makeCommunity(db, 'no-rules');
    await db.updateTable('communities').set({ rules_version: 0 }).where('id', '=', bare.id).execute();
    const key = await makeKey(db, bare.id, ['WRITE_MEMBERS']);
    const u = await makeUser(db, 'newbie');
    await makeMembership(db, bare.id, u.id, 'ACCEPTED');
    const r = await s.request('/v1/communities/no-rules/rules/accept', {
      key,
      method: 'POST',
      json: { rulesVersion: 0, userId: u.id },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'RULES_VERSION_MISMATCH', extras: { currentVersion: 0 } });
  });

  it.each(['pat', 'rex', 'bo', 'stranger', 'outsider'])(
    'answers 403 NOT_A_MEMBER for %s, who is not an ACCEPTED member here',
    async (tag) => {
      const r = await accept({ rulesVersion: CURRENT, userId: user[tag] });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'NOT_A_MEMBER' });
      expect(await acceptances(user[tag])).toEqual([]);
    },
  );

  it('answers NOT_A_MEMBER alike for a user id that does not exist', async () => {
    const r = await accept({ rulesVersion: CURRENT, userId: '0190a000-0000-7000-8000-000000000000' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('NOT_A_MEMBER');
  });

  it('answers 400 naming userId when the member is not identified', async () => {
    const r = await accept({ rulesVersion: CURRENT });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'userId' } });
  });

  it('answers 400 when userId and the token name different users', async () => {
    const { token } = await s.sessions.issue(user.ben);
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada }, { headers: { 'X-Svc-Auth-Token': token } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'userId' } });
  });

  const badBodies: [string, unknown, string][] = [
    ['no rulesVersion', { userId: '0190a000-0000-7000-8000-000000000000' }, 'rulesVersion'],
    ['a string rulesVersion', { rulesVersion: '3', userId: '0190a000-0000-7000-8000-000000000000' }, 'rulesVersion'],
    [
      'a fractional rulesVersion',
      { rulesVersion: 2.5, userId: '0190a000-0000-7000-8000-000000000000' },
      'rulesVersion',
    ],
    ['a negative rulesVersion', { rulesVersion: -1, userId: '0190a000-0000-7000-8000-000000000000' }, 'rulesVersion'],
    ['a malformed userId', { rulesVersion: 3, userId: 'ada' }, 'userId'],
    [
      'an unknown field',
      { rulesVersion: 3, userId: '0190a000-0000-7000-8000-000000000000', accepted: true },
      'accepted',
    ],
  ];
  it.each(badBodies)('answers a body with %s with a 400 naming the field', async (_what, json, field) => {
    const r = await accept(json);
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe(field);
  });
});

describe('rules: security', () => {
  it('refuses an invalid, expired or foreign-signed token with 401 and records nothing', async () => {
    const expired = (await s.sessions.issue(user.ben, Date.now() - 31 * 24 * 3600_000)).token;
    const foreign = (await new SessionTokens(crypto.randomBytes(32)).issue(user.ben)).token;
    const mine = (await s.sessions.issue(user.ben)).token;
    const tampered = `${mine.slice(0, -3)}${mine.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const before = await acceptances(user.ben);
    for (const token of ['garbage', expired, foreign, tampered]) {
      const r = await accept({ rulesVersion: CURRENT }, { headers: { 'X-Svc-Auth-Token': token } });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 'SIGN_IN_REQUIRED', extras: { field: 'X-Svc-Auth-Token' } });
    }
    expect(await acceptances(user.ben)).toEqual(before);
  });

  it('refuses a token whose session was signed out', async () => {
    const db = s.database.db;
    const { token } = await s.sessions.issue(user.cy);
    const claims = (await s.sessions.verify(token))!;
    await db
      .insertInto('revoked_tokens')
      .values({ session_id: claims.sid, user_id: user.cy, expires_at: new Date(Date.now() + 3600_000).toISOString() })
      .execute();
    const r = await accept({ rulesVersion: CURRENT }, { headers: { 'X-Svc-Auth-Token': token } });
    expect(r.status).toBe(401);
  });

  it("does not let a valid token override the body's userId", async () => {
    const { token } = await s.sessions.issue(user.pat);
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada }, { headers: { 'X-Svc-Auth-Token': token } });
    expect(r.status).toBe(400);
  });

  it("answers 403 COMMUNITY_MISMATCH to another community's key", async () => {
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada }, { key: otherWriter });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('COMMUNITY_MISMATCH');
  });

  it('refuses the publishable key (403, READ_PUBLIC only)', async () => {
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada }, { key: pk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['READ_PUBLIC'] } });
  });

  it('refuses a secret key without WRITE_MEMBERS, with grantedScopes; ADMIN may', async () => {
    const db = s.database.db;
    const sales = await makeKey(db, communityId, ['WRITE_SALES', 'READ_PUBLIC']);
    const r = await accept({ rulesVersion: CURRENT, userId: user.ada }, { key: sales });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      extras: { grantedScopes: ['WRITE_SALES', 'READ_PUBLIC'] },
    });
    const adminKey = await makeKey(db, communityId, ['ADMIN']);
    expect((await accept({ rulesVersion: CURRENT, userId: user.ada }, { key: adminKey })).status).toBe(200);
  });

  it('answers 401 without a key, before reading the body', async () => {
    const r = await s.request('/v1/communities/guild/rules/accept', {
      method: 'POST',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('API_KEY_REQUIRED');
  });
});
