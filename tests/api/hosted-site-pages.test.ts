// The hosted site's content pages (docs/hosted-site.md, "Pages"): BLOG and its Atom feed,
// MARKETPLACE, MEMBERS, FEED and ATLAS, each through the one gate. Raw HTTP with a Host header, as
// a browser sends; the gate's rows for HOME and EVENTS are in hosted-site-gate.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeCommunity, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let db: Db;
const HOSTILE = '<script>alert(1)</script>';
const MINUTE = 60_000;

/** Per community tag: the cookie of an ACCEPTED member, a PENDING applicant and a signed-in non-member. */
const cookies = new Map<string, { ACCEPTED: string; PENDING: string; outsider: string }>();
type Viewer = 'anonymous' | 'ACCEPTED' | 'PENDING' | 'outsider';

const get = (tag: string, path: string, viewer: Viewer = 'anonymous', headers: Record<string, string> = {}) => {
  const cookie = viewer === 'anonymous' ? undefined : cookies.get(tag)![viewer];
  return rawRequest(port, 'GET', path, {
    Host: `${tag}.localhost:${port}`,
    ...(cookie ? { Cookie: cookie } : {}),
    ...headers,
  });
};

async function community(
  tag: string,
  opts: { visibility?: 'PUBLIC' | 'MEMBERS_ONLY'; pageSettings?: object[]; features?: string[]; name?: string } = {},
) {
  const c = await makeCommunity(db, tag, { name: opts.name ?? `Club ${tag}`, visibility: opts.visibility });
  await db
    .updateTable('communities')
    .set({
      page_settings: JSON.stringify(opts.pageSettings ?? []),
      features: JSON.stringify(opts.features ?? []),
    })
    .where('id', '=', c.id)
    .execute();
  const byViewer = {} as { ACCEPTED: string; PENDING: string; outsider: string };
  for (const kind of ['ACCEPTED', 'PENDING', 'outsider'] as const) {
    const user = await makeUser(db, `${tag}-${kind.toLowerCase()}`);
    if (kind !== 'outsider') await makeMembership(db, c.id, user.id, kind);
    byViewer[kind] = `svc_auth_${tag}=${(await server.sessions.issue(user.id, Date.now(), undefined, tag)).token}`;
  }
  cookies.set(tag, byViewer);
  return c;
}

async function article(
  communityId: string,
  a: {
    slug: string;
    title: string;
    content?: string;
    status?: 'DRAFT' | 'PUBLISHED';
    at?: number;
    banner?: string;
    excerpt?: string;
  },
) {
  const id = newId();
  await db
    .insertInto('articles')
    .values({
      id,
      community_id: communityId,
      slug: a.slug,
      title: a.title,
      excerpt: a.excerpt ?? '',
      content: a.content ?? '<p>Hello</p>',
      banner_url: a.banner ?? null,
      category: null,
      status: a.status ?? 'PUBLISHED',
      published_at: a.status === 'DRAFT' ? null : new Date(a.at ?? Date.now()).toISOString(),
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
  return id;
}

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  db = server.database.db;
  const club = await community('club', { name: 'The Club', features: ['marketplace', 'atlas'] });

  await article(club.id, {
    slug: 'first',
    title: 'First & foremost',
    excerpt: 'An opening',
    content: '<p>Intro <img src="https://img.example/a.png" alt="a"></p>',
    at: Date.now() - 3 * MINUTE,
    banner: 'https://img.example/banner.jpg',
  });
  await article(club.id, {
    slug: 'second',
    title: `Second ${HOSTILE}`,
    content: `<p onclick="x()">Body</p>${HOSTILE}<a href="javascript:alert(1)">j</a>`,
    at: Date.now() - 2 * MINUTE,
  });
  await article(club.id, { slug: 'draft', title: 'Unfinished', status: 'DRAFT' });

  // BLOG members-only; every other page public.
  const inner = await community('inner', {
    pageSettings: [{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }],
  });
  await article(inner.id, { slug: 'secret', title: 'Members news' });
  // BLOG and MARKETPLACE disabled, features on.
  const off = await community('off', {
    features: ['marketplace', 'atlas'],
    pageSettings: [
      { pageKey: 'BLOG', enabled: false, visibility: null },
      { pageKey: 'MARKETPLACE', enabled: false, visibility: null },
      { pageKey: 'MEMBERS', enabled: false, visibility: null },
      { pageKey: 'FEED', enabled: false, visibility: null },
      { pageKey: 'ATLAS', enabled: false, visibility: null },
    ],
  });
  await article(off.id, { slug: 'hidden', title: 'Hidden' });
});
afterAll(async () => {
  await server.close();
});

