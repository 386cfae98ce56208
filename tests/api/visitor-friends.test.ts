// Friends: sending a request, incoming requests, accept and reject. One row per pair of users
// however the requests race, and each request or acceptance notifies the other user. Asking is
// bounded: unanswered requests per sender, attempts per hour, and a cooldown after a rejection.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { FRIEND_REQUEST_COOLDOWN_MS, FRIEND_REQUEST_PENDING_MAX } from '../../server/domain/friends.ts';
import { makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
type U = { id: string; usertag: string; token: string };
let ada: U;
let bob: U;
let cy: U;

const as = (who: U | null, path: string, init: RequestInit & { json?: unknown } = {}) =>
  s.request(path, {
    ...init,
    headers: { ...(who ? { Authorization: `Bearer ${who.token}` } : {}), ...(init.headers as Record<string, string>) },
  });
const request = (from: U, usertag: string) =>
  as(from, '/api/users/me/friend-requests', { method: 'POST', json: { usertag } });
const accept = (who: U, usertag: string) => as(who, `/api/users/me/friends/${usertag}/accept`, { method: 'POST' });
const reject = (who: U, usertag: string) => as(who, `/api/users/me/friends/${usertag}/reject`, { method: 'DELETE' });
const incoming = (who: U) => as(who, '/api/users/me/friend-requests/incoming');
const notifications = async (who: U) => (await as(who, '/api/users/me/notifications')).body as any[];
const rows = () => s.database.db.selectFrom('friendships').selectAll().execute();

async function user(tag: string): Promise<U> {
  const u = await makeUser(s.database.db, tag);
  await s.database.db
    .updateTable('users')
    .set({ phone: `+1555${tag.length}${Math.floor(Math.random() * 1e6)}` })
    .where('id', '=', u.id)
    .execute();
  return { ...u, token: (await s.sessions.issue(u.id)).token };
}

beforeAll(async () => {
  // The hourly budget is tested on a server of its own (below); here it stays out of the way.
  s = await startTestServer({ rateLimits: { friendRequestsPerHour: 10_000 } });
  [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
});
afterAll(async () => {
  await s.close();
});
beforeEach(async () => {
  await s.database.db.deleteFrom('friendships').execute();
  await s.database.db.deleteFrom('notifications').execute();
  await s.database.db.deleteFrom('friend_request_rejections').execute();
});

const publicOf = (u: U) => ({ id: u.id, usertag: u.usertag, name: `User ${u.usertag}`, profileImage: null });

describe('friends: happy path', () => {
  it('sends a request (201 PENDING) and tells the other user', async () => {
    const res = await request(ada, 'bob');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      user: publicOf(bob),
      status: 'PENDING',
      requestedBy: 'me',
      createdAt: expect.any(String),
      acceptedAt: null,
    });
    const told = await notifications(bob);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ kind: 'friend.requested', actor: publicOf(ada), readAt: null });
    expect(await notifications(ada)).toEqual([]);
  });

  it('lists incoming requests newest first, with paging headers', async () => {
    await request(ada, 'cy');
    await new Promise((r) => setTimeout(r, 5));
    await request(bob, 'cy');
    const res = await incoming(cy);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.body.map((f: any) => [f.user.usertag, f.requestedBy, f.status])).toEqual([
      ['bob', 'them', 'PENDING'],
      ['ada', 'them', 'PENDING'],
    ]);
    const page = await as(cy, '/api/users/me/friend-requests/incoming?limit=1');
    expect(page.body.map((f: any) => f.user.usertag)).toEqual(['bob']);
    expect(page.headers.get('link')).toMatch(/offset=1.*rel="next"/);
    expect((await incoming(ada)).body).toEqual([]);
  });

  it('accepts an incoming request: both are friends, the requester is told, the request notification is read', async () => {
    await request(ada, 'bob');
    const res = await accept(bob, 'ada');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: publicOf(ada),
      status: 'ACCEPTED',
      requestedBy: 'them',
      acceptedAt: expect.any(String),
    });
    const told = await notifications(ada);
    expect(told.map((n) => [n.kind, n.actor.usertag])).toEqual([['friend.accepted', 'bob']]);
    expect((await notifications(bob))[0]).toMatchObject({ kind: 'friend.requested', readAt: expect.any(String) });
    expect((await incoming(bob)).body).toEqual([]);
    // Accepting again answers the friendship and tells no one twice.
    const again = await accept(bob, 'ada');
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('ACCEPTED');
    expect(await notifications(ada)).toHaveLength(1);
  });

  it('rejects an incoming request: it is gone, the requester is not told and may ask again after the cooldown', async () => {
    await request(ada, 'bob');
    const res = await reject(bob, 'ada');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect((await incoming(bob)).body).toEqual([]);
    expect(await notifications(ada)).toEqual([]);
    expect(await rows()).toHaveLength(0);
    // Seven days later (moved back in time here), the same request goes through.
    await s.database.db
      .updateTable('friend_request_rejections')
      .set({ rejected_at: new Date(Date.now() - FRIEND_REQUEST_COOLDOWN_MS - 60_000).toISOString() })
      .execute();
    expect((await request(ada, 'bob')).status).toBe(201);
  });

  it('treats a request to someone who already asked me as accepting theirs', async () => {
    await request(ada, 'bob');
    const res = await request(bob, 'ada');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user: publicOf(ada), status: 'ACCEPTED', requestedBy: 'them' });
    expect((await notifications(ada)).map((n) => n.kind)).toEqual(['friend.accepted']);
    expect(await rows()).toHaveLength(1);
  });
});

