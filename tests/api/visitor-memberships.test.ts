// GET /api/users/me/memberships/svc: the signed-in user's own memberships in the spec's
// Membership shape, across communities or narrowed to one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let ada: { id: string; usertag: string };
let adaToken: string;
let bobToken: string;

const PATH = '/api/users/me/memberships/svc';
const get = (path: string, token?: string) =>
  s.request(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const [club, guild, lodge] = await Promise.all([
    makeCommunity(db, 'club'),
    makeCommunity(db, 'guild'),
    makeCommunity(db, 'lodge'),
  ]);
  ada = await makeUser(db, 'ada');
  const bob = await makeUser(db, 'bob');
  await makeMembership(db, club.id, ada.id, 'ACCEPTED');
  await new Promise((r) => setTimeout(r, 5));
  await makeMembership(db, guild.id, ada.id, 'PENDING');
  await makeMembership(db, lodge.id, bob.id, 'BANNED');
  adaToken = (await s.sessions.issue(ada.id)).token;
  bobToken = (await s.sessions.issue(bob.id)).token;
});
afterAll(async () => {
  await s.close();
});

describe('memberships: happy path', () => {
  it('lists every membership of the signed-in user, newest first, in the spec shape', async () => {
    const res = await get(PATH, adaToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.body.map((m: any) => m.communityTag)).toEqual(['guild', 'club']);
    expect(res.body[1]).toEqual({
      communityTag: 'club',
      status: 'ACCEPTED',
      platforms: { svc: { status: 'ACCEPTED' } },
      createdAt: expect.any(String),
    });
    expect(res.body[0]).toMatchObject({ status: 'PENDING', platforms: { svc: { status: 'PENDING' } } });
  });

  it('narrows to one community with communityTag, and answers [] where there is none', async () => {
    const one = await get(`${PATH}?communityTag=club`, adaToken);
    expect(one.body.map((m: any) => m.communityTag)).toEqual(['club']);
    const none = await get(`${PATH}?communityTag=lodge`, adaToken);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
  });
});

describe('memberships: errors', () => {
  it('answers 401 SIGN_IN_REQUIRED without a token', async () => {
    const res = await get(PATH);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SIGN_IN_REQUIRED');
  });

  it('rejects a malformed filter and unknown query parameters with the field named', async () => {
    const bad = await get(`${PATH}?communityTag=Not%20A%20Tag`, adaToken);
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('communityTag');
    const unknown = await get(`${PATH}?userId=${ada.id}`, adaToken);
    expect(unknown.status).toBe(400);
    expect(unknown.body.extras.field).toBe('userId');
  });
});

describe('memberships: security', () => {
  it('shows each user only their own memberships', async () => {
    const res = await get(PATH, bobToken);
    expect(res.body.map((m: any) => m.communityTag)).toEqual(['lodge']);
    const filtered = await get(`${PATH}?communityTag=club`, bobToken);
    expect(filtered.body).toEqual([]);
  });

  it('answers only the route with the svc segment', async () => {
    const res = await get('/api/users/me/memberships/other', adaToken);
    expect(res.status).toBe(404);
  });
});
