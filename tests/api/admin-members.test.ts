// The leader console's members (docs/leader-console.md, "Members and the review queue"): the
// directory with private fields and its CSV export, the review queue, approve, reject, kick, ban
// and the admin role, each change with its webhook and audit entry in one transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeKey, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let key: string;
let segmentId: string;
let seq = 0;

const db = () => server.database.db;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'mem');
  other = await leaderFixture(server, 'memo');
  key = await makeKey(db(), club.id, ['WRITE_MEMBERS', 'READ_PUBLIC']);
  segmentId = await makeSegment(db(), club.id, { name: 'Makers' }, [
    { id: 'why', type: 'long_text', label: 'Why do you want to join?', required: true },
  ]);
});
afterAll(async () => {
  await server?.close();
});

const api = (
  method: string,
  path: string,
  who?: Person,
  json?: unknown,
  opts: { origin?: string | null; f?: LeaderFixture } = {},
) => {
  const f = opts.f ?? club;
  return onSite(server, f.tag, method, `/api/admin/${f.tag}${path}`, {
    cookie: who ? f.cookies[who] : undefined,
    // A write is sent as the console's pages send it: JSON, `{}` when it has nothing to say.
    json: json === undefined && method !== 'GET' && method !== 'HEAD' ? {} : json,
    origin: opts.origin,
  });
};

/** A PENDING application through /v1, as a server would submit it. */
async function applicant(label = 'ap') {
  const n = `${label}${++seq}${Date.now().toString(36)}`;
  const res = await server.request(`/v1/communities/${club.tag}/segments/${segmentId}/submit`, {
    method: 'POST',
    key,
    json: { answers: { email: `${n}@example.com`, name: `Applicant ${n}`, why: `Because ${n}` } },
  });
  expect(res.status).toBe(201);
  expect(res.body.requestStatus).toBe('PENDING');
  const user = await db()
    .selectFrom('users')
    .select('id')
    .where('email', '=', `${n}@example.com`)
    .executeTakeFirstOrThrow();
  return { requestId: res.body.requestId as string, userId: user.id, n };
}

/** A user with a membership in `club` of the given status and role. */
async function person(
  status: 'ACCEPTED' | 'PENDING' | 'REJECTED' | 'BANNED' = 'ACCEPTED',
  role: 'member' | 'admin' = 'member',
  usertag = `p${++seq}${Date.now().toString(36)}`,
  communityId = club.id,
) {
  const u = await makeUser(db(), usertag);
  const membershipId = await makeMembership(db(), communityId, u.id, status);
  if (role !== 'member') await db().updateTable('memberships').set({ role }).where('id', '=', membershipId).execute();
  return { ...u, membershipId };
}

const membership = (userId: string, communityId = club.id) =>
  db()
    .selectFrom('memberships')
    .select(['status', 'role', 'kicked_at', 'banned_at'])
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();

const audits = (targetId: string) =>
  db()
    .selectFrom('audit_log')
    .selectAll()
    .where('community_id', '=', club.id)
    .where('target_id', '=', targetId)
    .orderBy('created_at')
    .execute();

const events = async (name: string, userId: string) =>
  (
    await db()
      .selectFrom('webhook_events')
      .select(['name', 'data'])
      .where('community_id', '=', club.id)
      .where('name', '=', name)
      .execute()
  )
    .map((e) => JSON.parse(e.data))
    .filter((d) => d.userId === userId);

