// GET /api/communities/{tag}/page-access: the verdict for every page key, for whoever the
// session cookie (or Bearer token) says is looking.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { makeCommunity, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let server: TestServer;
const queries: string[] = [];
let community: { id: string; tag: string };
const users: Record<string, { id: string; token: string }> = {};

beforeAll(async () => {
  server = await startTestServer({ onQuery: (sql) => queries.push(sql) });
  const db = server.database.db;
  community = await makeCommunity(db, 'gated');
  await db
    .updateTable('communities')
    .set({
      page_settings: JSON.stringify([
        { pageKey: 'EVENTS', enabled: true, visibility: 'MEMBERS_ONLY' },
        { pageKey: 'BLOG', enabled: false, visibility: null },
      ]),
    })
    .where('id', '=', community.id)
    .execute();
  const other = await makeCommunity(db, 'elsewhere');
  for (const status of ['ACCEPTED', 'PENDING', 'BANNED', 'REJECTED', 'NONE', 'OTHER'] as const) {
    const user = await makeUser(db);
    if (status === 'OTHER') await makeMembership(db, other.id, user.id, 'ACCEPTED');
    else if (status !== 'NONE') await makeMembership(db, community.id, user.id, status);
    users[status] = { id: user.id, token: (await server.sessions.issue(user.id)).token };
  }
});

afterAll(async () => {
  await server.close();
});

const access = (headers: Record<string, string> = {}, tag = 'gated') =>
  server.request(`/api/communities/${tag}/page-access`, { headers });
const cookie = (name: string, token: string) => ({ Cookie: `${name}=${token}` });

describe('page access: happy path', () => {
  it('answers every page key for an anonymous visitor, and is never cached by shared caches', async () => {
    const res = await access();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('vary')).toMatch(/Cookie/);
    expect(Object.keys(res.body)).toEqual([
      'HOME',
      'EVENTS',
      'MARKETPLACE',
      'FEED',
      'MEMBERS',
      'ATLAS',
      'BLOG',
      'CHAT',
    ]);
    expect(res.body.HOME).toEqual({ allow: true, resolvedVisibility: 'PUBLIC' });
    expect(res.body.EVENTS).toEqual({ allow: false, reason: 'page_members_only', resolvedVisibility: 'MEMBERS_ONLY' });
    expect(res.body.BLOG).toEqual({ allow: false, reason: 'page_disabled', resolvedVisibility: 'PUBLIC' });
    expect(res.body.CHAT).toEqual({ allow: false, reason: 'page_members_only', resolvedVisibility: 'MEMBERS_ONLY' });
  });

  it('opens members-only pages and CHAT to an ACCEPTED member signed in with the scoped cookie', async () => {
    const res = await access(cookie('svc_auth_gated', users.ACCEPTED.token));
    expect(res.body.EVENTS).toEqual({ allow: true, resolvedVisibility: 'MEMBERS_ONLY' });
    expect(res.body.CHAT).toEqual({ allow: true, resolvedVisibility: 'MEMBERS_ONLY' });
    expect(res.body.BLOG.allow).toBe(false);
  });

  it('accepts svc_auth, svc_auth_<bare hostname> and Authorization: Bearer as well', async () => {
    for (const headers of [
      cookie('svc_auth', users.ACCEPTED.token),
      cookie('svc_auth_127.0.0.1', users.ACCEPTED.token),
      { Authorization: `Bearer ${users.ACCEPTED.token}` },
    ]) {
      expect((await access(headers)).body.EVENTS.allow).toBe(true);
    }
  });

  it('reads the cookies in order: the scoped cookie decides when it is present', async () => {
    const res = await access({ Cookie: `svc_auth=${users.ACCEPTED.token}; svc_auth_gated=${users.PENDING.token}` });
    expect(res.body.EVENTS.allow).toBe(false);
    const fallback = await access({
      Cookie: `svc_auth_other=${users.PENDING.token}; svc_auth=${users.ACCEPTED.token}`,
    });
    expect(fallback.body.EVENTS.allow).toBe(true);
  });

  it('looks the membership up once for the whole batch of pages', async () => {
    queries.length = 0;
    await access(cookie('svc_auth_gated', users.ACCEPTED.token));
    expect(queries.filter((q) => /from "memberships"/.test(q))).toHaveLength(1);
  });
});

describe('page access: errors', () => {
  it('answers 404 in the error envelope for an unknown community', async () => {
    const res = await access({}, 'nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Community not found', code: 'NOT_FOUND' });
  });

  it('treats a garbage, expired or foreign-key token as an anonymous visitor, not an error', async () => {
    const { token: expired } = await server.sessions.issue(users.ACCEPTED.id, Date.now() - 40 * 24 * 3600_000);
    const { token: foreign } = await new SessionTokens(crypto.randomBytes(32)).issue(users.ACCEPTED.id);
    for (const token of ['garbage', expired, foreign]) {
      const res = await access(cookie('svc_auth_gated', token));
      expect(res.status).toBe(200);
      expect(res.body.EVENTS).toEqual({
        allow: false,
        reason: 'page_members_only',
        resolvedVisibility: 'MEMBERS_ONLY',
      });
    }
  });
});

describe('page access: security', () => {
  it('counts only ACCEPTED members of this community: not PENDING, BANNED, REJECTED, non-members or members elsewhere', async () => {
    for (const who of ['PENDING', 'BANNED', 'REJECTED', 'NONE', 'OTHER']) {
      const res = await access(cookie('svc_auth_gated', users[who].token));
      expect(res.body.EVENTS.allow, who).toBe(false);
      expect(res.body.CHAT.allow, who).toBe(false);
    }
  });

  it('reads a user who was deleted after sign-in as anonymous', async () => {
    const db = server.database.db;
    const ghost = await makeUser(db);
    await makeMembership(db, community.id, ghost.id, 'ACCEPTED');
    const { token } = await server.sessions.issue(ghost.id);
    expect((await access(cookie('svc_auth_gated', token))).body.EVENTS.allow).toBe(true);
    await db.deleteFrom('memberships').where('user_id', '=', ghost.id).execute();
    await db.deleteFrom('users').where('id', '=', ghost.id).execute();
    expect((await access(cookie('svc_auth_gated', token))).body.EVENTS.allow).toBe(false);
  });
});
