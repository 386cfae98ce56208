// Keyless reads on a community's own site (docs/decisions/0027-own-site-reads-need-no-key.md):
// the widgets on the hosted site have the visitor's cookie and no publishable key, so the
// READ_PUBLIC `/v1` reads of community X answer without a key when the request's host is X's
// site, exactly as the publishable key is answered. Never on the platform host, another
// community's host or for another community's tag, never a write, never anything member-only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let club: { id: string; tag: string; pk: string };
let segmentId: string;
let memberCookie: string;
const DAY = 24 * 3600_000;

const get = (path: string, host: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: `${host}:${port}`, ...headers });

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  club = await makeCommunity(db, 'club', { domains: ['club.example'] });
  await makeCommunity(db, 'other');
  await db
    .updateTable('communities')
    .set({
      page_settings: JSON.stringify([
        { pageKey: 'EVENTS', enabled: true, visibility: null },
        { pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' },
      ]),
    })
    .where('id', '=', club.id)
    .execute();
  await makeEvent(db, club.id, {
    slug: 'open-day',
    startDate: new Date(Date.now() + 2 * DAY).toISOString(),
    tiers: [{ name: 'Free entry', priceCents: 0 }],
    donationConfig: { enabled: true, mode: 'fixed', amounts: [500], currency: 'USD', label: 'Fund' },
  });
  await makeEvent(db, club.id, {
    slug: 'members-night',
    visibility: 'MEMBERS_ONLY',
    startDate: new Date(Date.now() + 3 * DAY).toISOString(),
    tiers: [{ name: 'Members', priceCents: 0 }],
  });
  segmentId = await makeSegment(db, club.id, { name: 'Friends' }, [
    { id: 'why', type: 'short_text', label: 'Why?', required: true },
  ]);
  const mia = await makeUser(db, 'mia');
  await makeMembership(db, club.id, mia.id, 'ACCEPTED');
  memberCookie = `svc_auth_club=${(await server.sessions.issue(mia.id, Date.now(), undefined, 'club')).token}`;
});

afterAll(async () => {
  await server.close();
});

describe('keyless READ_PUBLIC reads on the community’s own site', () => {
  it.each([
    ['the event tiers', '/v1/communities/club/events/open-day/tiers'],
    ['the donate summary', '/v1/communities/club/events/open-day/donations/summary'],
    ['the public segments', '/v1/communities/club/segments/public'],
  ])('answer %s on <tag>.localhost and on a registered domain', async (_what, path) => {
    for (const host of ['club.localhost', 'club.example']) {
      const res = await get(path, host);
      expect(res.status, `${host}${path}`).toBe(200);
    }
  });

  it('answers the same as the publishable key', async () => {
    const path = '/v1/communities/club/segments/public';
    const keyless = await get(path, 'club.localhost');
    const keyed = await get(path, 'localhost', { 'X-API-Key': club.pk });
    expect(keyless.body).toEqual(keyed.body);
    expect(keyless.body.map((s: { id: string }) => s.id)).toContain(segmentId);
    const form = await get(`/v1/communities/club/segments/${segmentId}/form`, 'club.localhost');
    expect(form.status).toBe(200);
    expect(form.body.schema[0].id).toBe('why');
    const check = await get(
      `/v1/communities/club/segments/${segmentId}/check-email?email=a@b.example`,
      'club.localhost',
    );
    expect(check.status).toBe(200);
    expect(check.body.status).toBeTypeOf('string');
  });

  it('never serves member-only data, even to a member’s cookie: the public’s answer', async () => {
    // A members-only event is not in the public's audience.
    const event = await get('/v1/communities/club/events/members-night/tiers', 'club.localhost', {
      Cookie: memberCookie,
    });
    expect(event.status).toBe(404);
    // A MEMBERS_ONLY page keeps the publishable key's gate (0006).
    const blog = await get('/v1/communities/club/articles', 'club.localhost', { Cookie: memberCookie });
    expect(blog.status).toBe(403);
    expect(blog.body.code).toBe('PAGE_MEMBERS_ONLY');
  });
});

describe('refused without a key: 401 API_KEY_REQUIRED', () => {
  const path = '/v1/communities/club/segments/public';

  it('on the platform host', async () => {
    for (const host of ['localhost', '127.0.0.1']) {
      const res = await get(path, host);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('API_KEY_REQUIRED');
    }
  });

  it('on another community’s host, and for another community’s tag on this host', async () => {
    const elsewhere = await get(path, 'other.localhost');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.code).toBe('API_KEY_REQUIRED');
    const otherTag = await get('/v1/communities/other/segments/public', 'club.localhost');
    expect(otherTag.status).toBe(401);
    expect(otherTag.body.code).toBe('API_KEY_REQUIRED');
    // An unknown host is nobody's site.
    const unknown = await get(path, 'nobody.example');
    expect(unknown.status).toBe(401);
  });

  it('for a write, even on the own site and with a member’s cookie', async () => {
    const res = await rawRequest(
      port,
      'POST',
      '/v1/communities/club/articles',
      {
        Host: `club.localhost:${port}`,
        Origin: `http://club.localhost:${port}`,
        Cookie: memberCookie,
        'Content-Type': 'application/json',
      },
      JSON.stringify({ title: 'x', body: 'y' }),
    );
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('API_KEY_REQUIRED');
  });

  it('a key presented on the own site is still judged as a key', async () => {
    const res = await get(path, 'club.localhost', { 'X-API-Key': 'pk_live_nope' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_API_KEY');
  });
});