describe('happy', () => {
  it('lists every membership with its private fields for the founder and an admin, paged, no-store', async () => {
    const p = await person('ACCEPTED');
    await db().updateTable('users').set({ phone: '+15551234567' }).where('id', '=', p.id).execute();
    for (const who of ['founder', 'admin'] as const) {
      const res = await api('GET', '/members?limit=100', who);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const row = res.body.find((m: { userId: string }) => m.userId === p.id);
      expect(row).toEqual({
        userId: p.id,
        membershipId: p.membershipId,
        name: `User ${p.usertag}`,
        usertag: p.usertag,
        email: `${p.usertag}@example.com`,
        phone: '+15551234567',
        role: 'member',
        status: 'ACCEPTED',
        segment: null,
        requestedAt: expect.any(String),
        joinedAt: expect.any(String),
        kickedAt: null,
        bannedAt: null,
      });
      expect(Number(res.headers['x-total-count'])).toBe(res.body.length);
    }
    const page = await api('GET', '/members?limit=2&offset=1', 'founder');
    const all = await api('GET', '/members?limit=100', 'founder');
    expect(page.body.map((m: { userId: string }) => m.userId)).toEqual(
      all.body.slice(1, 3).map((m: { userId: string }) => m.userId),
    );
    expect(page.headers.link).toContain('offset=3');
  });

  it('filters by status and searches name, usertag and e-mail case-insensitively', async () => {
    const tag = `zed${Date.now().toString(36)}`;
    const p = await person('PENDING', 'member', tag);
    await db().updateTable('users').set({ name: 'Zelda Quartermain' }).where('id', '=', p.id).execute();
    const ids = async (query: string) =>
      (await api('GET', `/members?limit=100&${query}`, 'admin')).body.map((m: { userId: string }) => m.userId);
    expect(await ids('q=QUARTERM')).toEqual([p.id]);
    expect(await ids(`q=${tag.toUpperCase()}`)).toEqual([p.id]);
    expect(await ids(`q=${encodeURIComponent(`${tag}@example`)}`)).toEqual([p.id]);
    expect(await ids('q=quarterm&status=PENDING')).toEqual([p.id]);
    expect(await ids('q=quarterm&status=ACCEPTED')).toEqual([]);
    const pending = (await api('GET', '/members?limit=100&status=PENDING', 'admin')).body;
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((m: { status: string }) => m.status === 'PENDING')).toBe(true);
  });

  it('treats % and _ in the search as the characters themselves', async () => {
    const a = await person();
    const b = await person();
    await db().updateTable('users').set({ name: 'Sale 100%_off' }).where('id', '=', a.id).execute();
    await db().updateTable('users').set({ name: 'Sale 1000 off' }).where('id', '=', b.id).execute();
    const found = (await api('GET', `/members?limit=100&q=${encodeURIComponent('0%_')}`, 'founder')).body;
    expect(found.map((m: { userId: string }) => m.userId)).toEqual([a.id]);
    const under = (await api('GET', `/members?limit=100&q=${encodeURIComponent('1_00')}`, 'founder')).body;
    expect(under).toEqual([]);
  });

  it('exports the directory as CSV in batches, every member once, formulas defused', async () => {
    const big = await leaderFixture(server, 'big');
    const now = nowIso();
    const stamp = Date.now().toString(36);
    const users = Array.from({ length: 1100 }, (_, i) => ({
      id: newId(),
      email: `bulk${i}-${stamp}@example.com`,
      name: i === 7 ? '=HYPERLINK("http://evil","x")' : `Bulk, "${i}"`,
      usertag: `bulk${i}-${stamp}`,
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: null,
      created_at: now,
    }));
    for (let i = 0; i < users.length; i += 250)
      await db()
        .insertInto('users')
        .values(users.slice(i, i + 250))
        .execute();
    const rows = users.map((u) => ({
      id: newId(),
      community_id: big.id,
      user_id: u.id,
      status: 'ACCEPTED' as const,
      role: 'member' as const,
      segment_id: null,
      created_at: now,
      accepted_at: now,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await db()
        .insertInto('memberships')
        .values(rows.slice(i, i + 250))
        .execute();

    const res = await api('GET', '/members/export', 'founder', undefined, { f: big });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${big.tag}-members.csv"`);
    expect(res.headers['cache-control']).toBe('no-store');
    const lines = res.text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(
      'user_id,name,usertag,email,phone,role,status,segment,requested_at,joined_at,kicked_at,banned_at',
    );
    // 1100 bulk members and the fixture's six memberships (founder, admin, member, pending, banned admin).
    const body = lines.slice(1);
    expect(body.length).toBe(1100 + 5);
    const ids = body.map((l) => l.split(',')[0]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const u of users) expect(ids).toContain(u.id);
    expect(res.text).toContain(`${users[7].id},"'=HYPERLINK(""http://evil"",""x"")",`);
    expect(res.text).toContain(`${users[3].id},"Bulk, ""3""",`);
    // The filters are the directory's.
    const one = await api('GET', `/members/export?q=${users[5].usertag}`, 'admin', undefined, { f: big });
    expect(one.text.split('\r\n').filter(Boolean)).toHaveLength(2);
    const head = await api('HEAD', '/members/export', 'founder', undefined, { f: big });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(head.text).toBe('');
  });

  it('sends the search to the database as a bound parameter, never in the SQL text', async () => {
    const seen: string[] = [];
    const watched = await startTestServer({ onQuery: (q) => seen.push(q) });
    try {
      const f = await leaderFixture(watched, 'sqlw');
      const needle = `needle'--${Date.now().toString(36)}`;
      const res = await onSite(
        watched,
        f.tag,
        'GET',
        `/api/admin/${f.tag}/members?limit=5&q=${encodeURIComponent(needle)}`,
        {
          cookie: f.cookies.founder,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      const search = seen.filter((q) => q.includes('lower("u"."name") like'));
      // The page and its count.
      expect(search).toHaveLength(2);
      expect(search.every((q) => q.match(/like (\?|\$\d+) escape '\\'/g)?.length === 3)).toBe(true);
      expect(seen.some((q) => q.includes('needle'))).toBe(false);
    } finally {
      await watched.close();
    }
  });

  it('shows the review queue with labelled answers, and approving fires member.approved once with one audit entry', async () => {
    const a = await applicant();
    const queue = await api('GET', '/members/requests?limit=100', 'admin');
    expect(queue.status).toBe(200);
    expect(queue.headers['cache-control']).toBe('no-store');
    const item = queue.body.find((r: { requestId: string }) => r.requestId === a.requestId);
    expect(item).toMatchObject({
      userId: a.userId,
      email: `${a.n}@example.com`,
      segment: { id: segmentId, name: 'Makers' },
      source: null,
    });
    expect(item.answers).toContainEqual({
      fieldId: 'why',
      label: 'Why do you want to join?',
      answer: `Because ${a.n}`,
    });

    const first = await api('POST', `/members/requests/${a.requestId}/approve`, 'admin');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, userId: a.userId });
    const again = await api('POST', `/members/requests/${a.requestId}/approve`, 'founder');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    expect(await events('member.approved', a.userId)).toEqual([
      expect.objectContaining({ approvedBy: club.users.admin.id, memberId: first.body.membershipId }),
    ]);
    expect((await membership(a.userId)).status).toBe('ACCEPTED');
    const log = await audits(a.requestId);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'member.approve', actor_user_id: club.users.admin.id });
    expect(JSON.parse(log[0].before!)).toMatchObject({ status: 'PENDING' });
    expect(JSON.parse(log[0].after!)).toMatchObject({ status: 'APPROVED', membershipId: first.body.membershipId });
    const after = await api('GET', '/members/requests?limit=100', 'admin');
    expect(after.body.map((r: { requestId: string }) => r.requestId)).not.toContain(a.requestId);
  });

  it('rejects with an internal reason kept off the webhook and on the request and audit log', async () => {
    const a = await applicant();
    const res = await api('POST', `/members/requests/${a.requestId}/reject`, 'founder', { reason: 'spam account' });
    expect(res.status).toBe(200);
    expect((await api('POST', `/members/requests/${a.requestId}/reject`, 'founder', { reason: 'x' })).status).toBe(200);
    const sent = await events('member.rejected', a.userId);
    expect(sent).toEqual([expect.objectContaining({ requestId: a.requestId, rejectedBy: club.users.founder.id })]);
    expect(JSON.stringify(sent)).not.toContain('spam');
    const row = await db()
      .selectFrom('membership_requests')
      .selectAll()
      .where('id', '=', a.requestId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'REJECTED', reason: 'spam account', decided_by: club.users.founder.id });
    const log = await audits(a.requestId);
    expect(log.map((e) => e.action)).toEqual(['member.reject']);
    expect(JSON.parse(log[0].after!)).toMatchObject({ status: 'REJECTED', reason: 'spam account' });
  });

  it('lets an admin kick and ban members, with the webhook and before/after in the audit log, once', async () => {
    const m = await person();
    const kicked = await api('POST', `/members/${m.id}/kick`, 'admin', { reason: 'rude' });
    expect(kicked.status).toBe(200);
    expect((await api('POST', `/members/${m.id}/kick`, 'admin')).body.kickedAt).toBe(kicked.body.kickedAt);
    expect(await events('member.kicked', m.id)).toEqual([expect.objectContaining({ kickedBy: club.users.admin.id })]);
    const kickLog = (await audits(m.id)).filter((e) => e.action === 'member.kick');
    expect(kickLog).toHaveLength(1);
    expect(JSON.parse(kickLog[0].before!)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
    expect(JSON.parse(kickLog[0].after!)).toMatchObject({ status: 'REJECTED', reason: 'rude' });
    const audit = await db().selectFrom('member_audit').selectAll().where('user_id', '=', m.id).execute();
    expect(audit).toEqual([expect.objectContaining({ action: 'KICK', reason: 'rude', actor_key_id: null })]);

    const banned = await api('POST', `/members/${m.id}/ban`, 'admin', {});
    expect(banned.status).toBe(200);
    expect((await api('POST', `/members/${m.id}/ban`, 'founder')).status).toBe(200);
    expect(await events('member.banned', m.id)).toEqual([expect.objectContaining({ bannedBy: club.users.admin.id })]);
    expect((await audits(m.id)).map((e) => e.action)).toEqual(['member.kick', 'member.ban']);
    expect((await membership(m.id)).status).toBe('BANNED');
  });

  it('lets the founder promote and demote, and remove an admin, who leaves as a member', async () => {
    const m = await person();
    const cookie = await import('./support/leaders.ts').then((l) => l.cookieFor(server, m.id, club.tag));
    const promoted = await api('PUT', `/members/${m.id}/role`, 'founder', { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ userId: m.id, role: 'admin' });
    expect((await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/me`, { cookie })).body.role).toBe('admin');
    // Setting the role it has writes nothing.
    expect((await api('PUT', `/members/${m.id}/role`, 'founder', { role: 'admin' })).status).toBe(200);
    const demoted = await api('PUT', `/members/${m.id}/role`, 'founder', { role: 'member' });
    expect(demoted.body).toEqual({ userId: m.id, role: 'member' });
    expect((await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/me`, { cookie })).status).toBe(403);
    const log = (await audits(m.id)).map((e) => [e.action, JSON.parse(e.before!), JSON.parse(e.after!)]);
    expect(log).toEqual([
      ['member.role', { role: 'member' }, { role: 'admin' }],
      ['member.role', { role: 'admin' }, { role: 'member' }],
    ]);

    const admin = await person('ACCEPTED', 'admin');
    expect((await api('POST', `/members/${admin.id}/kick`, 'founder')).status).toBe(200);
    expect(await membership(admin.id)).toMatchObject({ status: 'REJECTED', role: 'member' });
  });
});

