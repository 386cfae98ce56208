// The console's members pages (docs/leader-console.md, "Pages", "Members and requests"):
// `/admin/members` (the directory with private fields, search, the CSV link, kick, ban, the admin
// role) and `/admin/members/requests` (the review queue, approve, reject), acting through the
// API's operations: the same refusals, the same audit entries, nothing written by a path of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { makeAcceptedMembers, makeKey, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { csrfFor, formOnSite, leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let key: string;
let segmentId: string;
let seq = 0;

const db = () => server.database.db;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cmem');
  other = await leaderFixture(server, 'cmemo');
  key = await makeKey(db(), club.id, ['WRITE_MEMBERS', 'READ_PUBLIC']);
  segmentId = await makeSegment(db(), club.id, { name: 'Makers' }, [
    { id: 'why', type: 'long_text', label: 'Why do you want to join?', required: true },
    { id: 'days', type: 'multi_select', label: 'Which days?', options: ['Mon', 'Sat'] },
  ]);
});
afterAll(async () => {
  await server?.close();
});

const page = (path: string, who?: Person, f: LeaderFixture = club) =>
  onSite(server, f.tag, 'GET', path, { cookie: who ? f.cookies[who] : undefined });

/** A console form post by `who`, with their session's `_csrf` unless the fields say otherwise. */
async function post(path: string, who: Person, fields: Record<string, string> = {}, f: LeaderFixture = club) {
  const cookie = f.cookies[who];
  return formOnSite(server, f.tag, path, { _csrf: csrfOfAny(cookie), ...fields }, { cookie });
}

/** The `_csrf` the site's forms carry for this cookie's session (pages/forms.ts), whoever it is. */
function csrfOfAny(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
  return csrfTokenFor(csrfKey(server.sessions), sid);
}

/** A user with a membership in `club` of the given status and role. */
async function person(
  status: 'ACCEPTED' | 'PENDING' | 'REJECTED' | 'BANNED' = 'ACCEPTED',
  role: 'member' | 'admin' = 'member',
) {
  const u = await makeUser(db(), `cm${++seq}${Date.now().toString(36)}`);
  const membershipId = await makeMembership(db(), club.id, u.id, status);
  if (role !== 'member') await db().updateTable('memberships').set({ role }).where('id', '=', membershipId).execute();
  return u;
}

/** A PENDING application through /v1, as a server would submit it. */
async function applicant(label = 'ap') {
  const n = `${label}${++seq}${Date.now().toString(36)}`;
  const res = await server.request(`/v1/communities/${club.tag}/segments/${segmentId}/submit`, {
    method: 'POST',
    key,
    json: { answers: { email: `${n}@example.com`, name: `Applicant ${n}`, why: `Because <b>${n}</b>`, days: ['Sat'] } },
  });
  expect(res.status).toBe(201);
  const user = await db()
    .selectFrom('users')
    .select('id')
    .where('email', '=', `${n}@example.com`)
    .executeTakeFirstOrThrow();
  return { requestId: res.body.requestId as string, userId: user.id, n };
}

const membership = (userId: string, f: LeaderFixture = club) =>
  db()
    .selectFrom('memberships')
    .select(['status', 'role'])
    .where('community_id', '=', f.id)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
