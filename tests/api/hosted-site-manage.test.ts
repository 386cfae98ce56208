// `/events/<slug>/manage` on the hosted site (docs/hosted-site.md): leaders only (an ACCEPTED
// founder or admin), the attendees with tier and check-in state, their CSV export, and the door
// check-in that consumes a ticket code exactly once, under concurrent scans too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { ticketCodesFor } from '../../server/domain/ticket-codes.ts';
import { makeCommunity, makeEvent, makeFounder, makeMembership, makeUser } from './support/factory.ts';
import { MANAGE_PAGE_SIZE } from '../../server/site/pages/manage.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
const DAY = 24 * 3600_000;
const TAG = 'door';
let communityId: string;
let eventId: string;
let otherEventId: string;
let tierId: string;
let otherTierId: string;
const cookies: Record<string, string> = {};

const host = () => `${TAG}.localhost:${port}`;
const get = (path: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: host(), ...(cookie ? { Cookie: cookie } : {}) });

function post(path: string, fields: Record<string, string>, cookie?: string) {
  return rawRequest(
    port,
    'POST',
    path,
    {
      Host: host(),
      Origin: `http://${host()}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(cookie ? { Cookie: cookie } : {}),
    },
    new URLSearchParams(fields).toString(),
  );
}

async function cookieFor(userId: string): Promise<string> {
  return `svc_auth_${TAG}=${(await server.sessions.issue(userId, Date.now(), undefined, TAG)).token}`;
}

async function csrfOf(cookie: string): Promise<string> {
  const m = /name="_csrf" value="([^"]+)"/.exec((await get('/events/gala/manage', cookie)).text);
  expect(m).not.toBeNull();
  return m![1];
}

/** A ticket straight in the table, and the code its QR image carries. */
async function ticket(name: string, email: string, opts: { event?: string; tier?: string; refunded?: boolean } = {}) {
  const id = newId();
  await server.database.db
    .insertInto('tickets')
    .values({
      id,
      community_id: communityId,
      event_id: opts.event ?? eventId,
      tier_id: opts.tier ?? tierId,
      kind: 'RSVP',
      checkout_session_id: null,
      email,
      name,
      user_id: null,
      form_answers: null,
      created_at: nowIso(),
      refunded_at: opts.refunded ? nowIso() : null,
    })
    .execute();
  return { id, code: ticketCodesFor(server.config).codeFor(id) };
}

const checkedInAt = async (id: string) =>
  (
    await server.database.db
      .selectFrom('tickets')
      .select('checked_in_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).checked_in_at;

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  const c = await makeCommunity(db, TAG, { name: 'Door Club' });
  communityId = c.id;
  const soon = new Date(Date.now() + 2 * DAY).toISOString();
  const gala = await makeEvent(db, c.id, {
    slug: 'gala',
    name: 'Gala',
    startDate: soon,
    visibility: 'MEMBERS_ONLY',
    tiers: [{ name: 'Standing', priceCents: 0 }],
  });
  eventId = gala.id;
  tierId = gala.tierIds[0];
  const other = await makeEvent(db, c.id, {
    slug: 'other',
    startDate: soon,
    tiers: [{ name: 'Other', priceCents: 0 }],
  });
  otherEventId = other.id;
  otherTierId = other.tierIds[0];
  cookies.founder = await cookieFor((await makeFounder(db, c.id, 'door-founder')).id);
  const admin = await makeUser(db, 'door-admin');
  const adminMembership = await makeMembership(db, c.id, admin.id, 'ACCEPTED');
  await db.updateTable('memberships').set({ role: 'admin' }).where('id', '=', adminMembership).execute();
  cookies.admin = await cookieFor(admin.id);
  const bannedAdmin = await makeUser(db, 'door-banned-admin');
  const bannedMembership = await makeMembership(db, c.id, bannedAdmin.id, 'BANNED');
  await db.updateTable('memberships').set({ role: 'admin' }).where('id', '=', bannedMembership).execute();
  cookies.bannedAdmin = await cookieFor(bannedAdmin.id);
  const member = await makeUser(db, 'door-member');
  await makeMembership(db, c.id, member.id, 'ACCEPTED');
  cookies.member = await cookieFor(member.id);
  cookies.stranger = await cookieFor((await makeUser(db, 'door-stranger')).id);
});
afterAll(async () => {
  await server.close();
});

describe('hosted site manage: happy path', () => {
  it("the event page links a leader, and only a leader, to the event's manage page", async () => {
    const link = '<a href="/events/gala/manage">Manage this event</a>';
    for (const who of ['founder', 'admin']) expect((await get('/events/gala', cookies[who])).text).toContain(link);
    for (const who of ['member', 'bannedAdmin'])
      expect((await get('/events/gala', cookies[who])).text).not.toContain('/manage"');
  });

  it('pages the attendee list by a keyset cursor, 100 at a time, with the counts of the whole event', async () => {
    // Many tickets issued in one millisecond: the id breaks the tie, so no one is skipped or repeated.
    for (let i = 0; i < MANAGE_PAGE_SIZE + 3; i++)
      await ticket(`Guest ${i}`, `guest-${i}@example.com`, { event: otherEventId, tier: otherTierId });
    const first = await get('/events/other/manage', cookies.founder);
    const rows = (html: string) => [...html.matchAll(/<td>(Guest \d+)<\/td>/g)].map((m) => m[1]);
    expect(rows(first.text)).toHaveLength(MANAGE_PAGE_SIZE);
    expect(first.text).toContain(`0 of ${MANAGE_PAGE_SIZE + 3} checked in`);
    const more = /<a href="(\/events\/other\/manage\?after=[^"]+)">More attendees<\/a>/.exec(first.text);
    expect(more).not.toBeNull();
    const second = await get(more![1].replace(/&amp;/g, '&'), cookies.founder);
    expect(rows(second.text)).toHaveLength(3);
    expect(second.text).not.toContain('More attendees');
    expect(new Set([...rows(first.text), ...rows(second.text)]).size).toBe(MANAGE_PAGE_SIZE + 3);
    expect((await get('/events/other/manage?after=nonsense', cookies.founder)).status).toBe(404);
  });

  it('a founder and an admin see the attendees with tier and check-in state', async () => {
    await ticket('Ada Attendee', 'ada@example.com');
    const done = await ticket('Bob Scanned', 'bob@example.com');
    await server.database.db
      .updateTable('tickets')
      .set({ checked_in_at: '2030-01-02T03:04:05.000Z' })
      .where('id', '=', done.id)
      .execute();
    for (const who of ['founder', 'admin']) {
      const res = await get('/events/gala/manage', cookies[who]);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Manage: Gala</h1>');
      expect(res.text).toMatch(
        /<td>Ada Attendee<\/td><td>ada@example\.com<\/td><td>Standing<\/td><td>RSVP<\/td><td><span class="meta">Not yet/,
      );
      expect(res.text).toContain('<td>Bob Scanned</td>');
      expect(res.text).toContain('Checked in <time datetime="2030-01-02T03:04:05.000Z">');
      expect(res.text).toContain('<form method="post" action="/events/gala/manage/check-in" class="check-in-form">');
      expect(res.text).toContain('href="/events/gala/manage/attendees.csv"');
    }
  });

  it('the CSV export: text/csv with a filename, RFC 4180 quoting, formulas defused', async () => {
    await ticket('=HYPERLINK("http://evil.example","click")', 'eve@example.com');
    await ticket('Smith, "Jo"\nJr', 'jo@example.com');
    await ticket('@SUM(A1)', 'at@example.com');
    const res = await get('/events/gala/manage/attendees.csv', cookies.founder);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="gala-attendees.csv"');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text.startsWith('name,email,tier,ticket,issued_at,checked_in_at,refunded_at,ticket_id\r\n')).toBe(true);
    expect(res.text.endsWith('\r\n')).toBe(true);
    expect(res.text).toContain(`\r\n"'=HYPERLINK(""http://evil.example"",""click"")",eve@example.com,Standing,RSVP,`);
    expect(res.text).toContain(`\r\n"Smith, ""Jo""\nJr",jo@example.com,Standing,RSVP,`);
    expect(res.text).toContain(`\r\n'@SUM(A1),at@example.com,`);
  });

  it('a check-in consumes the code once; a second scan answers "already checked in at <time>"', async () => {
    const t = await ticket('Cy Door', 'cy@example.com');
    const token = await csrfOf(cookies.admin);
    const first = await post('/events/gala/manage/check-in', { code: t.code, _csrf: token }, cookies.admin);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Checked in: Cy Door (Standing).');
    const at = await checkedInAt(t.id);
    expect(at).not.toBeNull();
    const second = await post('/events/gala/manage/check-in', { code: t.code, _csrf: token }, cookies.admin);
    expect(second.status).toBe(409);
    expect(second.text).toContain(`Cy Door is already checked in at <time datetime="${new Date(at!).toISOString()}">`);
    expect(await checkedInAt(t.id)).toBe(at);
  });

  it('20 concurrent scans of one code: exactly one check-in, the rest already checked in', async () => {
    const t = await ticket('Dee Rush', 'dee@example.com');
    const token = await csrfOf(cookies.founder);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        post('/events/gala/manage/check-in', { code: t.code, _csrf: token }, cookies.founder),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const rest = answers.filter((r) => r.status !== 200);
    expect(rest).toHaveLength(19);
    for (const r of rest) {
      expect(r.status).toBe(409);
      expect(r.text).toContain('Dee Rush is already checked in at <time');
    }
  });
});

