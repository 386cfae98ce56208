// Invite links (docs/leader-console.md, "Invite links"): leaders create, list and revoke them under
// /api/admin/{tag}/invites, and `/join/<code>` on the community's site makes a signed-in visitor an
// ACCEPTED member, taking one use atomically.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { cookieFor, leaderFixture, onSite, type LeaderFixture } from './support/leaders.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let freeSegment: string;
let paidSegment: string;
let otherSegment: string;
let port: string;
let seq = 0;

const db = () => server.database.db;
const base = (f: LeaderFixture) => `/api/admin/${f.tag}/invites`;

/** DELETE as the console sends it: a cookie write, so JSON content type (assertOwnOrigin). */
const revoke = (f: LeaderFixture, id: string, cookie?: string) =>
  onSite(server, f.tag, 'DELETE', `${base(f)}/${id}`, { cookie, headers: { 'Content-Type': 'application/json' } });

const create = (f: LeaderFixture, cookie: string | undefined, json: unknown = {}, origin?: string | null) =>
  onSite(server, f.tag, 'POST', base(f), { cookie, json, origin });

async function newLink(json: unknown = {}, f: LeaderFixture = club): Promise<{ id: string; code: string }> {
  const res = await create(f, f.cookies.founder, json);
  expect(res.status).toBe(201);
  return { id: res.body.id, code: res.body.code };
}

/** A signed-in user of `f`'s site who is not (yet) a member. */
async function visitor(f: LeaderFixture = club) {
  const user = await makeUser(db(), `inv-v${++seq}-${Date.now().toString(36)}`);
  return { id: user.id, cookie: await cookieFor(server, user.id, f.tag) };
}

const page = (f: LeaderFixture, path: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: `${f.tag}.localhost:${port}`, ...(cookie ? { Cookie: cookie } : {}) });

/** The join form's post as the site's own page sends it; `headers` overrides ('' drops one). */
function postJoin(
  f: LeaderFixture,
  code: string,
  fields: Record<string, string>,
  cookie?: string,
  headers: Record<string, string> = {},
) {
  const host = `${f.tag}.localhost:${port}`;
  const h: Record<string, string> = {
    Host: host,
    Origin: `http://${host}`,
    'Content-Type': 'application/x-www-form-urlencoded',
    'Sec-Fetch-Site': 'same-origin',
    ...(cookie ? { Cookie: cookie } : {}),
    ...headers,
  };
  for (const k of Object.keys(h)) if (h[k] === '') delete h[k];
  return rawRequest(port, 'POST', `/join/${code}`, h, new URLSearchParams(fields).toString());
}

async function csrfOf(f: LeaderFixture, code: string, cookie: string): Promise<string> {
  const m = /name="_csrf" value="([^"]+)"/.exec((await page(f, `/join/${code}`, cookie)).text);
  expect(m, 'the join page embeds a form token').not.toBeNull();
  return m![1];
}

async function join(f: LeaderFixture, code: string, cookie: string) {
  return postJoin(f, code, { _csrf: await csrfOf(f, code, cookie) }, cookie);
}

const membershipOf = (f: LeaderFixture, userId: string) =>
  db()
    .selectFrom('memberships')
    .select(['status', 'segment_id', 'role'])
    .where('community_id', '=', f.id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
const usesOf = async (id: string) =>
  Number((await db().selectFrom('invite_links').select('uses').where('id', '=', id).executeTakeFirstOrThrow()).uses);
const auditCount = async (f: LeaderFixture, action?: string) => {
  let q = db()
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('community_id', '=', f.id);
  if (action) q = q.where('action', '=', action);
  return Number((await q.executeTakeFirstOrThrow()).n);
};

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  club = await leaderFixture(server, 'inv');
  other = await leaderFixture(server, 'invo');
  for (const f of [club, other])
    await db().updateTable('communities').set({ accessibility: 'INVITE_ONLY' }).where('id', '=', f.id).execute();
  freeSegment = await makeSegment(db(), club.id, { name: 'Friends' });
  paidSegment = await makeSegment(db(), club.id, { name: 'Patrons', price_monthly: 500 });
  otherSegment = await makeSegment(db(), other.id, { name: 'Elsewhere' });
});
afterAll(async () => {
  await server?.close();
});

