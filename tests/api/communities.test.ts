import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeKey, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let sk: string;
const queries: string[] = [];

beforeAll(async () => {
  s = await startTestServer({ onQuery: (sql) => queries.push(sql) });
  const db = s.database.db;
  const c = await makeCommunity(db, 'acme', {
    name: 'Acme Hikers',
    domains: ['hike.acme.test', 'www.acme.test'],
    themeConfig: { brandColor: '#123456' },
  });
  pk = c.pk;
  sk = await makeKey(db, c.id, ['ADMIN']);
  const now = new Date().toISOString();
  await db
    .insertInto('users')
    .values({
      id: '0190a000-0000-7000-8000-00000000f00d',
      email: 'founder@acme.test',
      name: 'Fay',
      usertag: 'fay',
      profile_image: null,
      bio: null,
      phone: '+15550100',
      password_hash: 'scrypt$secret',
      created_at: now,
    })
    .execute();
  await db
    .updateTable('communities')
    .set({ founder_user_id: '0190a000-0000-7000-8000-00000000f00d', landing_url: 'https://acme.test' })
    .where('id', '=', c.id)
    .execute();
});
afterAll(async () => {
  await s.close();
});

describe('community object: happy path', () => {
  it('returns the full public community object by tag', async () => {
    const r = await s.request('/api/communities/acme');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      communityTag: 'acme',
      name: 'Acme Hikers',
      visibility: 'PUBLIC',
      accessibility: 'OPEN',
      pageSettings: [{ pageKey: 'EVENTS', enabled: true, visibility: null }],
      storefrontConfig: { header: { storeName: 'acme' } },
      themeConfig: { brandColor: '#123456' },
      features: [],
      domains: ['hike.acme.test', 'www.acme.test'],
    });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('resolves a community by its custom domain, case-insensitively', async () => {
    const r = await s.request('/api/communities/by-domain/HIKE.acme.test');
    expect(r.status).toBe(200);
    expect(r.body.communityTag).toBe('acme');
  });

  it('resolves <tag>.localhost to the community <tag> for development', async () => {
    const r = await s.request('/api/communities/by-domain/acme.localhost');
    expect(r.body.communityTag).toBe('acme');
  });
});

describe('community object: errors', () => {
  it('answers 404 "Community not found" for an unknown tag or domain', async () => {
    for (const path of [
      '/api/communities/nobody',
      '/api/communities/by-domain/nowhere.test',
      '/api/communities/by-domain/nobody.localhost',
    ]) {
      const r = await s.request(path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: 'Community not found', code: 'NOT_FOUND' });
    }
  });

  it('answers 400 for a malformed tag or hostname', async () => {
    const r = await s.request('/api/communities/by-domain/bad_host!');
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('hostname');
    const t = await s.request('/api/communities/A');
    expect(t.status).toBe(400);
    expect(t.body.extras.field).toBe('communityTag');
  });

  it('has no write methods', async () => {
    const r = await s.request('/api/communities/acme', { method: 'PATCH', json: { name: 'x' } });
    expect(r.status).toBe(405);
  });
});

