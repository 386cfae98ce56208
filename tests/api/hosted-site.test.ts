// The hosted community site (docs/hosted-site.md): which host is which site, the pages built so
// far (HOME, EVENTS, an event), the HTML not-found page, escaping and the page headers. The gate's
// rows per viewer are in hosted-site-gate.test.ts. Raw HTTP with a Host header, as a browser sends.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { forgetCommunityCaches } from '../../server/domain/communities.ts';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let memberCookie: string;
const HOSTILE = '<script>alert(1)</script>';

const get = (path: string, host: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: `${host}:${port}`, ...(cookie ? { Cookie: cookie } : {}) });
const DAY = 24 * 3600_000;
/** The page less its JSON-LD data block (never executed; its JSON escapes every `<`). */
const executable = (html: string): string => html.replace(/<script type="application\/ld\+json">[^<]*<\/script>/g, '');

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  const club = await makeCommunity(db, 'club', { name: 'The Club', domains: ['club.example'] });
  await db
    .updateTable('communities')
    .set({ storefront_config: JSON.stringify({ description: 'Walks & talks <b>weekly</b>' }) })
    .where('id', '=', club.id)
    .execute();
  await makeEvent(db, club.id, {
    slug: 'summit-day',
    name: 'Summit Day',
    featured: true,
    startDate: new Date(Date.now() + 2 * DAY).toISOString(),
    tiers: [
      { name: 'Free entry', priceCents: 0 },
      { name: 'Supporter', priceCents: 1500 },
    ],
  });
  await makeEvent(db, club.id, {
    slug: 'last-year',
    name: 'Last Year',
    startDate: new Date(Date.now() - 30 * DAY).toISOString(),
  });
  await makeEvent(db, club.id, { slug: 'inner-circle', name: 'Inner Circle', visibility: 'MEMBERS_ONLY' });
  for (const [i, title] of ['First post', 'Second post', 'Third post', 'Fourth post'].entries())
    await db
      .insertInto('articles')
      .values({
        id: newId(),
        community_id: club.id,
        slug: `post-${i}`,
        title,
        excerpt: '',
        content: '<p>Hi</p>',
        banner_url: null,
        category: null,
        status: 'PUBLISHED',
        published_at: new Date(Date.now() - (10 - i) * 60_000).toISOString(),
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute();
  const member = await makeUser(db, 'mia');
  await makeMembership(db, club.id, member.id, 'ACCEPTED');
  memberCookie = `svc_auth_club=${(await server.sessions.issue(member.id, Date.now(), undefined, 'club')).token}`;

  const evil = await makeCommunity(db, 'evil', { name: `Evil ${HOSTILE}` });
  await makeEvent(db, evil.id, { slug: 'bad', name: `Bad ${HOSTILE}` });
  await db
    .updateTable('events')
    .set({ description: `Come <img src=x onerror=alert(1)> ${HOSTILE}`, location: JSON.stringify({ name: HOSTILE }) })
    .where('slug', '=', 'bad')
    .execute();
});
afterAll(async () => {
  await server.close();
});

