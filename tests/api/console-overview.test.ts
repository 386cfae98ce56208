// The console's home page, `/admin` (docs/leader-console.md, "Pages" > "Overview"): the counts and
// the charts of getLeaderOverview, server-rendered, for the founder and admins only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { insertDonation, insertRequest, insertTicket, rsvpEvent } from './support/overview-rows.ts';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

const db = () => server.database.db;
const page = (cookie?: string, f: LeaderFixture = club) => onSite(server, f.tag, 'GET', '/admin', { cookie });
const noon = (daysAgo: number) => `${new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10)}T12:00:00.000Z`;
/** The value shown beside a stat's label. */
const stat = (html: string, label: string) =>
  new RegExp(`<span class="value">(\\d+)</span> (?:<a [^>]*>)?${label}`).exec(html)?.[1];

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cov');
  other = await leaderFixture(server, 'coo');
  await insertRequest(db(), club.id, 'PENDING');
  await makeEvent(db(), club.id, {
    slug: 'gala-<night>',
    name: 'Gala <b>night</b>',
    startDate: new Date(Date.now() + 2 * DAY).toISOString(),
  });
  await insertDonation(db(), club.id, { amount: 1250, currency: 'EUR', at: noon(0) });
  await insertDonation(db(), club.id, { amount: 500, currency: 'JPY', at: noon(0) });
  await insertDonation(db(), club.id, { amount: 800, currency: 'EUR', at: noon(3), refunded: true });
  const e = await rsvpEvent(db(), club.id, new Date(Date.now() + 9 * DAY).toISOString());
  for (let i = 0; i < 4; i++) await insertTicket(db(), club.id, e, { at: noon(1) });
});
afterAll(async () => {
  await server?.close();
});

describe('happy', () => {
  it('shows the counts the API answers, for the founder and an admin', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const [res, api] = await Promise.all([
        page(club.cookies[who]),
        onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/overview`, { cookie: club.cookies[who] }),
      ]);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Overview</h1>');
      expect(res.text).toMatch(/<a href="\/admin" aria-current="page">Overview<\/a>/);
      expect(stat(res.text, 'members')).toBe(String(api.body.members.accepted));
      expect(stat(res.text, 'pending requests')).toBe('1');
      expect(stat(res.text, 'upcoming events')).toBe('2');
      expect(stat(res.text, 'donations in 30 days')).toBe('2');
      expect(stat(res.text, 'RSVPs in 30 days')).toBe('4');
    }
  });

  it('lists the next events with their manage page and date, escaped', async () => {
    const res = await page(club.cookies.founder);
    expect(res.text).toContain('href="/events/gala-%3Cnight%3E/manage">Gala &lt;b&gt;night&lt;/b&gt;</a>');
    expect(res.text).not.toContain('<b>night</b>');
    expect(res.text).toMatch(/<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
  });

  it('draws two SVG bar charts with a name, a description and a table of the same numbers', async () => {
    const res = await page(club.cookies.founder);
    const charts = [
      ...res.text.matchAll(
        /<svg class="chart" id="([^"]+)" role="img" aria-labelledby="([^"]+)" aria-describedby="([^"]+)"/g,
      ),
    ];
    expect(charts.map((c) => c[1])).toEqual(['donations-chart', 'rsvps-chart']);
    for (const c of charts) {
      expect(res.text).toContain(`id="${c[2]}"`);
      expect(res.text).toContain(`id="${c[3]}"`);
    }
    // One bar per day, 30 each; the busiest day is the full height, empty days have none.
    expect(res.text.match(/<rect /g)).toHaveLength(60);
    expect(res.text).toContain('height="120"><title>');
    // Amounts per currency, never added across currencies; the refunded one is not there.
    expect(res.text).toContain('€12.50, ¥500');
    expect(res.text).not.toContain('€8.00');
    expect(res.text).toContain('<summary>Donations by day as a table</summary>');
    expect(res.text).toContain(`<th scope="row">${noon(1).slice(0, 10)}</th><td>4</td>`);
    // No style attribute anywhere: the CSP allows none.
    expect(res.text).not.toMatch(/\sstyle="/);
  });
});

describe('error', () => {
  it('shows an empty community as zeros and empty charts', async () => {
    const res = await page(other.cookies.founder, other);
    expect(res.status).toBe(200);
    expect(stat(res.text, 'pending requests')).toBe('0');
    expect(res.text).toContain('No upcoming event.');
    expect(res.text).not.toMatch(/<rect [^>]*height="[1-9]/);
  });
});

describe('security', () => {
  it('refuses everyone but the founder and admins, and sends an anonymous visitor to sign in', async () => {
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const res = await page(club.cookies[who]);
      expect(res.status, who).toBe(403);
      expect(res.text, who).not.toContain('class="console"');
      expect(res.text, who).not.toContain('Gala');
    }
    const anonymous = await page();
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).toContain('/sign-in?next=%2Fadmin');
  });

  it("shows another community's founder nothing of this one, here or on their site", async () => {
    const here = await page(other.cookies.founder);
    expect(here.status).toBe(403);
    expect(here.text).not.toContain('Gala');
    const own = await page(other.cookies.founder, other);
    expect(own.text).not.toContain('Gala');
  });
});