describe('hosted site manage: errors', () => {
  it("a forged, malformed, refunded or other event's code is refused with 422 and checks nothing in", async () => {
    const token = await csrfOf(cookies.founder);
    const refunded = await ticket('Ray Refund', 'ray@example.com', { refunded: true });
    const elsewhere = await ticket('Oli Other', 'oli@example.com', { event: otherEventId, tier: otherTierId });
    const forged = `${refunded.code.slice(0, -4)}AAAA`;
    for (const [code, text] of [
      ['not a code', 'This is not a ticket for this event.'],
      [forged, 'This is not a ticket for this event.'],
      [elsewhere.code, 'This is not a ticket for this event.'],
      [refunded.code, 'This ticket was refunded: Ray Refund.'],
    ]) {
      const res = await post('/events/gala/manage/check-in', { code, _csrf: token }, cookies.founder);
      expect(res.status).toBe(422);
      expect(res.text).toContain(text);
    }
    expect(await checkedInAt(refunded.id)).toBeNull();
    expect(await checkedInAt(elsewhere.id)).toBeNull();
  });

  it('an event that does not exist is not found, for a leader', async () => {
    expect((await get('/events/nope/manage', cookies.founder)).status).toBe(404);
    expect((await get('/events/nope/manage/attendees.csv', cookies.founder)).status).toBe(404);
  });
});

