// The hosted site's calendars (docs/hosted-site.md): `/events.ics` and `/events/<slug>.ics`,
// iCalendar as the serializer writes it (tests/unit/ical.test.ts), gated exactly like `/events`
// and `/events/<slug>`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
const DAY = 24 * 3600_000;
let member: string;
let stranger: string;
const ids: Record<string, string> = {};

const get = (tag: string, path: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: `${tag}.localhost:${port}`, ...(cookie ? { Cookie: cookie } : {}) });
const unfold = (s: string) => s.replace(/\r\n /g, '').split('\r\n');

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  const c = await makeCommunity(db, 'cal', { name: 'Cal Club' });
  ids.walk = (
    await makeEvent(db, c.id, {
      slug: 'walk',
      name: 'Walk; talk, eat',
      startDate: new Date(Date.now() + 2 * DAY).toISOString(),
    })
  ).id;
  ids.old = (
    await makeEvent(db, c.id, { slug: 'old', name: 'Old One', startDate: new Date(Date.now() - 5 * DAY).toISOString() })
  ).id;
  ids.secret = (
    await makeEvent(db, c.id, {
      slug: 'secret',
      name: 'Secret Supper',
      visibility: 'MEMBERS_ONLY',
      startDate: new Date(Date.now() + 3 * DAY).toISOString(),
    })
  ).id;
  const m = await makeUser(db, 'cal-member');
  await makeMembership(db, c.id, m.id, 'ACCEPTED');
  member = `svc_auth_cal=${(await server.sessions.issue(m.id, Date.now(), undefined, 'cal')).token}`;
  const s = await makeUser(db, 'cal-stranger');
  stranger = `svc_auth_cal=${(await server.sessions.issue(s.id, Date.now(), undefined, 'cal')).token}`;
  // A community whose EVENTS page is members-only, and one whose EVENTS page is off.
  const priv = await makeCommunity(db, 'calpriv', { visibility: 'MEMBERS_ONLY' });
  await db.updateTable('communities').set({ page_settings: '[]' }).where('id', '=', priv.id).execute();
  await makeEvent(db, priv.id, { slug: 'inside', visibility: null });
  const off = await makeCommunity(db, 'caloff');
  await db
    .updateTable('communities')
    .set({ page_settings: JSON.stringify([{ pageKey: 'EVENTS', enabled: false, visibility: null }]) })
    .where('id', '=', off.id)
    .execute();
  await makeEvent(db, off.id, { slug: 'gone' });
});
afterAll(async () => {
  await server.close();
});

describe('hosted site calendars: happy path', () => {
  it('/events.ics: the public upcoming and recent past events, as iCalendar', async () => {
    const res = await get('cal', '/events.ics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
    expect(res.text.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n')).toBe(true);
    expect(res.text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    const lines = unfold(res.text);
    expect(lines).toContain('X-WR-CALNAME:Cal Club');
    expect(lines).toContain(`UID:${ids.walk}@svc`);
    expect(lines).toContain(`UID:${ids.old}@svc`);
    expect(lines).not.toContain(`UID:${ids.secret}@svc`);
    expect(lines).toContain('SUMMARY:Walk\\; talk\\, eat');
    expect(lines).toContain('LOCATION:Hall\\, Lisbon');
    expect(lines).toContain(`URL:http://cal.localhost:${port}/events/walk`);
    expect(lines.filter((l) => l.startsWith('DTSTAMP:'))).toHaveLength(2);
    for (const l of lines.filter((l) => l.startsWith('DTSTART:'))) expect(l).toMatch(/^DTSTART:\d{8}T\d{6}Z$/);
  });

  it('a member gets the members-only events too, privately', async () => {
    const res = await get('cal', '/events.ics', member);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(unfold(res.text)).toContain(`UID:${ids.secret}@svc`);
    expect((await get('cal', '/events/secret.ics', member)).status).toBe(200);
  });

  it('/events/<slug>.ics: the one event, with a stable UID and its page URL', async () => {
    const first = await get('cal', '/events/walk.ics');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const lines = unfold(first.text);
    expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
    expect(lines).toContain(`UID:${ids.walk}@svc`);
    expect(lines).toContain(`URL:http://cal.localhost:${port}/events/walk`);
    expect(unfold((await get('cal', '/events/walk.ics')).text)).toContain(`UID:${ids.walk}@svc`);
    // The event page itself is still the page, and links its calendar entry; the list its calendar.
    const page = await get('cal', '/events/walk');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<a href="/events/walk.ics">Add to calendar</a>');
    expect((await get('cal', '/events')).text).toContain('<a href="/events.ics">');
  });
});

describe('hosted site calendars: errors', () => {
  it('an event that does not exist, or an EVENTS page that is off, is the not-found page', async () => {
    expect((await get('cal', '/events/nope.ics')).status).toBe(404);
    expect((await get('caloff', '/events.ics')).status).toBe(404);
    expect((await get('caloff', '/events/gone.ics')).status).toBe(404);
  });
});

describe('hosted site calendars: security', () => {
  it("a members-only event's .ics is the gate for a non-member, never the entry", async () => {
    for (const cookie of [undefined, stranger]) {
      const res = await get('cal', '/events/secret.ics', cookie);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).not.toContain('Secret Supper');
    }
  });

  it("a members-only community's calendar is the gate for a non-member", async () => {
    const res = await get('calpriv', '/events.ics');
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Members only</h1>');
    expect((await get('calpriv', '/events/inside.ics')).status).toBe(403);
  });
});