describe('friends: errors', () => {
  it('answers 401 SIGN_IN_REQUIRED on every route without a token', async () => {
    for (const [method, path, json] of [
      ['POST', '/api/users/me/friend-requests', { usertag: 'bob' }],
      ['GET', '/api/users/me/friend-requests/incoming', undefined],
      ['POST', '/api/users/me/friends/bob/accept', undefined],
      ['DELETE', '/api/users/me/friends/bob/reject', undefined],
    ] as const) {
      const res = await as(null, path, { method, ...(json ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('SIGN_IN_REQUIRED');
    }
    expect(await rows()).toHaveLength(0);
  });

  it('refuses a request to oneself, a duplicate, one to a friend and one to nobody, each with its code', async () => {
    const self = await request(ada, 'ada');
    expect([self.status, self.body.code]).toEqual([400, 'FRIEND_REQUEST_SELF']);
    await request(ada, 'bob');
    const dup = await request(ada, 'bob');
    expect([dup.status, dup.body.code]).toEqual([409, 'FRIEND_REQUEST_EXISTS']);
    await accept(bob, 'ada');
    for (const [from, to] of [
      [ada, 'bob'],
      [bob, 'ada'],
    ] as const) {
      const friends = await request(from, to);
      expect([friends.status, friends.body.code]).toEqual([409, 'ALREADY_FRIENDS']);
    }
    const nobody = await request(ada, 'nobody');
    expect([nobody.status, nobody.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(await notifications(bob)).toHaveLength(1);
  });

  it('validates the body: usertag required, no unknown fields', async () => {
    for (const json of [{}, { usertag: '' }, { usertag: 'bob', note: 'hi' }, { usertag: 42 }]) {
      const res = await as(ada, '/api/users/me/friend-requests', { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
    }
  });

  it('answers 404 to accept or reject when there is no request', async () => {
    for (const res of [
      await accept(ada, 'bob'),
      await reject(ada, 'bob'),
      await accept(ada, 'nobody'),
      await reject(ada, 'ada'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('friends: limits', () => {
  it('refuses asking the same person again within 7 days of their rejection, with Retry-After', async () => {
    await request(ada, 'cy');
    await reject(cy, 'ada');
    const again = await request(ada, 'cy');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('FRIEND_REQUEST_COOLDOWN');
    const retryAfter = Number(again.headers.get('retry-after'));
    expect(Math.abs(retryAfter - FRIEND_REQUEST_COOLDOWN_MS / 1000)).toBeLessThan(60);
    expect(again.body.extras.retryAfter).toBe(retryAfter);
    expect(await rows()).toHaveLength(0);
    expect(await notifications(cy)).toHaveLength(1);
    // The one who said no may still ask; and the sender may ask anyone else.
    expect((await request(cy, 'ada')).body).toMatchObject({ status: 'PENDING' });
    expect((await request(ada, 'bob')).status).toBe(201);
  });

  it("lets a rejected sender accept the other's later request by asking back", async () => {
    await request(ada, 'cy');
    await reject(cy, 'ada');
    await request(cy, 'ada');
    const back = await request(ada, 'cy');
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ status: 'ACCEPTED', requestedBy: 'them' });
  });

  it(`refuses a new request past ${FRIEND_REQUEST_PENDING_MAX} unanswered ones, and lets one through once some are answered`, async () => {
    const sender = await user('collector');
    const now = nowIso();
    const targets = [];
    for (let i = 0; i < FRIEND_REQUEST_PENDING_MAX; i++) targets.push(await makeUser(s.database.db, `target${i}`));
    await s.database.db
      .insertInto('friendships')
      .values(
        targets.map((t) => ({
          id: newId(),
          user_low: sender.id < t.id ? sender.id : t.id,
          user_high: sender.id < t.id ? t.id : sender.id,
          requester_id: sender.id,
          addressee_id: t.id,
          status: 'PENDING' as const,
          created_at: now,
          accepted_at: null,
        })),
      )
      .execute();
    const over = await request(sender, 'bob');
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('FRIEND_REQUEST_LIMIT');
    expect(await notifications(bob)).toEqual([]);
    // Accepting a request someone sent is not a new request: still allowed at the limit.
    await request(cy, 'collector');
    expect((await request(sender, 'cy')).body).toMatchObject({ status: 'ACCEPTED' });
    // One answered (withdrawn here), and there is room for one more.
    await s.database.db.deleteFrom('friendships').where('addressee_id', '=', targets[0].id).execute();
    expect((await request(sender, 'bob')).status).toBe(201);
    expect((await request(sender, 'ada')).body.code).toBe('FRIEND_REQUEST_LIMIT');
  });

  it('allows a sender so many requests an hour, refused ones included, then answers 429 (others unaffected)', async () => {
    const limited = await startTestServer({ rateLimits: { friendRequestsPerHour: 3 } });
    try {
      const make = async (tag: string) => {
        const u = await makeUser(limited.database.db, tag);
        return { ...u, token: (await limited.sessions.issue(u.id)).token };
      };
      const [eve, fay] = [await make('eve'), await make('fay')];
      const send = (who: { token: string }, usertag: string) =>
        limited.request('/api/users/me/friend-requests', {
          method: 'POST',
          json: { usertag },
          headers: { Authorization: `Bearer ${who.token}` },
        });
      expect((await send(eve, 'nobody1')).status).toBe(404);
      expect((await send(eve, 'nobody2')).status).toBe(404);
      expect((await send(eve, 'fay')).status).toBe(201);
      const spent = await send(eve, 'fay');
      expect(spent.status).toBe(429);
      expect(spent.body.code).toBe('RATE_LIMITED');
      expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await send(fay, 'eve')).body).toMatchObject({ status: 'ACCEPTED' });
    } finally {
      await limited.close();
    }
  });
});

describe('friends: security', () => {
  it("accepts and rejects only requests sent to me: not my own, not someone else's", async () => {
    await request(ada, 'bob');
    // The requester cannot accept or withdraw-by-rejecting their own request.
    expect((await accept(ada, 'bob')).status).toBe(404);
    expect((await reject(ada, 'bob')).status).toBe(404);
    // A third user cannot touch it.
    expect((await accept(cy, 'ada')).status).toBe(404);
    expect((await reject(cy, 'ada')).status).toBe(404);
    const [row] = await rows();
    expect(row).toMatchObject({ status: 'PENDING', requester_id: ada.id, addressee_id: bob.id });
    expect(await notifications(ada)).toEqual([]);
  });

  it('turns concurrent duplicate requests into one row and one notification', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => request(ada, 'bob')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'FRIEND_REQUEST_EXISTS')).toBe(true);
    expect(await rows()).toHaveLength(1);
    expect(await notifications(bob)).toHaveLength(1);
  });

  it('turns concurrent crossing requests into one friendship', async () => {
    const results = await Promise.all([request(ada, 'cy'), request(cy, 'ada'), request(ada, 'cy'), request(cy, 'ada')]);
    for (const r of results) expect([201, 409]).toContain(r.status);
    const all = await rows();
    expect(all).toHaveLength(1);
    expect(all[0].status).toBe('ACCEPTED');
  });

  it('shows other users with public fields only: never e-mail or phone', async () => {
    await request(ada, 'bob');
    const responses = [
      await incoming(bob),
      await as(bob, '/api/users/me/notifications'),
      await accept(bob, 'ada'),
      await request(cy, 'bob'),
    ];
    for (const res of responses) {
      expect(res.text).not.toMatch(/@example\.com|\+1555/);
    }
    expect(Object.keys(responses[0].body[0].user).sort()).toEqual(['id', 'name', 'profileImage', 'usertag']);
  });

  it('replays a request sent again with the same Idempotency-Key instead of refusing it', async () => {
    const headers = { 'Idempotency-Key': 'f1e2d3c4-0000-4000-8000-000000000001' };
    const first = await as(ada, '/api/users/me/friend-requests', { method: 'POST', json: { usertag: 'cy' }, headers });
    const replay = await as(ada, '/api/users/me/friend-requests', { method: 'POST', json: { usertag: 'cy' }, headers });
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await rows()).toHaveLength(1);
    expect(await notifications(cy)).toHaveLength(1);
  });

  it('refuses a cookie-authenticated request from another site, and sends nothing', async () => {
    const res = await as(null, '/api/users/me/friend-requests', {
      method: 'POST',
      json: { usertag: 'bob' },
      headers: { Cookie: `svc_auth=${ada.token}`, Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(await rows()).toHaveLength(0);
  });
});
