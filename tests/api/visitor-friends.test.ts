// Friends: sending a request, incoming requests, accept and reject. One row per pair of users
// however the requests race, and each request or acceptance notifies the other user.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
type U = { id: string; usertag: string; token: string };
let ada: U;
let bob: U;
let cy: U;

const as = (who: U | null, path: string, init: RequestInit & { json?: unknown } = {}) =>
  s.request(path, { ...init, headers: { ...(who ? { Authorization: `Bearer ${who.token}` } : {}), ...(init.headers as Record<string, string>) } });
const request = (from: U, usertag: string) => as(from, '/api/users/me/friend-requests', { method: 'POST', json: { usertag } });
const accept = (who: U, usertag: string) => as(who, `/api/users/me/friends/${usertag}/accept`, { method: 'POST' });
const reject = (who: U, usertag: string) => as(who, `/api/users/me/friends/${usertag}/reject`, { method: 'DELETE' });
const incoming = (who: U) => as(who, '/api/users/me/friend-requests/incoming');
const notifications = async (who: U) => (await as(who, '/api/users/me/notifications')).body as any[];
const rows = () => s.database.db.selectFrom('friendships').selectAll().execute();

async function user(tag: string): Promise<U> {
  const u = await makeUser(s.database.db, tag);
  await s.database.db.updateTable('users').set({ phone: `+1555${tag.length}${Math.floor(Math.random() * 1e6)}` }).where('id', '=', u.id).execute();
  return { ...u, token: (await s.sessions.issue(u.id)).token };
}

beforeAll(async () => {
  s = await startTestServer();
  [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
});
afterAll(async () => { await s.close(); });
beforeEach(async () => {
  await s.database.db.deleteFrom('friendships').execute();
  await s.database.db.deleteFrom('notifications').execute();
});

const publicOf = (u: U) => ({ id: u.id, usertag: u.usertag, name: `User ${u.usertag}`, profileImage: null });

describe('friends: happy path', () => {
  it('sends a request (201 PENDING) and tells the other user', async () => {
    const res = await request(ada, 'bob');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ user: publicOf(bob), status: 'PENDING', requestedBy: 'me', createdAt: expect.any(String), acceptedAt: null });
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
    expect(res.body.map((f: any) => [f.user.usertag, f.requestedBy, f.status])).toEqual([['bob', 'them', 'PENDING'], ['ada', 'them', 'PENDING']]);
    const page = await as(cy, '/api/users/me/friend-requests/incoming?limit=1');
    expect(page.body.map((f: any) => f.user.usertag)).toEqual(['bob']);
    expect(page.headers.get('link')).toMatch(/offset=1.*rel="next"/);
    expect((await incoming(ada)).body).toEqual([]);
  });

  it('accepts an incoming request: both are friends, the requester is told, the request notification is read', async () => {
    await request(ada, 'bob');
    const res = await accept(bob, 'ada');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: publicOf(ada), status: 'ACCEPTED', requestedBy: 'them', acceptedAt: expect.any(String) });
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

  it('rejects an incoming request: it is gone, the requester is not told and may ask again', async () => {
    await request(ada, 'bob');
    const res = await reject(bob, 'ada');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect((await incoming(bob)).body).toEqual([]);
    expect(await notifications(ada)).toEqual([]);
    expect(await rows()).toHaveLength(0);
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
    for (const [from, to] of [[ada, 'bob'], [bob, 'ada']] as const) {
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
    for (const res of [await accept(ada, 'bob'), await reject(ada, 'bob'), await accept(ada, 'nobody'), await reject(ada, 'ada')]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('friends: security', () => {
  it('accepts and rejects only requests sent to me: not my own, not someone else\'s', async () => {
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
    const responses = [await incoming(bob), await as(bob, '/api/users/me/notifications'), await accept(bob, 'ada'), await request(cy, 'bob')];
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
      method: 'POST', json: { usertag: 'bob' }, headers: { Cookie: `svc_auth=${ada.token}`, Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(await rows()).toHaveLength(0);
  });
});