describe('error', () => {
  it('refuses malformed queries with 400 naming the field, on both databases', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=10&q=', 'q'],
      ['limit=10&status=KICKED', 'status'],
      ['limit=10&q=a%00b', 'q'],
      ['limit=10&email=x', 'email'],
    ]) {
      const res = await api('GET', `/members?${query}`, 'founder');
      expect(res.status, query).toBe(400);
      expect(res.body.extras.field, query).toBe(field);
    }
    const csv = await api('GET', '/members/export?q=a%00b', 'founder');
    expect(csv.status).toBe(400);
    expect(csv.headers['content-type']).toContain('application/json');
  });

  it('answers an unknown request 404, a decided one 422, and writes no audit entry', async () => {
    const unknown = newId();
    const res = await api('POST', `/members/requests/${unknown}/approve`, 'founder');
    expect(res.status).toBe(404);
    const a = await applicant();
    await api('POST', `/members/requests/${a.requestId}/reject`, 'founder');
    const late = await api('POST', `/members/requests/${a.requestId}/approve`, 'founder');
    expect(late.status).toBe(422);
    expect(late.body.code).toBe('UNPROCESSABLE');
    expect((await audits(a.requestId)).map((e) => e.action)).toEqual(['member.reject']);
    expect(await audits(unknown)).toEqual([]);
  });

  it('never kicks, bans or changes the role of the founder, and changes roles of ACCEPTED members only', async () => {
    const founder = club.users.founder.id;
    for (const [method, path, json] of [
      ['POST', `/members/${founder}/kick`, undefined],
      ['POST', `/members/${founder}/ban`, undefined],
      ['PUT', `/members/${founder}/role`, { role: 'member' }],
    ] as const) {
      const res = await api(method, path, 'founder', json);
      expect(res.status, path).toBe(409);
      expect(res.body.code, path).toBe('INVALID_STATE');
    }
    expect(await membership(founder)).toMatchObject({ status: 'ACCEPTED', role: 'founder' });
    expect(await audits(founder)).toEqual([]);
    const p = await person('PENDING');
    const res = await api('PUT', `/members/${p.id}/role`, 'founder', { role: 'admin' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_STATE');
    const nobody = await api('PUT', `/members/${club.users.stranger.id}/role`, 'founder', { role: 'admin' });
    expect(nobody.status).toBe(404);
    const kickNobody = await api('POST', `/members/${club.users.stranger.id}/kick`, 'founder');
    expect(kickNobody.status).toBe(404);
  });
});