describe('hosted site: happy path', () => {
  it('orders the home page by storefrontConfig.modules.home, and leaves out what it does not name', async () => {
    const db = server.database.db;
    const c = await makeCommunity(db, 'ordered', { name: 'Ordered' });
    await makeEvent(db, c.id, {
      slug: 'big-one',
      name: 'Big One',
      featured: true,
      startDate: new Date(Date.now() + DAY).toISOString(),
    });
    await db
      .insertInto('articles')
      .values({
        id: newId(),
        community_id: c.id,
        slug: 'news',
        title: 'News',
        excerpt: '',
        content: '<p>Hi</p>',
        banner_url: null,
        category: null,
        status: 'PUBLISHED',
        published_at: nowIso(),
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute();
    const home = async (modules: unknown) => {
      await db
        .updateTable('communities')
        .set({ storefront_config: JSON.stringify({ modules: { home: modules } }) })
        .where('id', '=', c.id)
        .execute();
      // What a settings change does in the app: both caches drop what they knew of the community.
      server.readCache.invalidate(c.id);
      forgetCommunityCaches(db);
      return (await get('/', 'ordered.localhost')).text;
    };
    const headings = (html: string) => [...html.matchAll(/<h2 id="(\w+)">/g)].map((m) => m[1]);
    expect(headings(await home(undefined))).toEqual(['featured', 'upcoming', 'articles']);
    const reordered = await home(['articles', 'nope', 'featured', 'articles']);
    expect(headings(reordered)).toEqual(['articles', 'featured']);
    expect(reordered).not.toContain('Join Ordered');
    expect(await home(['join'])).toContain('Join Ordered');
  });

  it("serves the community's home page on its registered domain and on <tag>.localhost", async () => {
    for (const host of ['club.example', 'club.localhost']) {
      const res = await get('/', host);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<title>Home · The Club</title>');
      // The header is the server-rendered <svc-header> (hosted-site-ssr.test.ts has the details).
      expect(res.text).toMatch(/<svc-header[^>]*><template shadowrootmode="open">[\s\S]*The Club[\s\S]*<\/svc-header>/);
      expect(res.text).toContain('Walks &amp; talks &lt;b&gt;weekly&lt;/b&gt;');
    }
  });

  it('home shows the featured event, the upcoming events, the three latest articles and a join link', async () => {
    const { text } = await get('/', 'club.localhost');
    expect(text).toMatch(/<h2 id="featured">Featured<\/h2>\s*<p><a href="\/events\/summit-day"><strong>Summit Day/);
    expect(text).toContain('<a href="/events/summit-day">Summit Day</a>');
    expect(text).not.toContain('Last Year');
    expect(text).not.toContain('Inner Circle');
    const articles = [...text.matchAll(/<a href="\/blog\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(articles).toEqual(['Fourth post', 'Third post', 'Second post']);
    expect(text).toContain('<a class="button" href="/apply">Join The Club</a>');
  });

  it('the events page lists upcoming and past events; a member also sees members-only ones', async () => {
    const anonymous = await get('/events', 'club.localhost');
    expect(anonymous.status).toBe(200);
    const [upcoming, past] = anonymous.text.split('<h2 id="past">');
    expect(upcoming).toContain('Summit Day');
    expect(past).toContain('Last Year');
    expect(anonymous.text).not.toContain('Inner Circle');
    const member = await get('/events', 'club.localhost', memberCookie);
    expect(member.status).toBe(200);
    expect(member.text).toContain('Inner Circle');
  });

  it('the event page shows its dates, place, description, tiers with prices and the RSVP placeholder', async () => {
    const res = await get('/events/summit-day', 'club.localhost');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Summit Day</h1>');
    expect(res.text).toMatch(/<time datetime="[^"]+">[^<]+ UTC<\/time>/);
    expect(res.text).toContain('Hall, Lisbon');
    expect(res.text).toContain('<div class="description">About it</div>');
    expect(res.text).toContain('Free entry · <strong>Free</strong>');
    expect(res.text).toContain('Supporter · <strong>$15.00</strong>');
    expect(res.text).toContain('<div class="rsvp" id="rsvp" data-event="summit-day">');
  });

  it('works without JavaScript: no page carries an inline script, only module files and JSON data', async () => {
    for (const path of ['/', '/events', '/events/summit-day', '/nope']) {
      const scripts = (await get(path, 'club.localhost')).text.match(/<script[^>]*>/gi) ?? [];
      for (const tag of scripts)
        expect(tag).toMatch(/^<script (type="module" src="\/widgets\/|type="application\/(json|ld\+json)")/);
    }
  });

  it('a community is also served on <tag>.<SVC_SITE_DOMAIN>', async () => {
    const other = await startTestServer({ env: { SVC_SITE_DOMAIN: 'Sites.Test' } });
    try {
      await makeCommunity(other.database.db, 'club', { name: 'The Club' });
      const res = await rawRequest(new URL(other.url).port, 'GET', '/events', {
        Host: `club.sites.test:${new URL(other.url).port}`,
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain('<title>Events · The Club</title>');
      expect(other.config.siteDomain).toBe('sites.test');
    } finally {
      await other.close();
    }
  });

  it("on <tag>.<SVC_SITE_DOMAIN> a member's cookie counts, and only a token issued for that site", async () => {
    const other = await startTestServer({ env: { SVC_SITE_DOMAIN: 'sites.test' } });
    try {
      const db = other.database.db;
      const club = await makeCommunity(db, 'club', { name: 'The Club' });
      await makeEvent(db, club.id, { slug: 'insiders', name: 'Insiders', visibility: 'MEMBERS_ONLY' });
      const member = await makeUser(db, 'club-member');
      await makeMembership(db, club.id, member.id, 'ACCEPTED');
      const port = new URL(other.url).port;
      const as = async (site: string) =>
        rawRequest(port, 'GET', '/events/insiders', {
          Host: `club.sites.test:${port}`,
          Cookie: `svc_auth_club=${(await other.sessions.issue(member.id, Date.now(), undefined, site)).token}`,
        });
      const own = await as('club');
      expect(own.status).toBe(200);
      expect(own.text).toContain('Insiders');
      // A token bound to another site is not this site's member, whatever the cookie is called.
      expect((await as('elsewhere')).status).toBe(403);
    } finally {
      await other.close();
    }
  });

  it("the platform's routes are unchanged, and the site API still answers JSON on a community host", async () => {
    expect((await get('/docs', '127.0.0.1')).status).toBe(200);
    expect((await get('/openapi.json', 'localhost')).headers['content-type']).toMatch(/^application\/json/);
    expect((await get('/healthz', '127.0.0.1')).body).toEqual({ status: 'ok' });
    const community = await get('/api/communities/club', 'club.localhost');
    expect(community.status).toBe(200);
    expect(community.body.communityTag).toBe('club');
    expect((await get('/sign-in', 'club.localhost')).text).toContain('Sign in to The Club');
  });
});

describe('hosted site: errors', () => {
  it('an unknown path on a community host is its HTML not-found page', async () => {
    for (const path of ['/nope', '/events/summit-day/nope', '/blog/post-1/comments']) {
      const res = await get(path, 'club.localhost');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<title>Page not found · The Club</title>');
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('an unknown event is not found', async () => {
    const res = await get('/events/no-such-event', 'club.localhost');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Page not found');
  });

  it('an unknown host gets a plain HTML not-found page', async () => {
    for (const host of ['nowhere.example', 'nosuch.localhost']) {
      const res = await get('/events', host);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('No site is served at this address.');
    }
  });

  it('unknown /api and /v1 paths keep the JSON answer they have on the platform host, on every host', async () => {
    for (const path of ['/api/nope', '/v1/nope']) {
      const platform = await get(path, '127.0.0.1');
      expect(platform.status).toBeGreaterThanOrEqual(400);
      for (const host of ['club.localhost', 'club.example', 'nowhere.example']) {
        const res = await get(path, host);
        expect(res.status).toBe(platform.status);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.error?.code ?? res.body.code).toBe(platform.body.error?.code ?? platform.body.code);
      }
    }
  });

  it("the platform host's unknown paths keep the JSON not-found answer", async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const res = await get('/events', host);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('unreadable page settings, or settings of the wrong shape, close every page (fails closed)', async () => {
    const db = server.database.db;
    for (const [tag, settings] of [
      ['odd', '{"EVENTS":true}'],
      ['broken', '{not json'],
    ]) {
      const c = await makeCommunity(db, tag, { name: `Club ${tag}` });
      await makeEvent(db, c.id, { slug: `${tag}-event`, name: `Event of ${tag}` });
      await db.updateTable('communities').set({ page_settings: settings }).where('id', '=', c.id).execute();
      for (const path of ['/', '/events', `/events/${tag}-event`]) {
        const res = await get(path, `${tag}.localhost`);
        expect(res.status).toBe(404);
        expect(res.text).toContain(`Club ${tag}`);
        expect(res.text).not.toContain(`Event of ${tag}`);
      }
    }
  });

  it('an error while rendering answers the error page, never the content', async () => {
    const db = server.database.db;
    const c = await makeCommunity(db, 'faulty', { name: 'Faulty' });
    const e = await makeEvent(db, c.id, { slug: 'faulty-event', name: 'Faulty Event' });
    await db.updateTable('events').set({ location: '{not json' }).where('id', '=', e.id).execute();
    for (const path of ['/', '/events', '/events/faulty-event']) {
      const res = await get(path, 'faulty.localhost');
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Something went wrong</h1>');
      expect(res.text).not.toContain('Faulty Event');
    }
  });
});

describe('hosted site: security', () => {
  it('escapes a hostile community name, event title, description and place on every page', async () => {
    for (const path of ['/', '/events', '/events/bad', '/nope']) {
      const res = await get(path, 'evil.localhost');
      expect(executable(res.text)).not.toMatch(/<script>|<img/i);
      expect(res.text).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt;');
    }
    const detail = (await get('/events/bad', 'evil.localhost')).text;
    expect(detail).toContain('<h1>Bad &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(detail).toContain('Come &lt;img src=x onerror=alert(1)&gt;');
  });

  it('sends a strict CSP: scripts from the site only, every style by its hash, framed only by the site itself', async () => {
    for (const path of ['/', '/events', '/events/summit-day', '/nope']) {
      const res = await get(path, 'club.localhost');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).not.toMatch(/unsafe-inline/);
      expect(csp).toContain("script-src 'self'");
      for (const [, style] of res.text.matchAll(/<style>([\s\S]*?)<\/style>/g))
        expect(csp).toContain(`'sha256-${crypto.createHash('sha256').update(style).digest('base64')}'`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const unknown = await get('/', 'nowhere.example');
    expect(String(unknown.headers['content-security-policy'])).toContain("default-src 'none'");
  });

  it('caches anonymous public pages publicly, and a signed-in viewer’s pages never', async () => {
    for (const path of ['/', '/events', '/events/summit-day']) {
      const anonymous = await get(path, 'club.localhost');
      expect(anonymous.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
      expect(anonymous.headers.vary).toMatch(/Cookie/);
      const member = await get(path, 'club.localhost', memberCookie);
      expect(member.status).toBe(200);
      expect(member.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('a token issued for another site does not make its holder a member here', async () => {
    const db = server.database.db;
    const priv = await makeCommunity(db, 'vault', { name: 'Vault', visibility: 'MEMBERS_ONLY' });
    const ada = await makeUser(db, 'ada-vault');
    await makeMembership(db, priv.id, ada.id, 'ACCEPTED');
    const platform = (await server.sessions.issue(ada.id, Date.now(), undefined, null)).token;
    const club = (await server.sessions.issue(ada.id, Date.now(), undefined, 'club')).token;
    const own = (await server.sessions.issue(ada.id, Date.now(), undefined, 'vault')).token;
    expect((await get('/', 'vault.localhost', `svc_auth=${platform}`)).status).toBe(403);
    expect((await get('/', 'vault.localhost', `svc_auth_vault=${club}`)).status).toBe(403);
    expect((await get('/', 'vault.localhost', `svc_auth_vault=${own}`)).status).toBe(200);
  });
});