describe('happy', () => {
  it('creates a link whose code is shown once and stored only as its hash, with an audit entry', async () => {
    const res = await create(club, club.cookies.founder, {
      maxUses: 5,
      segmentId: freeSegment,
      note: 'For the picnic',
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { code, url, id } = res.body;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`http://${club.tag}.localhost:${port}/join/${code}`);
    expect(res.body).toMatchObject({
      prefix: code.slice(0, 6),
      status: 'ACTIVE',
      maxUses: 5,
      uses: 0,
      segmentId: freeSegment,
      note: 'For the picnic',
      createdBy: { userId: club.users.founder.id },
      revokedAt: null,
    });
    // The default expiry is 7 days ahead.
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);
    const row = await db().selectFrom('invite_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.code_hash).toBe(crypto.createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(code);
    const audit = await db().selectFrom('audit_log').selectAll().where('target_id', '=', id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({
      action: 'invite.create',
      actor_user_id: club.users.founder.id,
      target_type: 'invite',
    });
    expect(`${audit.before}${audit.after}`).not.toContain(code);
  });

  it('lists the links newest first by prefix with their uses, to an admin, never the code', async () => {
    const a = await newLink({ note: 'first' });
    const b = await newLink({ note: 'second' });
    const res = await onSite(server, club.tag, 'GET', `${base(club)}?limit=100`, { cookie: club.cookies.admin });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const ids = res.body.map((i: { id: string }) => i.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(JSON.stringify(res.body)).not.toContain(a.code);
    expect(res.body.find((i: { id: string }) => i.id === a.id)).toMatchObject({ prefix: a.code.slice(0, 6), uses: 0 });
  });

  it('an anonymous visitor is sent to create an account or sign in and back; the page is never cached', async () => {
    const { code } = await newLink();
    const res = await page(club, `/join/${code}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const next = encodeURIComponent(`/join/${code}`);
    expect(res.text).toContain(`href="/sign-in?mode=sign-up&amp;next=${next}"`);
    expect(res.text).toContain(`href="/sign-in?next=${next}"`);
    expect(res.text).not.toContain('name="_csrf"');
  });

  it('a signed-in visitor joins by a plain form post: ACCEPTED in the segment, one use, member.approved, a welcome', async () => {
    const { id, code } = await newLink({ segmentId: freeSegment, maxUses: 2 });
    const v = await visitor();
    const res = await join(club, code, v.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/join/${code}?joined=1`);
    expect(await membershipOf(club, v.id)).toEqual({ status: 'ACCEPTED', segment_id: freeSegment, role: 'member' });
    expect(await usesOf(id)).toBe(1);
    const events = await db()
      .selectFrom('webhook_events')
      .select('data')
      .where('community_id', '=', club.id)
      .where('name', '=', 'member.approved')
      .execute();
    const approved = events.map((e) => JSON.parse(e.data)).find((d) => d.userId === v.id);
    expect(approved).toMatchObject({ userId: v.id, approvedBy: null, memberId: expect.any(String) });
    const welcome = await page(club, `/join/${code}?joined=1`, v.cookie);
    expect(welcome.text).toContain(`Welcome to Club ${club.tag}`);
  });

  it('a PENDING applicant joining by a link is accepted and their open request is closed', async () => {
    const { code } = await newLink();
    const v = await visitor();
    await makeMembership(db(), club.id, v.id, 'PENDING');
    expect((await join(club, code, v.cookie)).status).toBe(303);
    expect((await membershipOf(club, v.id))?.status).toBe('ACCEPTED');
  });

  it('revokes a link with an audit entry; revoking it again changes nothing and writes none', async () => {
    const { id, code } = await newLink();
    const res = await revoke(club, id, club.cookies.admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'REVOKED', revokedAt: expect.any(String) });
    const entries = () =>
      db()
        .selectFrom('audit_log')
        .select('action')
        .where('target_id', '=', id)
        .where('action', '=', 'invite.revoke')
        .execute();
    expect(await entries()).toHaveLength(1);
    const again = await revoke(club, id, club.cookies.founder);
    expect(again.status).toBe(200);
    expect(await entries()).toHaveLength(1);
    const v = await visitor();
    const refused = await postJoin(club, code, { _csrf: csrfOfAny(v.cookie) }, v.cookie);
    expect(refused.status).toBe(410);
    expect(refused.text).toContain('withdrawn');
    expect(await membershipOf(club, v.id)).toBeUndefined();
  });
});

/** The `_csrf` the site's forms carry for this cookie's session (pages/forms.ts), for pages that show no form. */
function csrfOfAny(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
  return csrfTokenFor(csrfKey(server.sessions), sid);
}

describe('error', () => {
  it('an expired link says so and makes no member', async () => {
    const { id, code } = await newLink();
    const v = await visitor();
    const token = await csrfOf(club, code, v.cookie);
    await db()
      .updateTable('invite_links')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    const shown = await page(club, `/join/${code}`, v.cookie);
    expect(shown.status).toBe(410);
    expect(shown.text).toContain('expired');
    const res = await postJoin(club, code, { _csrf: token }, v.cookie);
    expect(res.status).toBe(410);
    expect(res.text).toContain('expired');
    expect(await membershipOf(club, v.id)).toBeUndefined();
    expect(await usesOf(id)).toBe(0);
  });

  it('a used-up link says so to the next visitor', async () => {
    const { id, code } = await newLink({ maxUses: 1 });
    const first = await visitor();
    const second = await visitor();
    const token = await csrfOf(club, code, second.cookie);
    expect((await join(club, code, first.cookie)).status).toBe(303);
    const res = await postJoin(club, code, { _csrf: token }, second.cookie);
    expect(res.status).toBe(410);
    expect(res.text).toContain('used up');
    expect(await membershipOf(club, second.id)).toBeUndefined();
    expect(await usesOf(id)).toBe(1);
  });

  it('an unknown code is not valid, and a code of another community is refused on this one', async () => {
    const v = await visitor();
    expect((await page(club, `/join/${'x'.repeat(43)}`, v.cookie)).status).toBe(404);
    expect((await page(club, '/join/short', v.cookie)).status).toBe(404);
    const foreign = await newLink({}, other);
    const shown = await page(club, `/join/${foreign.code}`, v.cookie);
    expect(shown.status).toBe(404);
    expect(shown.text).toContain('not valid');
    const res = await postJoin(club, foreign.code, { _csrf: csrfOfAny(v.cookie) }, v.cookie);
    expect(res.status).toBe(404);
    expect(await membershipOf(club, v.id)).toBeUndefined();
    expect(await membershipOf(other, v.id)).toBeUndefined();
    expect(await usesOf(foreign.id)).toBe(0);
  });

  it('an existing member is told they already are, and no use is taken', async () => {
    const { id, code } = await newLink();
    const shown = await page(club, `/join/${code}`, club.cookies.member);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('already a member');
    expect(shown.text).not.toContain('name="_csrf"');
    const res = await postJoin(club, code, { _csrf: csrfOfAny(club.cookies.member) }, club.cookies.member);
    expect(res.status).toBe(200);
    expect(res.text).toContain('already a member');
    expect(await usesOf(id)).toBe(0);
  });

  it('a BANNED user is refused and stays banned', async () => {
    const { id, code } = await newLink();
    const v = await visitor();
    await makeMembership(db(), club.id, v.id, 'BANNED');
    expect((await page(club, `/join/${code}`, v.cookie)).status).toBe(403);
    const res = await postJoin(club, code, { _csrf: csrfOfAny(v.cookie) }, v.cookie);
    expect(res.status).toBe(403);
    expect((await membershipOf(club, v.id))?.status).toBe('BANNED');
    expect(await usesOf(id)).toBe(0);
  });

  it('refuses links for a community that is not INVITE_ONLY, and its links stop working', async () => {
    const open = await leaderFixture(server, 'invopen');
    const res = await create(open, open.cookies.founder, {});
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_STATE');
    const { code } = await newLink();
    const v = await visitor();
    const token = await csrfOf(club, code, v.cookie);
    await db().updateTable('communities').set({ accessibility: 'APPLICATION' }).where('id', '=', club.id).execute();
    try {
      const post = await postJoin(club, code, { _csrf: token }, v.cookie);
      expect(post.status).toBe(410);
      expect(post.text).toContain('href="/apply"');
      expect(await membershipOf(club, v.id)).toBeUndefined();
    } finally {
      await db().updateTable('communities').set({ accessibility: 'INVITE_ONLY' }).where('id', '=', club.id).execute();
    }
  });

  it('refuses bad input with 400 or 422 naming the field, and writes nothing', async () => {
    const before = await auditCount(club);
    const cases: [unknown, number, string][] = [
      [{ expiresAt: new Date(Date.now() - 60_000).toISOString() }, 400, 'expiresAt'],
      [{ expiresAt: new Date(Date.now() + 400 * 24 * 3600_000).toISOString() }, 400, 'expiresAt'],
      [{ expiresAt: 'tomorrow' }, 400, 'expiresAt'],
      [{ maxUses: 0 }, 400, 'maxUses'],
      [{ maxUses: 1.5 }, 400, 'maxUses'],
      [{ note: 'two\nlines' }, 400, 'note'],
      [{ note: 'nul\u0000' }, 400, 'note'],
      [{ segmentId: 'nope' }, 400, 'segmentId'],
      [{ segmentId: paidSegment }, 422, 'segmentId'],
      [{ segmentId: otherSegment }, 422, 'segmentId'],
    ];
    for (const [json, status, field] of cases) {
      const res = await create(club, club.cookies.founder, json);
      expect(res.status, JSON.stringify(json)).toBe(status);
      expect(res.body.extras?.field, JSON.stringify(json)).toBe(field);
    }
    expect(await auditCount(club)).toBe(before);
  });

  it("revoking an unknown link, or another community's, is 404", async () => {
    const foreign = await newLink({}, other);
    for (const id of [crypto.randomUUID(), foreign.id]) {
      const res = await revoke(club, id, club.cookies.founder);
      expect(res.status).toBe(404);
    }
    const row = await db()
      .selectFrom('invite_links')
      .select('revoked_at')
      .where('id', '=', foreign.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });
});

describe('security', () => {
  it("every other role, another community's founder and no cookie are refused on every route", async () => {
    const { id } = await newLink();
    const before = await auditCount(club);
    const refused: [string | undefined, number][] = [
      [club.cookies.member, 403],
      [club.cookies.pending, 403],
      [club.cookies.bannedAdmin, 403],
      [club.cookies.stranger, 403],
      [await cookieFor(server, other.users.founder.id, club.tag), 403],
      [undefined, 401],
    ];
    for (const [cookie, status] of refused) {
      for (const [method, path, json] of [
        ['GET', base(club), undefined],
        ['POST', base(club), {}],
        ['DELETE', `${base(club)}/${id}`, undefined],
      ] as const) {
        const res = await onSite(server, club.tag, method, path, {
          cookie,
          json,
          headers: method === 'DELETE' ? { 'Content-Type': 'application/json' } : {},
        });
        expect(res.status, `${method} ${path}`).toBe(status);
        if (status === 403) expect(res.body.code).toBe('NOT_A_LEADER');
      }
    }
    // Another community's founder on their own site cannot reach this community's links either.
    const there = await onSite(server, other.tag, 'GET', base(club), { cookie: other.cookies.founder });
    expect(there.status).toBe(403);
    expect(await auditCount(club)).toBe(before);
    expect(await usesOf(id)).toBe(0);
  });

  it('refuses a forged create (foreign Origin or none) with 403 CROSS_SITE_REQUEST and creates nothing', async () => {
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('invite_links')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('community_id', '=', club.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (const origin of ['http://evil.example', null]) {
      const res = await create(club, club.cookies.founder, {}, origin);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CROSS_SITE_REQUEST');
    }
    expect(await count()).toBe(before);
  });

  it('refuses mass assignment of protected fields with 400 and writes nothing', async () => {
    const before = await auditCount(club);
    for (const json of [
      { uses: 0, maxUses: 1 },
      { code: 'x'.repeat(43) },
      { communityId: other.id },
      { revokedAt: null },
    ]) {
      const res = await create(club, club.cookies.founder, json);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect(await auditCount(club)).toBe(before);
  });

  it('refuses an Idempotency-Key on create, so no stored answer ever holds a code', async () => {
    const before = await auditCount(club, 'invite.create');
    const res = await onSite(server, club.tag, 'POST', base(club), {
      cookie: club.cookies.founder,
      json: {},
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect(res.status).toBe(400);
    expect(res.body.extras?.field).toBe('Idempotency-Key');
    expect(await auditCount(club, 'invite.create')).toBe(before);
  });

  it('refuses a join without the form token, or from another site, and makes no member', async () => {
    const { id, code } = await newLink();
    const v = await visitor();
    const token = await csrfOf(club, code, v.cookie);
    const attempts = [
      postJoin(club, code, {}, v.cookie),
      postJoin(club, code, { _csrf: 'forged' }, v.cookie),
      postJoin(club, code, { _csrf: token }, v.cookie, {
        Origin: 'http://evil.example',
        'Sec-Fetch-Site': 'cross-site',
      }),
      postJoin(club, code, { _csrf: token }, v.cookie, { Origin: '', 'Sec-Fetch-Site': '' }),
      postJoin(club, code, { _csrf: token }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(403);
    expect(await membershipOf(club, v.id)).toBeUndefined();
    expect(await usesOf(id)).toBe(0);
  });

  it('an admin kicked before kicks reset the role comes back by a link as a member, not an admin', async () => {
    const { code } = await newLink();
    const v = await visitor();
    await makeMembership(db(), club.id, v.id, 'REJECTED');
    // What a kick left before it reset the role: a REJECTED membership still marked admin.
    await db()
      .updateTable('memberships')
      .set({ role: 'admin', kicked_at: new Date().toISOString() })
      .where('community_id', '=', club.id)
      .where('user_id', '=', v.id)
      .execute();
    expect((await join(club, code, v.cookie)).status).toBe(303);
    expect(await membershipOf(club, v.id)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
  });

  it('concurrent joins at the use limit: exactly the limit succeed', async () => {
    const limit = 3;
    const { id, code } = await newLink({ maxUses: limit });
    const people = await Promise.all(Array.from({ length: 8 }, () => visitor()));
    const tokens = await Promise.all(people.map((p) => csrfOf(club, code, p.cookie)));
    const results = await Promise.all(people.map((p, i) => postJoin(club, code, { _csrf: tokens[i] }, p.cookie)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 410)).toHaveLength(people.length - limit);
    expect(await usesOf(id)).toBe(limit);
    const accepted = await Promise.all(people.map((p) => membershipOf(club, p.id)));
    expect(accepted.filter((m) => m?.status === 'ACCEPTED')).toHaveLength(limit);
  });

  it('one person joining twice at once takes one use', async () => {
    const { id, code } = await newLink({ maxUses: 5 });
    const v = await visitor();
    const token = await csrfOf(club, code, v.cookie);
    const results = await Promise.all([1, 2, 3].map(() => postJoin(club, code, { _csrf: token }, v.cookie)));
    expect(results.filter((r) => r.status === 303)).toHaveLength(1);
    expect(await usesOf(id)).toBe(1);
  });
});