const atomEntries = (text: string) => [...text.matchAll(/<entry>[\s\S]*?<\/entry>/g)].map((m) => m[0]);

describe('hosted pages: happy path', () => {
  it('/blog lists the published articles, newest first, with the feed link', async () => {
    const res = await get('club', '/blog');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
    const titles = [...res.text.matchAll(/<li><a href="\/blog\/([^"]+)">/g)].map((m) => m[1]);
    expect(titles).toEqual(['second', 'first']);
    expect(res.text).toContain('<a href="/blog/first">First &amp; foremost</a>');
    expect(res.text).toContain('<p>An opening</p>');
    expect(res.text).toContain('href="/blog/feed.xml"');
    expect(res.text).not.toContain('Unfinished');
  });

  it('/blog/<slug> shows the sanitized article with its banner; its CSP allows the images and embeds', async () => {
    const res = await get('club', '/blog/first');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>First &amp; foremost</h1>');
    expect(res.text).toContain('<img class="banner" src="https://img.example/banner.jpg" alt="">');
    expect(res.text).toContain('<img src="https://img.example/a.png" alt="a" />');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("img-src 'self' data: https: http:");
    expect(csp).toContain('frame-src https://www.youtube.com');
    expect(csp).not.toContain('script-src');
  });

  it('/blog/feed.xml is Atom 1.0 of the published articles with absolute URLs on the request host', async () => {
    const res = await get('club', '/blog/feed.xml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/atom\+xml/);
    expect(res.text).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
    );
    expect(res.text).toContain(
      `<link rel="self" type="application/atom+xml" href="http://club.localhost:${port}/blog/feed.xml"/>`,
    );
    const entries = atomEntries(res.text);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toContain(`<id>http://club.localhost:${port}/blog/second</id>`);
    expect(entries[1]).toContain('<title>First &amp; foremost</title>');
    expect(entries[1]).toContain('<summary>An opening</summary>');
    expect(entries[1]).toMatch(
      /<content type="html">&lt;p&gt;Intro &lt;img src=&quot;https:\/\/img.example\/a.png&quot;/,
    );
  });

  it('a member reads a members-only blog', async () => {
    const res = await get('inner', '/blog/secret', 'ACCEPTED');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Members news</h1>');
    expect(res.headers['cache-control']).toBe('private, no-store');
  });
});

describe('hosted pages: errors', () => {
  it('a draft and an unknown slug are the not-found page', async () => {
    for (const path of ['/blog/draft', '/blog/nope']) {
      const res = await get('club', path, 'ACCEPTED');
      expect(res.status).toBe(404);
      expect(res.text).toContain('<h1>Page not found</h1>');
    }
  });

  it('a disabled BLOG is not found, its feed too', async () => {
    for (const path of ['/blog', '/blog/hidden', '/blog/feed.xml']) {
      const res = await get('off', path, 'ACCEPTED');
      expect(res.status).toBe(404);
      expect(res.text).toContain('<h1>Page not found</h1>');
    }
  });
});

describe('hosted pages: security', () => {
  it('a members-only blog and article are the gate for anonymous, PENDING and non-member viewers', async () => {
    for (const viewer of ['anonymous', 'PENDING', 'outsider'] as const)
      for (const path of ['/blog', '/blog/secret']) {
        const res = await get('inner', path, viewer);
        expect(res.status).toBe(403);
        expect(res.text).toContain('<h1>Members only</h1>');
        expect(res.text).not.toContain('Members news');
      }
  });

  it("the feed of a members-only blog has no entries, even with a member's cookie", async () => {
    const res = await get('inner', '/blog/feed.xml', 'ACCEPTED');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/atom\+xml/);
    expect(atomEntries(res.text)).toEqual([]);
    expect(res.text).not.toContain('Members news');
  });

  it('article HTML goes through the sanitizer and titles are escaped, on the page and in the feed', async () => {
    const page = await get('club', '/blog/second');
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).not.toMatch(/<script|onclick|javascript:/i);
    expect(page.text).toContain(`Second &lt;script&gt;alert(1)&lt;/script&gt;`);
    const feed = await get('club', '/blog/feed.xml');
    expect(feed.text).not.toMatch(/<script|onclick|javascript:/i);
    expect(feed.text).toContain('<title>Second &lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });
});