describe('hosted site manage: security', () => {
  const PATHS = ['/events/gala/manage', '/events/gala/manage/attendees.csv', '/events/nope/manage'];

  it.each(['member', 'stranger', 'bannedAdmin'])('a signed-in %s gets the 403 page, not the attendees', async (who) => {
    for (const path of PATHS) {
      const res = await get(path, cookies[who]);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Not allowed</h1>');
      expect(res.text).not.toContain('ada@example.com');
    }
  });

  it('an anonymous viewer gets the sign-in gate', async () => {
    for (const path of PATHS) {
      const res = await get(path);
      expect(res.status).toBe(403);
      expect(res.text).toContain('<h1>Members only</h1>');
      expect(res.text).toContain(`href="/sign-in?next=${encodeURIComponent(path)}"`);
      expect(res.text).not.toContain('ada@example.com');
    }
  });

  it('a non-leader cannot check a ticket in, with a valid form token of their own', async () => {
    const t = await ticket('Fin Guard', 'fin@example.com');
    const memberToken = /name="_csrf" value="([^"]+)"/.exec((await get('/events/gala', cookies.member)).text)![1];
    const res = await post('/events/gala/manage/check-in', { code: t.code, _csrf: memberToken }, cookies.member);
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Not allowed</h1>');
    expect(await checkedInAt(t.id)).toBeNull();
  });

  it('a check-in without the form token is refused and checks nothing in', async () => {
    const t = await ticket('Gil Guard', 'gil@example.com');
    const res = await post('/events/gala/manage/check-in', { code: t.code }, cookies.founder);
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Form not accepted</h1>');
    expect(await checkedInAt(t.id)).toBeNull();
  });
});