describe('security', () => {
  it('approving a former admin (kicked before kicks reset the role) makes a member, not an admin', async () => {
    const a = await applicant('exadmin');
    // What a kick left before it reset the role: the membership still marked admin, applying again.
    await db()
      .updateTable('memberships')
      .set({ role: 'admin' })
      .where('community_id', '=', club.id)
      .where('user_id', '=', a.userId)
      .execute();
    expect((await api('POST', `/members/requests/${a.requestId}/approve`, 'founder')).status).toBe(200);
    expect(await membership(a.userId)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
  });

  const reads = ['/members?limit=10', '/members/export', '/members/requests?limit=10'];

  it('answers nobody but the founder and admins, on every route, the same 403', async () => {
    const a = await applicant();
    const target = await person();
    const writes: [string, string, unknown][] = [
      ['POST', `/members/requests/${a.requestId}/approve`, undefined],
      ['POST', `/members/requests/${a.requestId}/reject`, {}],
      ['POST', `/members/${target.id}/kick`, {}],
      ['POST', `/members/${target.id}/ban`, {}],
      ['PUT', `/members/${target.id}/role`, { role: 'admin' }],
    ];
    const all: [string, string, unknown][] = [
      ...reads.map((p): [string, string, unknown] => ['GET', p, undefined]),
      ...writes,
    ];
    for (const [method, path, json] of all) {
      for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as const) {
        const res = await api(method, path, who, json);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.body.code, `${who} ${path}`).toBe('NOT_A_LEADER');
      }
      const anonymous = await api(method, path, undefined, json);
      expect(anonymous.status, path).toBe(401);
      // Another community's founder, on their own site naming this community.
      const foreign = await onSite(server, other.tag, method, `/api/admin/${club.tag}${path}`, {
        cookie: other.cookies.founder,
        json: json ?? (method === 'GET' ? undefined : {}),
      });
      expect(foreign.status, path).toBe(403);
      expect(foreign.body.code, path).toBe('NOT_A_LEADER');
    }
    expect(await membership(target.id)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
    expect(await audits(target.id)).toEqual([]);
    expect(await audits(a.requestId)).toEqual([]);
  });

  it('keeps admins from changing roles and from removing another admin: 403 FOUNDER_ONLY, nothing written', async () => {
    const m = await person();
    const peer = await person('ACCEPTED', 'admin');
    for (const [method, path, json] of [
      ['PUT', `/members/${m.id}/role`, { role: 'admin' }],
      ['PUT', `/members/${peer.id}/role`, { role: 'member' }],
      ['POST', `/members/${peer.id}/kick`, {}],
      ['POST', `/members/${peer.id}/ban`, {}],
    ] as const) {
      const res = await api(method, path, 'admin', json);
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe('FOUNDER_ONLY');
    }
    expect(await membership(m.id)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
    expect(await membership(peer.id)).toMatchObject({ status: 'ACCEPTED', role: 'admin' });
    expect([...(await audits(m.id)), ...(await audits(peer.id))]).toEqual([]);
    expect(await events('member.kicked', peer.id)).toEqual([]);
    // An admin cannot reach the founder either (the founder is never removed).
    expect((await api('POST', `/members/${club.users.founder.id}/kick`, 'admin')).status).toBe(409);
  });

  it('refuses cookie writes from a foreign origin or none with 403 CROSS_SITE_REQUEST', async () => {
    const m = await person();
    for (const origin of ['https://evil.example', null]) {
      const res = await api('POST', `/members/${m.id}/ban`, 'founder', {}, { origin });
      expect(res.status, String(origin)).toBe(403);
      expect(res.body.code, String(origin)).toBe('CROSS_SITE_REQUEST');
      const role = await api('PUT', `/members/${m.id}/role`, 'founder', { role: 'admin' }, { origin });
      expect(role.status).toBe(403);
    }
    expect(await membership(m.id)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
    expect(await audits(m.id)).toEqual([]);
  });

  it('refuses mass assignment: unknown fields and the founder role are 400, nothing written', async () => {
    const m = await person();
    const a = await applicant();
    for (const [method, path, json, field] of [
      ['PUT', `/members/${m.id}/role`, { role: 'founder' }, 'role'],
      ['PUT', `/members/${m.id}/role`, { role: 'admin', status: 'ACCEPTED' }, 'status'],
      ['POST', `/members/${m.id}/kick`, { reason: 'x', role: 'admin' }, 'role'],
      ['POST', `/members/requests/${a.requestId}/approve`, { status: 'APPROVED' }, 'status'],
      ['POST', `/members/requests/${a.requestId}/reject`, { reason: 'x', decidedBy: m.id }, 'decidedBy'],
    ] as const) {
      const res = await api(method, path, 'founder', json);
      expect(res.status, `${path} ${field}`).toBe(400);
      expect(JSON.stringify(res.body.extras), `${path} ${field}`).toContain(field);
    }
    expect(await membership(m.id)).toMatchObject({ status: 'ACCEPTED', role: 'member' });
    expect((await membership(a.userId)).status).toBe('PENDING');
    expect([...(await audits(m.id)), ...(await audits(a.requestId))]).toEqual([]);
  });

  it('never puts the private fields in the public /v1 member list', async () => {
    const m = await person();
    await db().updateTable('users').set({ phone: '+15559876543' }).where('id', '=', m.id).execute();
    const res = await server.request(`/v1/communities/${club.tag}/members?limit=100`, { key });
    expect(res.status).toBe(200);
    const row = res.body.find((x: { userId: string }) => x.userId === m.id);
    expect(Object.keys(row).sort()).toEqual(['bio', 'joinedAt', 'name', 'profileImage', 'userId', 'usertag']);
    expect(res.text).not.toContain('@example.com');
    expect(res.text).not.toContain('+15559876543');
    expect(res.text).not.toContain('"role"');
  });
});
