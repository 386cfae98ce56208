// The console's broadcast pages (docs/leader-console.md, "Pages" > "Broadcasts"): the list with the
// sends left in the 24 h window, compose (test, send, schedule) with its framed preview, one
// broadcast and its cancel, each through the API's own operation. No dispatcher runs here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeSegment } from './support/factory.ts';
import { rsvpEvent } from './support/overview-rows.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { csrfFor, formOnSite, leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';

const HOUR = 60 * 60 * 1000;

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

const db = () => server.database.db;

async function withBroadcasts(prefix: string): Promise<LeaderFixture> {
  const f = await leaderFixture(server, prefix);
  await db()
    .updateTable('communities')
    .set({ features: JSON.stringify(['broadcasts']) })
    .where('id', '=', f.id)
    .execute();
  return f;
}

const page = (path: string, cookie?: string, f: LeaderFixture = club) => onSite(server, f.tag, 'GET', path, { cookie });
const csrf = (f: LeaderFixture, who: Person = 'founder') =>
  csrfFor(server, f.tag, f.cookies[who], '/admin/broadcasts/new');
async function post(
  f: LeaderFixture,
  path: string,
  fields: Record<string, string | string[]>,
  who: Person = 'founder',
) {
  return formOnSite(server, f.tag, path, { _csrf: await csrf(f, who), ...fields }, { cookie: f.cookies[who] });
}
const rowsOf = (f: LeaderFixture) =>
  db().selectFrom('broadcasts').selectAll().where('community_id', '=', f.id).orderBy('created_at').execute();
const auditOf = (f: LeaderFixture) =>
  db().selectFrom('audit_log').selectAll().where('community_id', '=', f.id).execute();
/** A datetime-local value (UTC, to the minute) `ms` from now. */
const localIn = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 16);

async function insertSent(f: LeaderFixture, hoursAgo: number) {
  await db()
    .insertInto('broadcasts')
    .values({
      id: newId(),
      community_id: f.id,
      subject: `Earlier ${hoursAgo}`,
      html: null,
      text: 'Earlier',
      audience_segment_ids: null,
      test_to: null,
      status: 'SENT',
      send_at: new Date(Date.now() - hoursAgo * HOUR).toISOString(),
      recipients: 1,
      created_at: nowIso(),
    })
    .execute();
}

beforeAll(async () => {
  server = await startTestServer();
  club = await withBroadcasts('cbr');
  other = await withBroadcasts('cbo');
});
afterAll(async () => {
  await server?.close();
});