describe('community object: security', () => {
  it('never carries secrets, e-mails, phone numbers, keys or the founder', async () => {
    const r = await s.request('/api/communities/acme');
    for (const secret of [
      pk,
      sk,
      'founder@acme.test',
      '+15550100',
      'scrypt',
      'landing',
      'embed',
      '0190a000-0000-7000-8000-00000000f00d',
    ]) {
      expect(r.text).not.toContain(secret);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The nav as the requesting viewer may see it, and what that means for caching
// ---------------------------------------------------------------------------------------------

const CLUB_NAV = [
  { href: '/events', label: 'Events' },
  { href: '/feed', label: 'Feed', visibleWhen: 'authenticated' },
  { href: '/members', label: 'Members', visibleWhen: 'approvedMember' },
  {
    label: 'About',
    children: [
      { href: '/blog/who-we-are', label: 'Who we are' },
      { href: '/blog/minutes', label: 'Minutes', visibleWhen: 'approvedMember' },
      { href: 'https://example.org', label: 'Partner', external: true, visibleWhen: 'authenticated' },
    ],
  },
  { label: 'Inner circle', children: [{ href: '/feed/post/1', label: 'Plans', visibleWhen: 'approvedMember' }] },
  { href: '/conversations', label: 'Chat' },
];
const tokens: Record<string, string> = {};

describe('community object: nav filtered for the viewer', () => {
  beforeAll(async () => {
    const db = s.database.db;
    const club = await makeCommunity(db, 'club', { domains: ['club.example.test'] });
    const rival = await makeCommunity(db, 'rival');
    await db
      .updateTable('communities')
      .set({
        storefront_config: JSON.stringify({
          header: { storeName: 'Club', showBell: true },
          nav: CLUB_NAV,
          footer: { title: 'Club' },
        }),
        // CHAT is off: its nav item disappears for everyone.
        page_settings: JSON.stringify([{ pageKey: 'CHAT', enabled: false, visibility: null }]),
      })
      .where('id', '=', club.id)
      .execute();
    for (const status of ['ACCEPTED', 'PENDING', 'BANNED', 'NONE', 'RIVAL'] as const) {
      const user = await makeUser(db);
      if (status === 'RIVAL') await makeMembership(db, rival.id, user.id, 'ACCEPTED');
      else if (status !== 'NONE') await makeMembership(db, club.id, user.id, status);
      tokens[status] = (await s.sessions.issue(user.id)).token;
    }
  });

  const labels = (nav: any[]): unknown[] => nav.map((i) => (i.children ? [i.label, labels(i.children)] : i.label));
  const navOf = async (headers: Record<string, string> = {}, path = '/api/communities/club') => {
    const r = await s.request(path, { headers });
    expect(r.status).toBe(200);
    return labels(r.body.storefrontConfig.nav);
  };

  it('shows an anonymous visitor only the items for everyone', async () => {
    expect(await navOf()).toEqual(['Events', ['About', ['Who we are']]]);
  });

  it('adds the authenticated items for any signed-in user, PENDING and BANNED included', async () => {
    const signedIn = ['Events', 'Feed', ['About', ['Who we are', 'Partner']]];
    for (const who of ['NONE', 'PENDING', 'BANNED', 'RIVAL']) {
      expect(await navOf({ Cookie: `svc_auth_club=${tokens[who]}` }), who).toEqual(signedIn);
    }
  });

  it('adds the approvedMember items, dropdown children included, for an ACCEPTED member only', async () => {
    expect(await navOf({ Cookie: `svc_auth_club=${tokens.ACCEPTED}` })).toEqual([
      'Events',
      'Feed',
      'Members',
      ['About', ['Who we are', 'Minutes', 'Partner']],
      ['Inner circle', ['Plans']],
    ]);
  });

  it('reads the viewer from svc_auth, svc_auth_<host> and Authorization: Bearer as well', async () => {
    for (const headers of <Record<string, string>[]>[
      { Cookie: `svc_auth=${tokens.ACCEPTED}` },
      { Cookie: `svc_auth_127.0.0.1=${tokens.ACCEPTED}` },
      { Authorization: `Bearer ${tokens.ACCEPTED}` },
    ]) {
      expect(await navOf(headers)).toContain('Members');
    }
  });

  it('keeps the rest of the storefront config and every item field as stored', async () => {
    const r = await s.request('/api/communities/club', { headers: { Cookie: `svc_auth_club=${tokens.ACCEPTED}` } });
    expect(r.body.storefrontConfig.header).toEqual({ storeName: 'Club', showBell: true });
    expect(r.body.storefrontConfig.footer).toEqual({ title: 'Club' });
    expect(r.body.storefrontConfig.nav[3].children[2]).toEqual(CLUB_NAV[3].children![2]);
  });

  it('answers by domain exactly as by tag, for the same viewer', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { Cookie: `svc_auth_club=${tokens.PENDING}` },
      { Cookie: `svc_auth_club=${tokens.ACCEPTED}` },
    ]) {
      expect(await navOf(headers, '/api/communities/by-domain/club.example.test')).toEqual(await navOf(headers));
    }
    const r = await s.request('/api/communities/by-domain/club.example.test', {
      headers: { Cookie: `svc_auth_club=${tokens.ACCEPTED}` },
    });
    expect(r.headers.get('cache-control')).toBe('private, no-store');
  });

  it('looks the membership up once, and not at all for an anonymous visitor', async () => {
    queries.length = 0;
    await navOf({ Cookie: `svc_auth_club=${tokens.ACCEPTED}` });
    expect(queries.filter((q) => /from "memberships"/.test(q))).toHaveLength(1);
    queries.length = 0;
    await navOf();
    expect(queries.filter((q) => /from "memberships"|from "users"/.test(q))).toHaveLength(0);
  });
});

describe('community object: caching follows the credentials', () => {
  const get = (headers: Record<string, string> = {}, path = '/api/communities/club') => s.request(path, { headers });

  it('lets shared caches keep an answer to a request without credentials, keyed on Cookie and Authorization', async () => {
    for (const path of ['/api/communities/club', '/api/communities/by-domain/club.example.test']) {
      const r = await get({}, path);
      expect(r.headers.get('cache-control')).toBe('public, max-age=60');
      expect(r.headers.get('vary')).toMatch(/Cookie, Authorization/);
    }
    // Cookies that are not sign-in cookies (analytics, consent) are no credentials.
    const other = await get({ Cookie: 'consent=yes; _ga=GA1.2.3' });
    expect(other.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('never lets anything store an answer to a request with a cookie or Bearer token', async () => {
    for (const headers of <Record<string, string>[]>[
      { Cookie: `svc_auth_club=${tokens.ACCEPTED}` },
      { Cookie: `svc_auth=${tokens.NONE}` },
      { Authorization: `Bearer ${tokens.PENDING}` },
    ]) {
      const r = await get(headers);
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(r.headers.get('vary')).toMatch(/Cookie, Authorization/);
    }
  });

  it('answers a tampered, unsigned or garbage token with the anonymous nav, still private', async () => {
    for (const token of [
      'garbage',
      `${tokens.ACCEPTED.slice(0, -4)}AAAA`,
      'eyJhbGciOiJub25lIn0.eyJ1c2VySWQiOiJ4In0.',
    ]) {
      const r = await get({ Cookie: `svc_auth_club=${token}` });
      expect(r.status).toBe(200);
      expect(r.body.storefrontConfig.nav.map((i: { label: string }) => i.label)).toEqual(['Events', 'About']);
      expect(r.headers.get('cache-control')).toBe('private, no-store');
    }
  });

  it('still answers any origin without credentials (CORS *)', async () => {
    const r = await get({ Origin: 'https://blog.example' });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('community object: member-only items never leak', () => {
  it('does not mention member-only items to anonymous or PENDING viewers in any form', async () => {
    for (const headers of <Record<string, string>[]>[{}, { Cookie: `svc_auth_club=${tokens.PENDING}` }]) {
      const r = await s.request('/api/communities/club', { headers });
      for (const secret of ['/members', 'Minutes', 'Inner circle', 'Plans', 'approvedMember'])
        expect(r.text).not.toContain(secret);
    }
  });
});
