// Notifications: the list (newest first, paged), the unread count, mark-read by ids or all, and
// notify(), the domain function other features call inside their own transactions.
import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import { notify, type NotifyInput } from '../../server/domain/notifications.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let ada: { id: string; usertag: string };
let bob: { id: string; usertag: string };
let club: { id: string };
let adaToken: string;
let bobToken: string;

const as = (token: string | null, path: string, init: RequestInit & { json?: unknown } = {}) =>
  s.request(path, {
    ...init,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) },
  });
const markRead = (token: string, json: unknown) =>
  as(token, '/api/users/me/notifications/mark-read', { method: 'PATCH', json });
const unread = async (token: string) => (await as(token, '/api/users/me/notifications/unread-count')).body.count;

async function send(input: Omit<NotifyInput, 'kind'> & { kind?: NotifyInput['kind'] }): Promise<string> {
  return transaction(s.database.db, (trx) => notify(trx, { kind: 'friend.requested', ...input }));
}

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  club = await makeCommunity(db, 'club');
  ada = await makeUser(db, 'ada');
  bob = await makeUser(db, 'bob');
  // Private fields that must never reach anyone else.
  await db.updateTable('users').set({ phone: '+15550100' }).where('id', '=', bob.id).execute();
  adaToken = (await s.sessions.issue(ada.id)).token;
  bobToken = (await s.sessions.issue(bob.id)).token;
});
afterAll(async () => {
  await s.close();
});
beforeEach(async () => {
  await s.database.db.deleteFrom('notifications').execute();
});

describe('notifications: happy path', () => {
  it('lists my notifications newest first, with the actor in public fields and the community tag', async () => {
    await send({ userId: ada.id, actorId: bob.id, kind: 'friend.requested' });
    await new Promise((r) => setTimeout(r, 5));
    await send({ userId: ada.id, communityId: club.id, kind: 'membership.approved', data: { segmentName: 'Gold' } });
    const res = await as(adaToken, '/api/users/me/notifications');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.body).toEqual([
      {
        id: expect.any(String),
        kind: 'membership.approved',
        communityTag: 'club',
        actor: null,
        data: { segmentName: 'Gold' },
        readAt: null,
        createdAt: expect.any(String),
      },
      {
        id: expect.any(String),
        kind: 'friend.requested',
        communityTag: null,
        actor: { id: bob.id, usertag: 'bob', name: 'User bob', profileImage: null },
        data: {},
        readAt: null,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('pages with limit and offset, with X-Total-Count and a Link to the next page', async () => {
    for (let i = 0; i < 5; i++) await send({ userId: ada.id, data: { n: i } });
    const first = await as(adaToken, '/api/users/me/notifications?limit=2');
    expect(first.body.map((n: any) => n.data.n)).toEqual([4, 3]);
    expect(first.headers.get('x-total-count')).toBe('5');
    const link = first.headers.get('link')!;
    expect(link).toMatch(/rel="next"/);
    const next = new URL(/<([^>]+)>/.exec(link)![1]);
    expect(next.pathname).toBe('/api/users/me/notifications');
    expect(next.searchParams.get('offset')).toBe('2');
    expect(next.searchParams.get('limit')).toBe('2');
    const last = await as(adaToken, '/api/users/me/notifications?limit=2&offset=4');
    expect(last.body.map((n: any) => n.data.n)).toEqual([0]);
    expect(last.headers.get('link')).toBeNull();
  });

  it('counts unread ones, and marks read by ids or all', async () => {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await send({ userId: ada.id }));
    expect(await unread(adaToken)).toBe(4);
    const some = await markRead(adaToken, { ids: [ids[0], ids[1]] });
    expect(some.status).toBe(200);
    expect(some.body).toEqual({ updated: 2 });
    expect(await unread(adaToken)).toBe(2);
    // Again: already read, nothing changes.
    expect((await markRead(adaToken, { ids: [ids[0]] })).body).toEqual({ updated: 0 });
    const list = await as(adaToken, '/api/users/me/notifications');
    const read = list.body
      .filter((n: any) => n.readAt !== null)
      .map((n: any) => n.id)
      .sort();
    expect(read).toEqual([ids[0], ids[1]].sort());
    expect((await markRead(adaToken, { all: true })).body).toEqual({ updated: 2 });
    expect(await unread(adaToken)).toBe(0);
  });

  it('commits a notification only with the transaction that made it', async () => {
    await expect(
      transaction(s.database.db, async (trx) => {
        await notify(trx, { userId: ada.id, kind: 'rsvp.confirmed', data: {} });
        throw new Error("the caller's change failed");
      }),
    ).rejects.toThrow();
    expect(await unread(adaToken)).toBe(0);
  });
});

describe('notifications: errors', () => {
  it('answers 401 SIGN_IN_REQUIRED on every route without a token', async () => {
    for (const [method, path] of [
      ['GET', '/api/users/me/notifications'],
      ['GET', '/api/users/me/notifications/unread-count'],
      ['PATCH', '/api/users/me/notifications/mark-read'],
    ]) {
      const res = await as(null, path, { method, ...(method === 'PATCH' ? { json: { all: true } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('SIGN_IN_REQUIRED');
    }
  });

  it('rejects a mark-read body that is not exactly ids (1 to 100 uuids) or all: true', async () => {
    const uuid = () => crypto.randomUUID();
    for (const body of [
      {},
      { ids: [] },
      { ids: Array.from({ length: 101 }, uuid) },
      { ids: ['not-a-uuid'] },
      { all: false },
      { ids: [uuid()], all: true },
      { all: true, extra: 1 },
    ]) {
      const res = await markRead(adaToken, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect((await markRead(adaToken, { ids: Array.from({ length: 100 }, uuid) })).body).toEqual({ updated: 0 });
  });

  it('rejects limits outside 1..100 and negative offsets', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      const res = await as(adaToken, `/api/users/me/notifications?${q}`);
      expect(res.status, q).toBe(400);
    }
  });
});

describe('notifications: security', () => {
  it("marks by ids only my own notifications: ids of someone else's change nothing", async () => {
    const bobs = await send({ userId: bob.id, actorId: ada.id });
    const mine = await send({ userId: ada.id, actorId: bob.id });
    const res = await markRead(adaToken, { ids: [bobs, mine] });
    expect(res.body).toEqual({ updated: 1 });
    expect(await unread(bobToken)).toBe(1);
    expect((await markRead(adaToken, { all: true })).body).toEqual({ updated: 0 });
    expect(await unread(bobToken)).toBe(1);
  });

  it("never lists another user's notifications, and shows actors without private fields", async () => {
    await send({ userId: bob.id, data: { secret: 'for bob' } });
    await send({ userId: ada.id, actorId: bob.id });
    const res = await as(adaToken, '/api/users/me/notifications');
    expect(res.body).toHaveLength(1);
    expect(res.text).not.toContain('for bob');
    expect(Object.keys(res.body[0].actor).sort()).toEqual(['id', 'name', 'profileImage', 'usertag']);
    expect(res.text).not.toContain('bob@example.com');
    expect(res.text).not.toContain('+15550100');
  });

  it('refuses a cookie-authenticated mark-read from another site, and changes nothing', async () => {
    await send({ userId: ada.id });
    const res = await as(null, '/api/users/me/notifications/mark-read', {
      method: 'PATCH',
      json: { all: true },
      headers: { Cookie: `svc_auth=${adaToken}`, Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CROSS_SITE_REQUEST');
    expect(await unread(adaToken)).toBe(1);
  });
});