describe('happy', () => {
  it('lists broadcasts with the sends left, the same number the API answers', async () => {
    const f = await withBroadcasts('cbl');
    await insertSent(f, 3);
    await insertSent(f, 30);
    for (const who of ['founder', 'admin'] as const) {
      const [res, api] = await Promise.all([
        page('/admin/broadcasts', f.cookies[who], f),
        onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/broadcasts/allowance`, { cookie: f.cookies[who] }),
      ]);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(api.body.remaining).toBe(4);
      expect(res.text).toContain(`<strong>${api.body.remaining} of 5 sends left</strong>`);
      expect(res.text).toContain('Earlier 3');
      expect(res.text).toContain('Earlier 30');
      expect(res.text).toContain('<td>SENT</td>');
      expect(res.text).toContain('href="/admin/broadcasts/new"');
    }
  });

  it('sends now to every member: a 303 to the broadcast, queued, with its audit entry', async () => {
    const f = await withBroadcasts('cbs');
    const res = await post(f, '/admin/broadcasts', {
      subject: 'Hello {{name}}',
      html: '<p>News</p>',
      text: '',
      audience: 'everyone',
      sendAt: '',
      intent: 'send',
    });
    expect(res.status).toBe(303);
    const [row] = await rowsOf(f);
    expect(res.headers.location).toBe(`/admin/broadcasts/${row.id}?done=sent`);
    expect(row).toMatchObject({ status: 'QUEUED', test_to: null, audience_segment_ids: null, recipients: 3 });
    expect((await auditOf(f)).map((e) => e.action)).toEqual(['broadcast.send']);
    const shown = await page(res.headers.location!, f.cookies.founder, f);
    expect(shown.text).toContain('<h1>Hello {{name}}</h1>');
    expect(shown.text).toContain('Queued: it is being sent');
    expect(shown.text).not.toContain('Cancel this broadcast');
    const list = await page('/admin/broadcasts', f.cookies.founder, f);
    expect(list.text).toContain('<strong>4 of 5 sends left</strong>');
  });

  it('sends a test to the leader’s own address, whatever address the post names', async () => {
    const f = await withBroadcasts('cbt');
    const res = await post(
      f,
      '/admin/broadcasts',
      { subject: 'Try', html: '<p>Hi</p>', audience: 'everyone', intent: 'test', testTo: 'evil@example.net' },
      'admin',
    );
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/\?done=test$/);
    const [row] = await rowsOf(f);
    expect(row.test_to).toBe(f.users.admin.email);
    expect((await auditOf(f)).map((e) => e.action)).toEqual(['broadcast.test']);
  });

  it('schedules for a UTC time in a segment, and cancels it after a confirmation', async () => {
    const f = await withBroadcasts('cbc');
    const segment = await makeSegment(db(), f.id, { name: 'Volunteers <3' });
    await db()
      .updateTable('memberships')
      .set({ segment_id: segment })
      .where('community_id', '=', f.id)
      .where('user_id', '=', f.users.member.id)
      .execute();
    const compose = await page('/admin/broadcasts/new', f.cookies.founder, f);
    expect(compose.text).toContain('Volunteers &lt;3');
    expect(compose.text).toContain('Send at (UTC)');
    const when = localIn(2 * HOUR);
    const res = await post(f, '/admin/broadcasts', {
      subject: 'Later',
      text: 'See you',
      audience: 'segments',
      segmentIds: [segment],
      sendAt: when,
      intent: 'schedule',
    });
    expect(res.status).toBe(303);
    const [row] = await rowsOf(f);
    expect(row.status).toBe('SCHEDULED');
    expect(row.send_at).toBe(`${when}:00.000Z`);
    expect(JSON.parse(row.audience_segment_ids!)).toEqual([segment]);
    const detail = await page(`/admin/broadcasts/${row.id}`, f.cookies.founder, f);
    expect(detail.text).toContain('Volunteers &lt;3');
    expect(detail.text).toMatch(/data-confirm="Cancel/);
    // Without confirmation (no JavaScript): a page that asks, and nothing changes.
    const asked = await post(f, `/admin/broadcasts/${row.id}/cancel`, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Are you sure?');
    expect(asked.text).toContain('name="confirmed" value="yes"');
    expect((await rowsOf(f))[0].status).toBe('SCHEDULED');
    const done = await post(f, `/admin/broadcasts/${row.id}/cancel`, { confirmed: 'yes' });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/admin/broadcasts/${row.id}?done=cancelled`);
    expect((await rowsOf(f))[0].status).toBe('CANCELLED');
    expect((await auditOf(f)).map((e) => e.action).sort()).toEqual(['broadcast.cancel', 'broadcast.schedule']);
  });

  it('previews the e-mail as it would be sent, in a document that runs no script, storing nothing', async () => {
    const f = await withBroadcasts('cbp');
    const compose = await page('/admin/broadcasts/new', f.cookies.founder, f);
    expect(compose.headers['content-security-policy']).toContain("frame-src 'self'");
    expect(compose.text).toContain('formaction="/admin/broadcasts/preview" formtarget="broadcast-preview"');
    expect(compose.text).toContain('<iframe name="broadcast-preview"');
    const res = await post(f, '/admin/broadcasts/preview', {
      subject: 'Hi {{name}}',
      html: '<p>Dear {{name}}</p><script>alert(1)</script><img src=x onerror=alert(2)>',
      audience: 'everyone',
      intent: 'send',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('script-src');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toContain(`<h1>Subject: Hi User ${f.tag}-f</h1>`);
    expect(res.text).toContain('<p>Dear ');
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toContain('onerror');
    expect(res.text).toContain('Would reach 3 people now.');
    expect(res.text).toContain('unsubscribe?token=preview');
    expect(await rowsOf(f)).toHaveLength(0);
    expect(await auditOf(f)).toHaveLength(0);
  });

  it('lists the segments a broadcast may go to through the API', async () => {
    const f = await withBroadcasts('cba');
    const a = await makeSegment(db(), f.id, { name: 'Alpha', sort_order: 1 });
    const b = await makeSegment(db(), f.id, { name: 'Beta', sort_order: 0, is_active: 0 });
    const res = await onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/broadcasts/audiences`, {
      cookie: f.cookies.admin,
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual([
      { id: b, name: 'Beta', active: false },
      { id: a, name: 'Alpha', active: true },
    ]);
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const refused = await onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/broadcasts/audiences`, {
        cookie: f.cookies[who],
      });
      expect(refused.status, who).toBe(403);
      expect(refused.body.code, who).toBe('NOT_A_LEADER');
    }
    const theirs = await onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/broadcasts/audiences`, {
      cookie: other.cookies.founder,
    });
    // Their cookie is their site's: here it signs nobody in.
    expect(theirs.status).toBe(401);
    expect(JSON.stringify(theirs.body)).not.toContain('Alpha');
  });
});

describe('error', () => {
  it('re-shows the form with the error next to the field and the typed values', async () => {
    const f = await withBroadcasts('cbe');
    const empty = await post(f, '/admin/broadcasts', { subject: '', html: '<p>Body & soul</p>', intent: 'send' });
    expect(empty.status).toBe(400);
    expect(empty.text).toMatch(
      /id="field-subject" name="subject" required aria-invalid="true" aria-describedby="field-subject-hint error-subject"/,
    );
    expect(empty.text).toContain('id="error-subject"');
    expect(empty.text).toContain('&lt;p&gt;Body &amp; soul&lt;/p&gt;</textarea>');
    const noBody = await post(f, '/admin/broadcasts', { subject: 'Hi', html: '', text: '', intent: 'send' });
    expect(noBody.status).toBe(400);
    expect(noBody.text).toContain('id="error-html"');
    const noTime = await post(f, '/admin/broadcasts', { subject: 'Hi', text: 'x', sendAt: '', intent: 'schedule' });
    expect(noTime.status).toBe(400);
    expect(noTime.text).toContain('Choose when to send it');
    const past = await post(f, '/admin/broadcasts', {
      subject: 'Hi',
      text: 'x',
      sendAt: localIn(-HOUR),
      intent: 'schedule',
    });
    expect(past.status).toBe(400);
    expect(past.text).toMatch(/id="error-sendAt">[^<]*future/);
    const bad = await post(f, '/admin/broadcasts', {
      subject: 'Hi',
      text: 'x',
      sendAt: 'tomorrow',
      intent: 'schedule',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('A date and time in UTC');
    const noSegment = await post(f, '/admin/broadcasts', {
      subject: 'Hi',
      text: 'x',
      audience: 'segments',
      intent: 'send',
    });
    expect(noSegment.status).toBe(400);
    expect(noSegment.text).toContain('id="error-segmentIds"');
    const foreign = await makeSegment(db(), other.id);
    const theirs = await post(f, '/admin/broadcasts', {
      subject: 'Hi',
      text: 'x',
      audience: 'segments',
      segmentIds: [foreign],
      intent: 'send',
    });
    expect(theirs.status).toBeGreaterThanOrEqual(400);
    expect(theirs.status).toBeLessThan(500);
    expect(theirs.text).toContain('id="error-segmentIds"');
    expect(await rowsOf(f)).toHaveLength(0);
    expect(await auditOf(f)).toHaveLength(0);
  });

  it('refuses a sixth send in 24 hours on the form, and shows none left', async () => {
    const f = await withBroadcasts('cbx');
    for (const h of [1, 2, 3, 4, 5]) await insertSent(f, h);
    const res = await post(f, '/admin/broadcasts', { subject: 'One more', text: 'x', intent: 'send' });
    expect(res.status).toBe(429);
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain('<strong>0 of 5 sends left</strong>');
    expect(res.text).toContain('One more');
    expect(await rowsOf(f)).toHaveLength(5);
  });

  it('answers a preview it cannot make with the reason, in the frame', async () => {
    const res = await post(club, '/admin/broadcasts/preview', { subject: '', text: 'x' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Nothing to preview yet. subject:');
  });

  it('answers 404 for an unknown broadcast and 409 for cancelling a sent one', async () => {
    const missing = await page(`/admin/broadcasts/${newId()}`, club.cookies.founder);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Broadcast not found');
    const notUuid = await page('/admin/broadcasts/nope', club.cookies.founder);
    expect(notUuid.status).toBe(400);
    await insertSent(club, 1);
    const [sent] = await rowsOf(club);
    const refused = await post(club, `/admin/broadcasts/${sent.id}/cancel`, { confirmed: 'yes' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Only a SCHEDULED broadcast can be cancelled');
  });

  it('says so when the community has no broadcasts feature', async () => {
    const f = await leaderFixture(server, 'cbf');
    for (const path of ['/admin/broadcasts', '/admin/broadcasts/new']) {
      const res = await page(path, f.cookies.founder, f);
      expect(res.status, path).toBe(403);
      expect(res.text, path).toContain('role="alert"');
    }
  });
});

describe('security', () => {
  it('opens no broadcast page to anyone but the founder and admins', async () => {
    const [sent] = await rowsOf(club);
    for (const path of ['/admin/broadcasts', '/admin/broadcasts/new', `/admin/broadcasts/${sent.id}`]) {
      for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
        const res = await page(path, club.cookies[who]);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).not.toContain('class="console"');
      }
      const anonymous = await page(path);
      expect(anonymous.status).toBe(403);
      expect(anonymous.text).toContain('/sign-in?next=');
    }
  });

  it('lets nobody else send, preview or cancel, with their own valid form token', async () => {
    const f = await withBroadcasts('cbn');
    const event = await rsvpEvent(db(), f.id);
    const later = await post(f, '/admin/broadcasts', {
      subject: 'Later',
      text: 'x',
      sendAt: localIn(HOUR),
      intent: 'schedule',
    });
    expect(later.status).toBe(303);
    const [row] = await rowsOf(f);
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      // Their token is valid for their session (read from an event's RSVP form): the console's gate is what refuses them.
      const token = await csrfFor(server, f.tag, f.cookies[who], `/events/${event.slug}`);
      for (const [path, fields] of [
        ['/admin/broadcasts', { subject: 'X', text: 'x', intent: 'send' }],
        ['/admin/broadcasts/preview', { subject: 'X', text: 'x' }],
        [`/admin/broadcasts/${row.id}/cancel`, { confirmed: 'yes' }],
      ] as const) {
        const res = await formOnSite(server, f.tag, path, { _csrf: token, ...fields }, { cookie: f.cookies[who] });
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).not.toContain('Would reach');
      }
    }
    expect(await rowsOf(f)).toHaveLength(1);
    expect((await rowsOf(f))[0].status).toBe('SCHEDULED');
  });

  it("finds no broadcast of another community, and another community's founder gets nothing here", async () => {
    const f = await withBroadcasts('cbi');
    const theirs = await post(other, '/admin/broadcasts', {
      subject: 'Theirs',
      text: 'x',
      sendAt: localIn(HOUR),
      intent: 'schedule',
    });
    expect(theirs.status).toBe(303);
    const [row] = await rowsOf(other);
    const seen = await page(`/admin/broadcasts/${row.id}`, f.cookies.founder, f);
    expect(seen.status).toBe(404);
    expect(seen.text).not.toContain('Theirs');
    const cancelled = await post(f, `/admin/broadcasts/${row.id}/cancel`, { confirmed: 'yes' });
    expect(cancelled.status).toBe(404);
    expect((await rowsOf(other))[0].status).toBe('SCHEDULED');
    // Their founder on this site: not a leader here.
    const here = await page('/admin/broadcasts', other.cookies.founder, f);
    expect(here.status).toBe(403);
  });

  it('refuses a post without the form token, with a forged one, and from another site', async () => {
    const f = await withBroadcasts('cbk');
    const fields = { subject: 'Forged', text: 'x', intent: 'send' };
    const none = await formOnSite(server, f.tag, '/admin/broadcasts', fields, { cookie: f.cookies.founder });
    expect(none.status).toBe(403);
    const forged = await formOnSite(
      server,
      f.tag,
      '/admin/broadcasts',
      { ...fields, _csrf: 'forged' },
      { cookie: f.cookies.founder },
    );
    expect(forged.status).toBe(403);
    const token = await csrf(f);
    const crossSite = await formOnSite(
      server,
      f.tag,
      '/admin/broadcasts',
      { ...fields, _csrf: token },
      {
        cookie: f.cookies.founder,
        origin: 'https://evil.example',
      },
    );
    expect(crossSite.status).toBe(403);
    const noCookie = await formOnSite(server, f.tag, '/admin/broadcasts', { ...fields, _csrf: token });
    expect(noCookie.status).toBe(403);
    expect(await rowsOf(f)).toHaveLength(0);
  });

  it('takes only the fields the form has: extra fields set nothing', async () => {
    const f = await withBroadcasts('cbm');
    const res = await post(f, '/admin/broadcasts', {
      subject: 'Plain',
      text: 'x',
      intent: 'send',
      status: 'SENT',
      communityId: other.id,
      recipients: '0',
      sendAt: localIn(HOUR),
      'audience.segmentIds': newId(),
    });
    expect(res.status).toBe(303);
    const [row] = await rowsOf(f);
    // Sent now (intent send ignores the time), to every member, in this community, queued.
    expect(row).toMatchObject({ status: 'QUEUED', community_id: f.id, audience_segment_ids: null, recipients: 3 });
    expect(await rowsOf(other)).toHaveLength(1);
  });
});
