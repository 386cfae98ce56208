// The leader console's gate (docs/leader-console.md): `auth: {kind: 'leader'}` routes answer the
// community's founder and admins signed in on its own site, and nobody else; and its audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import { recordAudit } from '../../server/domain/audit-log.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { cookieFor, leaderFixture, onSite, type LeaderFixture } from './support/leaders.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'gate');
  other = await leaderFixture(server, 'other');
});
afterAll(async () => {
  await server?.close();
});

const me = (f: LeaderFixture, cookie?: string) => onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/me`, { cookie });

describe('happy', () => {
  it('answers the founder and an admin with who they are and their role', async () => {
    const founder = await me(club, club.cookies.founder);
    expect(founder.status).toBe(200);
    expect(founder.body).toMatchObject({
      userId: club.users.founder.id,
      role: 'founder',
      community: { id: club.id, tag: club.tag },
    });
    expect(founder.headers['cache-control']).toBe('no-store');
    const admin = await me(club, club.cookies.admin);
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ userId: club.users.admin.id, role: 'admin' });
  });

  it('lists the audit log newest first with the actor, before and after, paged', async () => {
    const actor = { userId: club.users.founder.id, communityId: club.id };
    for (const n of [1, 2, 3]) {
      await transaction(server.database.db, (trx) =>
        recordAudit(trx, actor, {
          action: 'settings.update',
          targetType: 'community',
          targetId: club.id,
          before: { n: n - 1 },
          after: { n },
        }),
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    const res = await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/audit-log?limit=2`, {
      cookie: club.cookies.admin,
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toContain('rel="next"');
    expect(res.body.map((e: { after: { n: number } }) => e.after.n)).toEqual([3, 2]);
    expect(res.body[0]).toMatchObject({
      actor: { userId: club.users.founder.id, name: expect.any(String) },
      action: 'settings.update',
      target: { type: 'community', id: club.id },
      before: { n: 2 },
    });
  });
});

describe('error', () => {
  it('answers 401 SIGN_IN_REQUIRED without a cookie', async () => {
    const res = await me(club);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SIGN_IN_REQUIRED');
  });

  it('refuses a malformed audit-log query with 400 naming the field', async () => {
    const res = await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/audit-log?limit=0`, {
      cookie: club.cookies.founder,
    });
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('limit');
  });
});

describe('security', () => {
  it('gives a member, a PENDING applicant, a banned admin and a stranger the same 403 NOT_A_LEADER', async () => {
    const answers = new Set<string>();
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as const) {
      const res = await me(club, club.cookies[who]);
      expect(res.status, who).toBe(403);
      expect(res.body.code, who).toBe('NOT_A_LEADER');
      answers.add(JSON.stringify({ ...res.body, requestId: undefined }));
    }
    expect(answers.size).toBe(1);
  });

  it("refuses another community's founder, on their own site and on this one", async () => {
    // On the other community's site with its cookie, naming this community.
    const there = await onSite(server, other.tag, 'GET', `/api/admin/${club.tag}/me`, {
      cookie: other.cookies.founder,
    });
    expect(there.status).toBe(403);
    expect(there.body.code).toBe('NOT_A_LEADER');
    // On this community's site with the other site's cookie: that cookie is not this site's.
    const here = await me(club, other.cookies.founder);
    expect(here.status).toBe(401);
  });

  it("refuses a leader of both communities acting on one from the other's site", async () => {
    // The founder of `club` is made an admin of `other` too, and signs in on `other`'s site.
    const db = server.database.db;
    await db
      .insertInto('memberships')
      .values({
        id: crypto.randomUUID(),
        community_id: other.id,
        user_id: club.users.founder.id,
        status: 'ACCEPTED',
        role: 'admin',
        segment_id: null,
        created_at: new Date().toISOString(),
        accepted_at: new Date().toISOString(),
      })
      .execute();
    const cookie = await cookieFor(server, club.users.founder.id, other.tag);
    expect((await onSite(server, other.tag, 'GET', `/api/admin/${other.tag}/me`, { cookie })).status).toBe(200);
    const cross = await onSite(server, other.tag, 'GET', `/api/admin/${club.tag}/audit-log`, { cookie });
    expect(cross.status).toBe(403);
    expect(cross.body.code).toBe('NOT_A_LEADER');
  });

  it('refuses the leader console on the platform host', async () => {
    const port = new URL(server.url).port;
    const { rawRequest } = await import('./support/raw-http.ts');
    const res = await rawRequest(port, 'GET', `/api/admin/${club.tag}/me`, {
      Host: `127.0.0.1:${port}`,
      Authorization: `Bearer ${(await server.sessions.issue(club.users.founder.id, Date.now())).token}`,
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_A_LEADER');
  });

  it('never accepts an API key in place of the leader', async () => {
    const res = await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/me`, {
      headers: { 'X-API-Key': 'sk_live_not_a_leader' },
    });
    expect(res.status).toBe(401);
  });
});