const requestStatus = async (id: string) =>
  (await db().selectFrom('membership_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const audits = (action: string, targetId: string) =>
  db()
    .selectFrom('audit_log')
    .select(['after'])
    .where('community_id', '=', club.id)
    .where('action', '=', action)
    .where('target_id', '=', targetId)
    .execute();

describe('happy', () => {
  it('shows the directory with its private fields to the founder and an admin, never stored', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const res = await page('/admin/members', who);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Members</h1>');
      expect(res.text).toMatch(/<a href="\/admin\/members" aria-current="page">Members<\/a>/);
      // Private fields: e-mail, role, status, of every kind of membership.
      for (const p of ['member', 'pending', 'bannedAdmin'] as const) expect(res.text).toContain(club.users[p].email);
      expect(res.text).toContain('<td>BANNED');
      expect(res.text).toContain('<td>PENDING');
      expect(res.text).toContain('href="/api/admin/' + club.tag + '/members/export" download>Download CSV</a>');
    }
  });

  it('searches and filters by status with a GET form, and links the CSV of the same search', async () => {
    const res = await page(`/admin/members?q=${encodeURIComponent(club.tag + '-m')}&status=ACCEPTED`, 'founder');
    expect(res.status).toBe(200);
    expect(res.text).toContain(club.users.member.email);
    expect(res.text).not.toContain(club.users.admin.email);
    expect(res.text).toContain('1–1 of 1');
    expect(res.text).toContain('<option value="ACCEPTED" selected>');
    const href = /href="([^"]+)" download>Download CSV/.exec(res.text)![1].replace(/&amp;/g, '&');
    expect(href).toBe(`/api/admin/${club.tag}/members/export?q=${encodeURIComponent(club.tag + '-m')}&status=ACCEPTED`);
    // The link's target: a GET with the page's cookie answers the CSV of exactly that search.
    const csv = await page(href, 'founder');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^user_id,name,usertag,email/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(club.users.member.email);
    const none = await page('/admin/members?q=nobody-like-this', 'founder');
    expect(none.text).toContain('No one matches this search.');
  });

  it('pages by 50 with links that keep the search', async () => {
    const f = await leaderFixture(server, 'cmemp');
    await makeAcceptedMembers(db(), f.id, 52, `${f.tag}-bulk`);
    const first = await page(`/admin/members?q=${f.tag}-bulk`, 'founder', f);
    expect(first.text).toContain('1–50 of 52');
    expect(first.text).toContain(`href="/admin/members?q=${f.tag}-bulk&amp;offset=50" rel="next"`);
    const second = await page(`/admin/members?q=${f.tag}-bulk&offset=50`, 'founder', f);
    expect(second.text).toContain('51–52 of 52');
  });

  it('kicks a member once confirmed, with the reason, back to the same search with a notice', async () => {
    const m = await person();
    const res = await post(`/admin/members/${m.id}/kick`, 'admin', {
      confirmed: 'yes',
      reason: 'Spam in the chat',
      q: 'x',
      status: 'ACCEPTED',
      name: 'Someone',
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/members?q=x&status=ACCEPTED&done=kicked');
    expect((await membership(m.id)).status).toBe('REJECTED');
    const entries = await audits('member.kick', m.id);
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries[0].after)).toContain('Spam in the chat');
    const after = await page('/admin/members?done=kicked', 'admin');
    expect(after.text).toContain('The member was removed.');
  });

  it('bans once confirmed', async () => {
    const m = await person();
    const res = await post(`/admin/members/${m.id}/ban`, 'founder', { confirmed: 'yes' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/members?done=banned');
    expect((await membership(m.id)).status).toBe('BANNED');
    expect(await audits('member.ban', m.id)).toHaveLength(1);
  });

  it('lets the founder promote and demote, a control admins do not see', async () => {
    const m = await person();
    const founderView = await page('/admin/members', 'founder');
    expect(founderView.text).toContain(`action="/admin/members/${m.id}/role"`);
    const adminView = await page('/admin/members', 'admin');
    expect(adminView.text).not.toContain('/role"');
    expect(adminView.text).not.toContain('Make admin');
    // Nor kick or ban on another admin's row, nor anything on the founder's.
    expect(adminView.text).toContain('Only the founder can remove an admin');
    expect(adminView.text).not.toContain(`action="/admin/members/${club.users.founder.id}/`);
    expect(founderView.text).toContain(`action="/admin/members/${club.users.admin.id}/kick"`);
    const up = await post(`/admin/members/${m.id}/role`, 'founder', { role: 'admin' });
    expect(up.status).toBe(303);
    expect(up.headers.location).toBe('/admin/members?done=promoted');
    expect((await membership(m.id)).role).toBe('admin');
    const down = await post(`/admin/members/${m.id}/role`, 'founder', { role: 'member' });
    expect(down.headers.location).toBe('/admin/members?done=demoted');
    expect((await membership(m.id)).role).toBe('member');
    expect(await audits('member.role', m.id)).toHaveLength(2);
  });

  it('lists the review queue oldest first with labelled answers, segment and source, escaped', async () => {
    const a = await applicant('first');
    const b = await applicant('second');
    const res = await page('/admin/members/requests', 'admin');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toMatch(/<a href="\/admin\/members\/requests" aria-current="page">Requests<\/a>/);
    expect(res.text.indexOf(a.n)).toBeLessThan(res.text.indexOf(b.n));
    expect(res.text).toContain('<dt>Why do you want to join?</dt><dd>Because &lt;b&gt;' + a.n);
    expect(res.text).toContain('<dt>Which days?</dt><dd>Sat</dd>');
    expect(res.text).toContain('segment Makers');
    expect(res.text).not.toContain('<b>' + a.n);
    expect(res.text).toContain(`action="/admin/members/requests/${a.requestId}/approve"`);
  });

  it('approves a request: a member now, out of the queue, with a notice', async () => {
    const a = await applicant();
    const res = await post(`/admin/members/requests/${a.requestId}/approve`, 'admin');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/members/requests?done=approved');
    expect((await membership(a.userId)).status).toBe('ACCEPTED');
    expect(await audits('member.approve', a.requestId)).toHaveLength(1);
    const queue = await page('/admin/members/requests?done=approved', 'admin');
    expect(queue.text).toContain('The request was approved');
    expect(queue.text).not.toContain(a.requestId);
  });

  it('rejects a request once confirmed, the reason kept for the leaders', async () => {
    const a = await applicant();
    const res = await post(`/admin/members/requests/${a.requestId}/reject`, 'founder', {
      confirmed: 'yes',
      reason: 'Not a maker',
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/members/requests?done=rejected');
    expect(await requestStatus(a.requestId)).toBe('REJECTED');
    const entries = await audits('member.reject', a.requestId);
    expect(JSON.stringify(entries[0].after)).toContain('Not a maker');
  });
});

describe('error', () => {
  it('a destructive post without confirmed=yes changes nothing and answers the question page', async () => {
    const m = await person();
    for (const verb of ['kick', 'ban'] as const) {
      const res = await post(`/admin/members/${m.id}/${verb}`, 'admin', { reason: 'Why <i>not</i>', name: 'Mo <b>' });
      expect(res.status, verb).toBe(200);
      expect(res.text).toContain('<h1>Are you sure?</h1>');
      expect(res.text).toContain('Mo &lt;b&gt;');
      // Its button posts the same fields again, confirmed, with the session's token.
      expect(res.text).toContain(`action="/admin/members/${m.id}/${verb}"`);
      expect(res.text).toContain('name="confirmed" value="yes"');
      expect(res.text).toContain('name="reason" value="Why &lt;i&gt;not&lt;/i&gt;"');
      expect(res.text).toMatch(/name="_csrf" value="[^"]+"/);
      expect((await membership(m.id)).status).toBe('ACCEPTED');
    }
    const a = await applicant();
    const res = await post(`/admin/members/requests/${a.requestId}/reject`, 'admin', { reason: 'no' });
    expect(res.text).toContain('<h1>Are you sure?</h1>');
    expect(await requestStatus(a.requestId)).toBe('PENDING');
  });

  it('shows the refusal of approving a request already rejected, with its status', async () => {
    const a = await applicant();
    await post(`/admin/members/requests/${a.requestId}/reject`, 'founder', { confirmed: 'yes' });
    const res = await post(`/admin/members/requests/${a.requestId}/approve`, 'admin');
    expect(res.status).toBe(422);
    expect(res.text).toContain('<h1>Requests</h1>');
    expect(res.text).toMatch(/<p class="notice error" role="alert">[^<]+<\/p>/);
    expect(await requestStatus(a.requestId)).toBe('REJECTED');
    const unknown = await post(`/admin/members/requests/${crypto.randomUUID()}/approve`, 'admin');
    expect(unknown.status).toBe(404);
    const malformed = await post('/admin/members/requests/not-an-id/approve', 'admin');
    expect(malformed.status).toBe(400);
  });

  it('shows why an admin cannot kick the founder or another admin, or change a role', async () => {
    const founderKick = await post(`/admin/members/${club.users.founder.id}/kick`, 'admin', { confirmed: 'yes' });
    expect(founderKick.status).toBe(409);
    expect(founderKick.text).toContain('<h1>Members</h1>');
    expect(founderKick.text).toContain('role="alert"');
    expect((await membership(club.users.founder.id)).status).toBe('ACCEPTED');

    const peer = await person('ACCEPTED', 'admin');
    const adminBan = await post(`/admin/members/${peer.id}/ban`, 'admin', { confirmed: 'yes' });
    expect(adminBan.status).toBe(403);
    expect(adminBan.text).toContain('Only the community&#39;s founder can kick or ban an admin');
    expect((await membership(peer.id)).status).toBe('ACCEPTED');

    const m = await person();
    const forced = await post(`/admin/members/${m.id}/role`, 'admin', { role: 'admin' });
    expect(forced.status).toBe(403);
    expect(forced.text).toContain('Only the community&#39;s founder can make or unmake admins');
    expect((await membership(m.id)).role).toBe('member');
  });

  it('refuses a role the API does not name, an unknown user and a bad filter', async () => {
    const m = await person();
    const founderRole = await post(`/admin/members/${m.id}/role`, 'founder', { role: 'founder' });
    expect(founderRole.status).toBe(400);
    expect((await membership(m.id)).role).toBe('member');
    const nobody = await post(`/admin/members/${crypto.randomUUID()}/kick`, 'founder', { confirmed: 'yes' });
    expect(nobody.status).toBe(404);
    const badStatus = await page('/admin/members?status=SLEEPING', 'founder');
    expect(badStatus.status).toBe(400);
    expect(badStatus.text).toContain('role="alert"');
    const tooLong = await page(`/admin/members?q=${'x'.repeat(101)}`, 'founder');
    expect(tooLong.status).toBe(400);
  });
});

describe('security', () => {
  it('sends an anonymous visitor to sign in on every page', async () => {
    for (const path of ['/admin/members', '/admin/members/requests']) {
      const res = await page(path);
      expect(res.status).toBe(403);
      expect(res.text).toContain('/sign-in?next=');
      expect(res.text).not.toContain('class="console"');
    }
  });

  it('refuses a member, an applicant, a banned admin and a stranger, pages and forms alike', async () => {
    const m = await person();
    const a = await applicant();
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      for (const path of ['/admin/members', '/admin/members/requests']) {
        const res = await page(path, who);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).not.toContain(club.users.admin.email);
      }
      // With a valid token of their own session: the console's gate refuses them.
      for (const [path, fields] of [
        [`/admin/members/${m.id}/kick`, { confirmed: 'yes' }],
        [`/admin/members/${m.id}/ban`, { confirmed: 'yes' }],
        [`/admin/members/${m.id}/role`, { role: 'admin' }],
        [`/admin/members/requests/${a.requestId}/approve`, {}],
        [`/admin/members/requests/${a.requestId}/reject`, { confirmed: 'yes' }],
      ] as const) {
        const res = await post(path, who, fields);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).toContain('This page is for the leaders of');
      }
    }
    expect(await membership(m.id)).toEqual({ status: 'ACCEPTED', role: 'member' });
    expect(await requestStatus(a.requestId)).toBe('PENDING');
  });

  it("refuses another community's founder here, and there for this community's people", async () => {
    const m = await person();
    const a = await applicant();
    const here = await formOnSite(
      server,
      club.tag,
      `/admin/members/${m.id}/kick`,
      { _csrf: csrfOfAny(other.cookies.founder), confirmed: 'yes' },
      { cookie: other.cookies.founder },
    );
    expect(here.status).toBe(403);
    // On their own site, this community's member and request are not theirs: 404, nothing changed.
    const there = await post(`/admin/members/${m.id}/kick`, 'founder', { confirmed: 'yes' }, other);
    expect(there.status).toBe(404);
    const approve = await post(`/admin/members/requests/${a.requestId}/approve`, 'founder', {}, other);
    expect(approve.status).toBe(404);
    const list = await page('/admin/members', 'founder', other);
    expect(list.text).not.toContain(club.users.member.email);
    expect(await membership(m.id)).toEqual({ status: 'ACCEPTED', role: 'member' });
    expect(await requestStatus(a.requestId)).toBe('PENDING');
  });

  it('refuses a post without a token, with a forged one, without a cookie or from another site', async () => {
    const m = await person();
    const cookie = club.cookies.founder;
    const path = `/admin/members/${m.id}/ban`;
    const token = await csrfFor(server, club.tag, cookie, '/admin/members');
    const attempts = [
      formOnSite(server, club.tag, path, { confirmed: 'yes' }, { cookie }),
      formOnSite(server, club.tag, path, { _csrf: 'forged-token', confirmed: 'yes' }, { cookie }),
      formOnSite(server, club.tag, path, { _csrf: csrfOfAny(club.cookies.member), confirmed: 'yes' }, { cookie }),
      formOnSite(server, club.tag, path, { _csrf: token, confirmed: 'yes' }),
      formOnSite(
        server,
        club.tag,
        path,
        { _csrf: token, confirmed: 'yes' },
        { cookie, origin: 'https://evil.example' },
      ),
      formOnSite(server, club.tag, path, { _csrf: token, confirmed: 'yes' }, { cookie, origin: null }),
      formOnSite(
        server,
        club.tag,
        path,
        { _csrf: token, confirmed: 'yes' },
        { cookie, headers: { 'Sec-Fetch-Site': 'cross-site' } },
      ),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('Form not accepted');
    }
    expect((await membership(m.id)).status).toBe('ACCEPTED');
  });

  it('sets nothing the form does not name: extra fields on a kick, a role change or an approval', async () => {
    const m = await person();
    const kick = await post(`/admin/members/${m.id}/kick`, 'admin', {
      confirmed: 'yes',
      role: 'founder',
      status: 'ACCEPTED',
      userId: club.users.founder.id,
      communityTag: other.tag,
    });
    expect(kick.status).toBe(303);
    expect(await membership(m.id)).toEqual({ status: 'REJECTED', role: 'member' });
    expect((await membership(club.users.founder.id)).status).toBe('ACCEPTED');

    const n = await person();
    const up = await post(`/admin/members/${n.id}/role`, 'founder', { role: 'admin', status: 'BANNED' });
    expect(up.status).toBe(303);
    expect(await membership(n.id)).toEqual({ status: 'ACCEPTED', role: 'admin' });

    const a = await applicant();
    const approve = await post(`/admin/members/requests/${a.requestId}/approve`, 'admin', { role: 'admin' });
    expect(approve.status).toBe(303);
    expect(await membership(a.userId)).toEqual({ status: 'ACCEPTED', role: 'member' });
  });

  it('escapes what members wrote about themselves', async () => {
    const u = await person();
    await db().updateTable('users').set({ name: '<script>alert(1)</script>' }).where('id', '=', u.id).execute();
    const res = await page('/admin/members', 'founder');
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
