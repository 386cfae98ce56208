// The leader console's overview (`GET /api/admin/{tag}/overview`, docs/leader-console.md): members,
// pending requests, upcoming events, and the last 30 days of donations (per currency) and RSVPs by
// UTC day, refunded ones left out, for the community's founder and admins only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { insertDonation, insertRequest, insertTicket, rsvpEvent } from './support/overview-rows.ts';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

const db = () => server.database.db;
const overview = (f: LeaderFixture, cookie: string | null = f.cookies.founder) =>
  onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/overview`, { cookie: cookie ?? undefined });
const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);
/** Noon (UTC) `n` days ago: inside that UTC day whatever the hour now. */
const daysAgo = (n: number) => new Date(Date.parse(`${utcDay(Date.now() - n * DAY)}T12:00:00.000Z`)).toISOString();

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'ovw');
  other = await leaderFixture(server, 'ovo');
});
afterAll(async () => {
  await server?.close();
});

describe('happy', () => {
  it('counts ACCEPTED members, PENDING requests and upcoming events, the next five soonest first', async () => {
    const empty = await overview(club);
    expect(empty.status).toBe(200);
    expect(empty.headers['cache-control']).toBe('no-store');
    // The founder, the admin and the member; not the applicant or the banned admin.
    expect(empty.body.members.accepted).toBe(3);
    expect(empty.body.requests.pending).toBe(0);
    expect(empty.body.events).toEqual({ upcoming: 0, next: [] });

    for (const status of ['PENDING', 'PENDING', 'PAYMENT_PENDING', 'REJECTED'] as const)
      await insertRequest(db(), club.id, status);
    for (let i = 0; i < 2; i++) await makeMembership(db(), club.id, (await makeUser(db())).id, 'ACCEPTED');
    await makeEvent(db(), club.id, { slug: 'long-past', startDate: new Date(Date.now() - 3 * DAY).toISOString() });
    const starts = [6, 2, 4, 1, 5, 3, 7].map((d) => new Date(Date.now() + d * DAY).toISOString());
    for (const [i, startDate] of starts.entries())
      await makeEvent(db(), club.id, { slug: `soon-${i}`, name: `Soon ${i}`, startDate });
    // Another community's rows never count here.
    await insertRequest(db(), other.id, 'PENDING');
    await makeEvent(db(), other.id, { startDate: new Date(Date.now() + DAY).toISOString() });

    const res = await overview(club, club.cookies.admin);
    expect(res.status).toBe(200);
    expect(res.body.members.accepted).toBe(5);
    expect(res.body.requests.pending).toBe(2);
    expect(res.body.events.upcoming).toBe(7);
    expect(res.body.events.next.map((e: { slug: string }) => e.slug)).toEqual([
      'soon-3',
      'soon-1',
      'soon-5',
      'soon-2',
      'soon-4',
    ]);
    expect(res.body.events.next[0]).toMatchObject({ name: 'Soon 3', startDate: starts[3] });
  });

  it('charts 30 UTC days of donations per currency and RSVPs, refunded and older ones left out', async () => {
    const f = await leaderFixture(server, 'ovc');
    await insertDonation(db(), f.id, { amount: 500, currency: 'EUR', at: daysAgo(0) });
    await insertDonation(db(), f.id, { amount: 700, currency: 'EUR', at: daysAgo(0) });
    await insertDonation(db(), f.id, { amount: 1000, currency: 'USD', at: daysAgo(0) });
    await insertDonation(db(), f.id, { amount: 9999, currency: 'EUR', at: daysAgo(0), refunded: true });
    await insertDonation(db(), f.id, { amount: 250, currency: 'EUR', at: daysAgo(29) });
    await insertDonation(db(), f.id, { amount: 300, currency: 'EUR', at: daysAgo(30) });
    const event = await rsvpEvent(db(), f.id);
    for (let i = 0; i < 3; i++) await insertTicket(db(), f.id, event, { at: daysAgo(2) });
    await insertTicket(db(), f.id, event, { at: daysAgo(2), kind: 'PAID' });
    await insertTicket(db(), f.id, event, { at: daysAgo(2), refunded: true });
    await insertTicket(db(), f.id, event, { at: daysAgo(31) });
    await insertDonation(db(), other.id, { amount: 100, currency: 'EUR', at: daysAgo(0) });

    const res = await overview(f);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.since).toBe(utcDay(Date.now() - 29 * DAY));
    expect(body.donations.days).toHaveLength(30);
    expect(body.rsvps.days).toHaveLength(30);
    expect(body.donations.days[0]).toEqual({
      date: body.since,
      count: 1,
      amounts: [{ currency: 'EUR', amount: 250 }],
    });
    expect(body.donations.days[29]).toEqual({
      date: utcDay(Date.now()),
      count: 3,
      amounts: [
        { currency: 'EUR', amount: 1200 },
        { currency: 'USD', amount: 1000 },
      ],
    });
    expect(body.donations.days.slice(1, 29).every((d: { count: number }) => d.count === 0)).toBe(true);
    expect(body.donations.totals).toEqual([
      { currency: 'EUR', amount: 1450, count: 3 },
      { currency: 'USD', amount: 1000, count: 1 },
    ]);
    expect(body.rsvps.total).toBe(3);
    expect(body.rsvps.days[27]).toEqual({ date: utcDay(Date.now() - 2 * DAY), count: 3 });
  });
});

describe('error', () => {
  it('obeys no query parameter, and answers a write 405', async () => {
    const odd = await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/overview?days=365`, {
      cookie: club.cookies.founder,
    });
    // The route declares no query: a parameter is not obeyed (the window stays 30 days).
    expect(odd.status).toBe(200);
    expect(odd.body.donations.days).toHaveLength(30);
    const post = await onSite(server, club.tag, 'POST', `/api/admin/${club.tag}/overview`, {
      cookie: club.cookies.founder,
      json: {},
    });
    expect(post.status).toBe(405);
  });

  it('answers 403 for an unknown community tag on this site', async () => {
    const res = await onSite(server, club.tag, 'GET', `/api/admin/nosuchclub/overview`, {
      cookie: club.cookies.founder,
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_A_LEADER');
  });
});

describe('security', () => {
  it('answers only the founder and admins; everyone else gets the same 403', async () => {
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const res = await overview(club, club.cookies[who]);
      expect(res.status, who).toBe(403);
      expect(res.body.code, who).toBe('NOT_A_LEADER');
    }
  });

  it('asks an anonymous visitor to sign in', async () => {
    const res = await overview(club, null);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SIGN_IN_REQUIRED');
  });

  it("refuses another community's founder, here and from their own site", async () => {
    // Their cookie is their site's: here it signs nobody in.
    const here = await overview(club, other.cookies.founder);
    expect(here.status).toBe(401);
    const there = await onSite(server, other.tag, 'GET', `/api/admin/${club.tag}/overview`, {
      cookie: other.cookies.founder,
    });
    expect(there.status).toBe(403);
    expect(JSON.stringify(there.body)).not.toContain('accepted');
  });
});
