// The hosted site's content pages (docs/hosted-site.md, "Pages"): BLOG and its Atom feed,
// MARKETPLACE, MEMBERS, FEED and ATLAS, each through the one gate. Raw HTTP with a Host header, as
// a browser sends; the gate's rows for HOME and EVENTS are in hosted-site-gate.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
const ids: Record<string, string> = {};
let port: string;
let db: Db;
const HOSTILE = '<script>alert(1)</script>';
const MINUTE = 60_000;
const DAY = 24 * 3600_000;

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

/** An event announced (created) at `at`. */
async function event(communityId: string, slug: string, at: number, extra: Parameters<typeof makeEvent>[2] = {}) {
  const e = await makeEvent(db, communityId, { slug, name: `Event ${slug}`, ...extra });
  await db
    .updateTable('events')
    .set({ created_at: new Date(at).toISOString() })
    .where('id', '=', e.id)
    .execute();
  ids[slug] = e.id;
  return e.id;
}

async function product(
  communityId: string,
  sku: string,
  p: {
    name?: string;
    price?: number;
    currency?: string;
    active?: boolean;
    donations?: object | null;
    image?: string;
    description?: string;
  } = {},
) {
  await db
    .insertInto('products')
    .values({
      id: newId(),
      community_id: communityId,
      sku,
      name: p.name ?? `Product ${sku}`,
      description: p.description ?? null,
      price_cents: p.price ?? 1500,
      currency: p.currency ?? 'USD',
      image_url: p.image ?? null,
      is_active: p.active === false ? 0 : 1,
      seller_id: null,
      donation_config: p.donations ? JSON.stringify(p.donations) : null,
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
}

/** Two categories with hotspots, and one hostile name. */
async function seedAtlas(target: Db, communityId: string) {
  const cats = [
    { id: newId(), name: 'Viewpoints', sort_order: 1 },
    { id: newId(), name: 'Huts', sort_order: 2 },
  ];
  for (const c of cats)
    await target
      .insertInto('atlas_categories')
      .values({ ...c, community_id: communityId, icon: null, color: null })
      .execute();
  const spots = [
    { name: 'Eagle Rock', category_id: cats[0].id, latitude: 46.5, longitude: 8.1, description: 'Wide view' },
    { name: `Hut ${HOSTILE}</script>`, category_id: cats[1].id, latitude: 46.6, longitude: 8.2, description: null },
    { name: 'Low Hut', category_id: cats[1].id, latitude: 46.7, longitude: 8.3, description: null },
  ];
  for (const h of spots)
    await target
      .insertInto('atlas_hotspots')
      .values({ ...h, id: newId(), community_id: communityId, image_url: null, created_at: nowIso() })
      .execute();
}

const post = (tag: string, path: string, form: string, headers: Record<string, string> = {}) =>
  rawRequest(
    port,
    'POST',
    path,
    {
      Host: `${tag}.localhost:${port}`,
      Origin: `http://${tag}.localhost:${port}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    form,
  );

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  db = server.database.db;
  const club = await community('club', { name: 'The Club', features: ['marketplace', 'atlas'] });

  ids.first = await article(club.id, {
    slug: 'first',
    title: 'First & foremost',
    excerpt: 'An opening',
    content: '<p>Intro <img src="https://img.example/a.png" alt="a"></p>',
    at: Date.now() - 3 * MINUTE,
    banner: 'https://img.example/banner.jpg',
  });
  ids.second = await article(club.id, {
    slug: 'second',
    title: `Second ${HOSTILE}`,
    content: `<p onclick="x()">Body</p>${HOSTILE}<a href="javascript:alert(1)">j</a>`,
    at: Date.now() - 2 * MINUTE,
  });
  ids.draft = await article(club.id, { slug: 'draft', title: 'Unfinished', status: 'DRAFT' });
  await seedAtlas(db, club.id);
  const yen = await event(club.id, 'yen-night', Date.now() - 20 * MINUTE, {
    tiers: [{ name: 'Seat', priceCents: 1200 }],
  });
  await db.updateTable('tiers').set({ currency: 'JPY' }).where('event_id', '=', yen).execute();
  const now = Date.now();
  await event(club.id, 'launch', now - MINUTE, {
    name: `Launch ${HOSTILE}`,
    startDate: new Date(now + 3 * DAY).toISOString(),
    tiers: [
      { name: 'Free', priceCents: 0 },
      { name: 'Supporter', priceCents: 1500 },
      { name: 'Closed', priceCents: 900, isActive: false },
    ],
  });
  await db
    .updateTable('events')
    .set({ banner_url: 'https://img.example/launch.jpg' })
    .where('slug', '=', 'launch')
    .execute();
  await event(club.id, 'secret-meet', now - 2.5 * MINUTE, { visibility: 'MEMBERS_ONLY' });
  // A busy feed: 25 posts, most of them at one instant, to walk page by page.
  const busy = await community('busy');
  const instant = now - 10 * MINUTE;
  for (let i = 0; i < 12; i++)
    await article(busy.id, { slug: `b-${i}`, title: `B ${i}`, at: i < 9 ? instant : instant - i * MINUTE });
  for (let i = 0; i < 13; i++) await event(busy.id, `e-${i}`, i < 9 ? instant : instant + i * MINUTE);
  await product(club.id, 'mug', {
    name: 'Club mug',
    price: 1500,
    description: 'Holds tea',
    image: 'https://img.example/mug.png',
    donations: { enabled: true, mode: 'pwyw', amounts: [500, 1000], minAmount: 300, currency: 'USD' },
  });
  await product(club.id, 'pin', { name: `Pin ${HOSTILE}`, price: 1200, currency: 'JPY' });
  await product(club.id, 'old', { name: 'Old stock', active: false });
  const eve = await makeUser(db, 'eve');
  await db
    .updateTable('users')
    .set({
      name: `Eve ${HOSTILE}`,
      bio: `Likes <b>hills</b>`,
      phone: '+15550001',
      profile_image: 'https://img.example/eve.png',
    })
    .where('id', '=', eve.id)
    .execute();
  await makeMembership(db, club.id, eve.id, 'ACCEPTED');
  await makeMembership(db, club.id, (await makeUser(db, 'banned-bo')).id, 'BANNED');
  await product(club.id, 'fund', {
    name: 'Trail fund',
    price: 0,
    donations: { enabled: true, mode: 'fixed', amounts: [2500], currency: 'USD' },
  });

  // BLOG members-only; every other page public.
  const inner = await community('inner', {
    pageSettings: [{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }],
  });
  ids.secret = await article(inner.id, { slug: 'secret', title: 'Members news' });
  await product(inner.id, 'mug');
  const shop = await community('shop', {
    features: ['marketplace'],
    pageSettings: [
      { pageKey: 'MARKETPLACE', enabled: true, visibility: 'MEMBERS_ONLY' },
      { pageKey: 'MEMBERS', enabled: true, visibility: 'MEMBERS_ONLY' },
    ],
  });
  await product(shop.id, 'hoodie', { name: 'Members hoodie' });
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
  await product(off.id, 'mug');
});
afterAll(async () => {
  await server.close();
});

/** The page less its JSON-LD data block (never executed; its JSON escapes every `<`). */
/**
 * The page without what is not executable or is ours: JSON and JSON-LD data blocks, and the
 * widgets' same-origin module files (tests/api/hosted-site-ssr.test.ts checks those).
 */
const executable = (html: string): string =>
  html
    .replace(/<script type="application\/(ld\+)?json"[^>]*>[^<]*<\/script>/g, '')
    .replace(/<script type="module" src="\/widgets\/[^"]+"[^>]*><\/script>/g, '');

const jsonLd = (text: string): any =>
  JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(text)![1]);

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
    // The article adds no script source: scripts stay the widgets' own, from this origin.
    expect(csp).toMatch(/script-src 'self';/);
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

  it('/marketplace lists the active products with prices in their currency', async () => {
    const res = await get('club', '/marketplace');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/marketplace/mug">Club mug</a>\n<div class="meta">$15.00</div>');
    expect(res.text).toContain('<div class="meta">¥1,200</div>');
    expect(res.text).toContain('<a href="/marketplace/fund">Trail fund</a>\n<div class="meta">Donations</div>');
    expect(res.text).not.toContain('Old stock');
  });

  it('/marketplace/<sku> shows the name, description, image, price, a buy form and a donate form', async () => {
    const res = await get('club', '/marketplace/mug');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Club mug</h1>');
    expect(res.text).toContain('<div class="description">Holds tea</div>');
    expect(res.text).toContain('<img class="product-image" src="https://img.example/mug.png" alt="">');
    expect(res.text).toContain('<form class="buy" method="post" action="/marketplace/mug/buy">');
    expect(res.text).toContain('<strong>$15.00</strong>');
    expect(res.text).toContain('<form class="donate" method="post" action="/marketplace/mug/donate">');
    expect(res.text).toContain('<input type="radio" name="amount" value="500" checked> $5.00');
    expect(res.text).toContain('Minimum $3.00');
    expect(res.text).toContain('<input type="email" name="email" autocomplete="email" required>');
    expect((await get('club', '/marketplace/mug', 'ACCEPTED')).text).not.toContain('name="email"');
    expect(String(res.headers['content-security-policy'])).toContain("img-src 'self' data: https: http:");
    const fund = await get('club', '/marketplace/fund');
    expect(fund.text).not.toContain('action="/marketplace/fund/buy"');
    expect(fund.text).toContain('action="/marketplace/fund/donate"');
  });

  it('the buy form opens the checkout for the quantity and sends the buyer to it (303)', async () => {
    const res = await post('club', '/marketplace/mug/buy', 'quantity=2');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^https?:\/\//);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const checkout = await db
      .selectFrom('checkout_sessions')
      .selectAll()
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(checkout)).toContain('mug');
    expect(Number(checkout.amount_total)).toBe(3000);
    expect(res.headers.location).toBe(checkout.checkout_url);
    // Browsers hold a form's redirect to the page's form-action: the product page admits the checkout's origin.
    const csp = String((await get('club', '/marketplace/mug')).headers['content-security-policy']);
    expect(csp).toContain(`form-action 'self' ${new URL(String(res.headers.location)).origin};`);
    expect(String((await get('club', '/blog')).headers['content-security-policy'])).toContain("form-action 'self';");
  });

  it('the donate form opens a donation checkout for the chosen or typed amount', async () => {
    const chip = await post('club', '/marketplace/mug/donate', 'amount=1000&other=&email=d%40example.com');
    expect(chip.status).toBe(303);
    const typed = await post('club', '/marketplace/mug/donate', 'amount=500&other=7.50&email=d%40example.com');
    expect(typed.status).toBe(303);
    const last = await db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('checkout_url', '=', String(typed.headers.location))
      .executeTakeFirstOrThrow();
    expect(Number(last.amount_total)).toBe(750);
    expect(last.customer_email).toBe('d@example.com');
  });

  it('a thank-you notice after the checkout returns', async () => {
    const res = await get('club', '/marketplace/mug?done=bought');
    expect(res.text).toContain('<p role="status" class="notice">Thank you: your order is complete.');
  });

  it('/members lists the ACCEPTED members with their public fields, each linking to a profile', async () => {
    const res = await get('club', '/members');
    expect(res.status).toBe(200);
    const tags = [...res.text.matchAll(/<a href="\/members\/([^"]+)">/g)].map((m) => m[1]);
    expect(tags.sort()).toEqual(['club-accepted', 'eve']);
    expect(res.text).toContain('<p class="meta">2 members</p>');
    expect(res.text).toContain('<img class="avatar" src="https://img.example/eve.png" alt="" width="40" height="40">');
  });

  it('/members is <svc-members> server-rendered from the first page, hydrating from it; the list is its no-JS stand-in', async () => {
    const res = await get('club', '/members');
    const el =
      /<svc-members limit="48"><template shadowrootmode="open">([\s\S]*?)<\/template><script type="application\/json">([^<]*)<\/script><\/svc-members>/.exec(
        res.text,
      );
    expect(el).not.toBeNull();
    // The cards are in the first paint, and the state is the directory's public fields only.
    expect(el![1]).toContain('club-accepted');
    const state = JSON.parse(el![2]);
    expect(state.total).toBe(2);
    expect(state.members.map((m: { usertag: string }) => m.usertag).sort()).toEqual(['club-accepted', 'eve']);
    expect(el![2]).not.toMatch(/@example\.com|phone|email/i);
    expect(res.text).toMatch(/<div class="nojs">\n<p class="meta">2 members<\/p>/);
    // Later pages are the plain list: the widget reaches them by "Load more".
    expect((await get('club', '/members?offset=1')).text).not.toContain('<svc-members');
  });

  it('/members pages by offset, as the directory API does', async () => {
    const base = await get('club', '/members?offset=1');
    const tags = [...base.text.matchAll(/<a href="\/members\/([^"]+)">/g)].map((m) => m[1]);
    expect(tags).toHaveLength(1);
    expect((await get('club', '/members?offset=2')).text).toContain('No more members.');
  });

  it('/members/<usertag> is the public profile: name, usertag, picture, bio, joined', async () => {
    const res = await get('club', '/members/eve');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Eve &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(res.text).toContain('<div class="description">Likes &lt;b&gt;hills&lt;/b&gt;</div>');
    expect(res.text).toMatch(/@eve · member since <time/);
  });

  it('/feed merges published articles and new events, newest first, each linking to its post page', async () => {
    const anonymous = await get('club', '/feed');
    expect(anonymous.status).toBe(200);
    const posts = (text: string) => [...text.matchAll(/<a href="\/feed\/post\/([^"]+)">/g)].map((m) => m[1]);
    expect(posts(anonymous.text)).toEqual([
      `event-${ids.launch}`,
      `article-${ids.second}`,
      `article-${ids.first}`,
      `event-${ids['yen-night']}`,
    ]);
    const member = await get('club', '/feed', 'ACCEPTED');
    expect(posts(member.text)).toEqual([
      `event-${ids.launch}`,
      `article-${ids.second}`,
      `event-${ids['secret-meet']}`,
      `article-${ids.first}`,
      `event-${ids['yen-night']}`,
    ]);
  });

  it('/feed pages with ?after= through every post once, in order, ties included', async () => {
    const seen: string[] = [];
    let path: string | null = '/feed';
    for (let pages = 0; path && pages < 5; pages++) {
      const res = await get('busy', path);
      expect(res.status).toBe(200);
      seen.push(...[...res.text.matchAll(/<a href="\/feed\/post\/([^"]+)">/g)].map((m) => m[1]));
      const next = /<a href="(\/feed\?after=[^"]+)">Older posts<\/a>/.exec(res.text);
      path = next ? next[1].replace(/&amp;/g, '&') : null;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen.slice(0, 4)).toEqual([
      `event-${ids['e-12']}`,
      `event-${ids['e-11']}`,
      `event-${ids['e-10']}`,
      `event-${ids['e-9']}`,
    ]);
    expect(seen.at(-1)).toMatch(/^article-/);
  });

  it('/feed/post/<id> shows an article post (sanitized) and an event post', async () => {
    const a = await get('club', `/feed/post/article-${ids.first}`);
    expect(a.status).toBe(200);
    expect(a.text).toContain('<h1>First &amp; foremost</h1>');
    expect(a.text).toContain('<img src="https://img.example/a.png" alt="a" />');
    expect(a.text).toContain('<a href="/blog/first">Article page</a>');
    const e = await get('club', `/feed/post/event-${ids.launch}`);
    expect(e.status).toBe(200);
    expect(e.text).toContain('<a href="/events/launch">Event page</a>');
  });

  it('/atlas lists the hotspots grouped by category; without SVC_MAP_TILES_URL it has no map and no script', async () => {
    const res = await get('club', '/atlas');
    expect(res.status).toBe(200);
    const [, viewpoints, huts] = res.text.split(/<h2 id="atlas-cat-\d+">/);
    expect(viewpoints).toMatch(/^Viewpoints<\/h2>[\s\S]*<strong>Eagle Rock<\/strong>/);
    expect(viewpoints).toContain('<div class="description">Wide view</div>');
    expect(huts).toMatch(/^Huts<\/h2>/);
    expect(huts).toContain('<strong>Low Hut</strong>');
    expect(executable(res.text)).not.toMatch(/<script|id="atlas-map"|leaflet/i);
    expect(String(res.headers['content-security-policy'])).not.toMatch(/style-src [^;]*'self'|img-src [^;]*tiles/);
  });

  it('with SVC_MAP_TILES_URL the atlas has the map: a JSON data block, a same-origin module, a CSP for both', async () => {
    const tiles = await startTestServer({
      env: { SVC_MAP_TILES_URL: 'https://{s}.tiles.example/{z}/{x}/{y}.png', SVC_MAP_TILES_ATTRIBUTION: '© Tiles' },
    });
    try {
      const c = await makeCommunity(tiles.database.db, 'club', { name: 'The Club' });
      await tiles.database.db
        .updateTable('communities')
        .set({ features: '["atlas"]' })
        .where('id', '=', c.id)
        .execute();
      await seedAtlas(tiles.database.db, c.id);
      const tport = new URL(tiles.url).port;
      const res = await rawRequest(tport, 'GET', '/atlas', { Host: `club.localhost:${tport}` });
      expect(res.status).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toMatch(/style-src ('sha256-[^']+' )+'self'/);
      expect(csp).toContain("img-src 'self' data: https://*.tiles.example");
      const block = /<script type="application\/json" id="atlas-data">([^<]*)<\/script>/.exec(res.text);
      expect(block).not.toBeNull();
      const data = JSON.parse(block![1]);
      expect(data.tiles).toEqual({ url: 'https://{s}.tiles.example/{z}/{x}/{y}.png', attribution: '© Tiles' });
      expect(data.hotspots).toHaveLength(3);
      expect(data.hotspots).toContainEqual(
        expect.objectContaining({ name: 'Eagle Rock', lat: 46.5, lng: 8.1, category: 'Viewpoints' }),
      );
      // No inline script: the only executable script is the module from this origin.
      const scripts = [...executable(res.text).matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
      expect(scripts).toHaveLength(1);
      const src = /<script type="module" src="(\/_site\/atlas-map\.[0-9a-f]+\.js)"><\/script>/.exec(res.text)![1];
      const css = /<link rel="stylesheet" href="(\/_site\/leaflet-[^"]+\/leaflet\.css)">/.exec(res.text)![1];
      for (const [path, type] of [
        [src, /^text\/javascript/],
        [css, /^text\/css/],
        [data.leaflet as string, /javascript/],
      ] as const) {
        const file = await rawRequest(tport, 'GET', path, { Host: `club.localhost:${tport}` });
        expect(file.status, path).toBe(200);
        expect(file.headers['content-type']).toMatch(type);
        expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      }
      expect((await rawRequest(tport, 'GET', '/events', { Host: `club.localhost:${tport}` })).text).not.toContain(
        'leaflet',
      );
    } finally {
      await tiles.close();
    }
  });

  it("the chrome's nav is siteNav: the reachable pages, a disabled one and a feature that is off left out", async () => {
    // The nav the server-rendered header was given (and hydrates from): the page's state block.
    const navOf = (text: string) =>
      (
        JSON.parse(/<script type="application\/json" id="svc-state">([^<]*)<\/script>/.exec(text)![1]).community
          .storefrontConfig.nav as { href: string }[]
      ).map((l) => l.href);
    expect(navOf((await get('club', '/blog')).text)).toEqual([
      '/',
      '/events',
      '/marketplace',
      '/feed',
      '/members',
      '/atlas',
      '/blog',
      '/conversations',
    ]);
    expect(navOf((await get('off', '/')).text)).toEqual(['/', '/events', '/conversations']);
    expect(navOf((await get('inner', '/')).text)).not.toContain('/marketplace');
  });

  it('pages carry a description, a canonical URL, Open Graph and Twitter cards; home has Organization JSON-LD', async () => {
    const res = await get('club', '/?utm=x');
    const origin = `http://club.localhost:${port}`;
    expect(res.text).toContain(`<link rel="canonical" href="${origin}/">`);
    expect(res.text).toContain('<meta property="og:type" content="website">');
    expect(res.text).toContain('<meta property="og:title" content="Home · The Club">');
    expect(res.text).toContain('<meta name="twitter:card" content="summary">');
    expect(res.text).toMatch(/<meta name="description" content="[^"]+">/);
    expect(jsonLd(res.text)).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: 'The Club',
      url: `${origin}/`,
    });
    expect((await get('club', '/members')).text).toContain(`<link rel="canonical" href="${origin}/members">`);
  });

  it('an event page has its banner as the card image and Event JSON-LD with an Offer per active tier', async () => {
    const res = await get('club', '/events/launch');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<meta property="og:image" content="https://img.example/launch.jpg">');
    expect(res.text).toContain('<meta name="twitter:card" content="summary_large_image">');
    const ld = jsonLd(res.text);
    expect(ld).toMatchObject({
      '@type': 'Event',
      name: `Launch ${HOSTILE}`,
      url: `http://club.localhost:${port}/events/launch`,
      image: ['https://img.example/launch.jpg'],
    });
    expect(ld.offers).toEqual([
      expect.objectContaining({ '@type': 'Offer', name: 'Free', price: '0.00', priceCurrency: 'USD' }),
      expect.objectContaining({
        '@type': 'Offer',
        name: 'Supporter',
        price: '15.00',
        availability: 'https://schema.org/InStock',
      }),
    ]);
  });

  it('an article page is og:type article with Article JSON-LD', async () => {
    const res = await get('club', '/blog/first');
    expect(res.text).toContain('<meta property="og:type" content="article">');
    expect(res.text).toContain('<meta property="og:image" content="https://img.example/banner.jpg">');
    expect(res.text).toContain('<meta name="description" content="An opening">');
    expect(jsonLd(res.text)).toMatchObject({
      '@type': 'Article',
      headline: 'First & foremost',
      image: ['https://img.example/banner.jpg'],
      author: { '@type': 'Person' },
      publisher: { '@type': 'Organization', name: 'The Club' },
    });
  });

  it('/sitemap.xml lists the pages, public events, published articles and products an anonymous visitor can open', async () => {
    const res = await get('club', '/sitemap.xml', 'ACCEPTED');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const origin = `http://club.localhost:${port}`;
    const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1].replace(origin, ''));
    expect(locs.slice(0, 7)).toEqual(['/', '/events', '/marketplace', '/feed', '/members', '/atlas', '/blog']);
    expect(locs).toContain('/events/launch');
    expect(locs).not.toContain('/events/secret-meet');
    expect(locs).toEqual(
      expect.arrayContaining(['/blog/first', '/blog/second', '/marketplace/mug', '/marketplace/fund']),
    );
    expect(locs).not.toContain('/blog/draft');
    expect(locs).not.toContain('/marketplace/old');
    expect(locs).not.toContain('/conversations');
  });

  it('/robots.txt points at the sitemap on this host', async () => {
    const res = await get('club', '/robots.txt');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain(`Sitemap: http://club.localhost:${port}/sitemap.xml`);
  });

  it('a public page, the Atom feed and the sitemap carry an ETag from their body; If-None-Match answers 304', async () => {
    for (const path of ['/blog', '/blog/first', '/marketplace/mug', '/blog/feed.xml', '/sitemap.xml']) {
      const first = await get('club', path);
      const etag = String(first.headers.etag);
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect((await get('club', path)).headers.etag, path).toBe(etag);
      const again = await get('club', path, 'anonymous', { 'If-None-Match': `"other", W/${etag}` });
      expect(again.status, path).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
      expect((await get('club', path, 'anonymous', { 'If-None-Match': '"other"' })).status).toBe(200);
    }
    // Different bodies, different tags.
    expect((await get('club', '/blog/first')).headers.etag).not.toBe((await get('club', '/blog/second')).headers.etag);
  });

  it("a tier's price is in its currency's own decimals, on the page and in the Offer", async () => {
    const res = await get('club', '/events/yen-night');
    expect(res.text).toContain('Seat · <strong>¥1,200</strong>');
    expect(jsonLd(res.text).offers).toEqual([expect.objectContaining({ price: '1200', priceCurrency: 'JPY' })]);
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

  it('without the marketplace feature, or with the page disabled, the marketplace is not found', async () => {
    for (const [tag, path] of [
      ['inner', '/marketplace'],
      ['inner', '/marketplace/mug'],
      ['off', '/marketplace'],
      ['off', '/marketplace/mug'],
    ]) {
      const res = await get(tag, path, 'ACCEPTED');
      expect(res.status, `${tag} ${path}`).toBe(404);
    }
    expect((await post('inner', '/marketplace/mug/buy', 'quantity=1')).status).toBe(404);
    expect((await post('off', '/marketplace/mug/buy', 'quantity=1')).status).toBe(404);
  });

  it('an unknown or inactive product is not found, and takes no order', async () => {
    for (const sku of ['nope', 'old']) {
      expect((await get('club', `/marketplace/${sku}`)).status).toBe(404);
      expect((await post('club', `/marketplace/${sku}/buy`, 'quantity=1')).status).toBe(404);
    }
    expect((await post('club', '/marketplace/pin/donate', 'amount=500')).status).toBe(404);
  });

  it('a bad quantity, an amount below the minimum and a free product are refused with a page that says why', async () => {
    const qty = await post('club', '/marketplace/mug/buy', 'quantity=11');
    expect(qty.status).toBe(400);
    expect(qty.text).toContain('Choose from 1 to 10.');
    const low = await post('club', '/marketplace/mug/donate', 'other=1.00&email=d%40example.com');
    expect(low.status).toBe(400);
    expect(low.text).toContain('<h1>Not possible</h1>');
    const free = await post('club', '/marketplace/fund/buy', 'quantity=1');
    expect(free.status).toBe(400);
    expect(free.text).toContain('<h1>Not possible</h1>');
    const anonymous = await post('club', '/marketplace/mug/donate', 'amount=1000');
    expect(anonymous.status).toBe(400);
    expect(anonymous.text).toContain('e-mail');
  });

  it('a profile is not found for a PENDING, BANNED, non-member or unknown user, or a member of another community', async () => {
    for (const tag of ['club-pending', 'banned-bo', 'club-outsider', 'nobody', 'inner-accepted']) {
      const res = await get('club', `/members/${tag}`, 'ACCEPTED');
      expect(res.status, tag).toBe(404);
    }
  });

  it('a disabled MEMBERS page is not found', async () => {
    for (const path of ['/members', '/members/off-accepted'])
      expect((await get('off', path, 'ACCEPTED')).status).toBe(404);
  });

  it('an unknown post, a draft, a malformed id or cursor, and a disabled FEED are not found', async () => {
    for (const path of [
      `/feed/post/article-${ids.draft}`,
      '/feed/post/article-nope',
      `/feed/post/${ids.first}`,
      `/feed/post/broadcast-${ids.first}`,
      '/feed?after=bogus',
    ])
      expect((await get('club', path, 'ACCEPTED')).status, path).toBe(404);
    for (const path of ['/feed', `/feed/post/article-${ids.first}`])
      expect((await get('off', path, 'ACCEPTED')).status).toBe(404);
  });

  it('without the atlas feature, or with the page disabled, the atlas is not found', async () => {
    expect((await get('inner', '/atlas', 'ACCEPTED')).status).toBe(404);
    expect((await get('off', '/atlas', 'ACCEPTED')).status).toBe(404);
  });

  it('the sitemap leaves out members-only and disabled pages and their entries; an unknown host keeps its 404', async () => {
    const inner = await get('inner', '/sitemap.xml');
    expect(inner.text).not.toContain('/blog');
    const off = await get('off', '/sitemap.xml');
    for (const path of ['/blog', '/marketplace', '/members', '/feed', '/atlas']) expect(off.text).not.toContain(path);
    for (const path of ['/sitemap.xml', '/robots.txt']) {
      const res = await rawRequest(port, 'GET', path, { Host: `nowhere.example:${port}` });
      expect(res.status).toBe(404);
      expect(res.text).toContain('No site is served at this address.');
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
    expect(executable(page.text)).not.toMatch(/<script|onclick|javascript:/i);
    expect(page.text).toContain(`Second &lt;script&gt;alert(1)&lt;/script&gt;`);
    const feed = await get('club', '/blog/feed.xml');
    expect(feed.text).not.toMatch(/<script|onclick|javascript:/i);
    expect(feed.text).toContain('<title>Second &lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });

  it('a form post from another site, or without an Origin, is refused and opens no checkout', async () => {
    const before = (await db.selectFrom('checkout_sessions').select('id').execute()).length;
    const forged: Record<string, string>[] = [
      { Origin: 'https://evil.example' },
      { Origin: '' },
      { 'Sec-Fetch-Site': 'cross-site' },
    ];
    for (const headers of forged) {
      const res = await post('club', '/marketplace/mug/buy', 'quantity=1', headers);
      expect(res.status).toBe(403);
      expect(res.text).toContain('<h1>Not sent</h1>');
    }
    expect((await db.selectFrom('checkout_sessions').select('id').execute()).length).toBe(before);
  });

  it('a members-only marketplace is the gate, for its pages and its forms', async () => {
    for (const viewer of ['anonymous', 'PENDING', 'outsider'] as const) {
      const res = await get('shop', '/marketplace/hoodie', viewer);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('Members hoodie');
    }
    expect((await post('shop', '/marketplace/hoodie/buy', 'quantity=1')).status).toBe(403);
    expect((await get('shop', '/marketplace', 'ACCEPTED')).text).toContain('Members hoodie');
  });

  it('product names are escaped', async () => {
    for (const path of ['/marketplace', '/marketplace/pin']) {
      const res = await get('club', path);
      expect(res.text).not.toContain(HOSTILE);
      expect(res.text).toContain('Pin &lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('the directory and profiles never show e-mail or phone, nor PENDING or BANNED users', async () => {
    for (const path of ['/members', '/members/eve']) {
      const res = await get('club', path, 'ACCEPTED');
      expect(res.text).not.toContain('@example.com');
      expect(res.text).not.toContain('+15550001');
      expect(res.text).not.toContain(HOSTILE);
      expect(res.text).not.toContain('club-pending');
      expect(res.text).not.toContain('banned-bo');
    }
  });

  it('a members-only MEMBERS page is the gate for non-members', async () => {
    for (const viewer of ['anonymous', 'PENDING', 'outsider'] as const)
      for (const path of ['/members', '/members/shop-accepted']) {
        const res = await get('shop', path, viewer);
        expect(res.status).toBe(403);
        expect(res.text).not.toContain('User shop-accepted');
      }
    expect((await get('shop', '/members/shop-accepted', 'ACCEPTED')).status).toBe(200);
  });

  it('the feed shows only what the viewer may see: members-only events and a members-only blog', async () => {
    expect((await get('club', `/feed/post/event-${ids['secret-meet']}`)).status).toBe(404);
    expect((await get('club', `/feed/post/event-${ids['secret-meet']}`, 'PENDING')).status).toBe(404);
    expect((await get('club', `/feed/post/event-${ids['secret-meet']}`, 'ACCEPTED')).status).toBe(200);
    for (const viewer of ['anonymous', 'PENDING', 'outsider'] as const) {
      expect((await get('inner', '/feed', viewer)).text).not.toContain('Members news');
      expect((await get('inner', `/feed/post/article-${ids.secret}`, viewer)).status).toBe(404);
    }
    expect((await get('inner', '/feed', 'ACCEPTED')).text).toContain('Members news');
    // An article of another community is not a post of this one.
    expect((await get('club', `/feed/post/article-${ids.secret}`, 'ACCEPTED')).status).toBe(404);
  });

  it('feed titles are escaped', async () => {
    for (const path of ['/feed', `/feed/post/event-${ids.launch}`, `/feed/post/article-${ids.second}`]) {
      const res = await get('club', path);
      expect(res.text).not.toContain(HOSTILE);
      expect(executable(res.text)).not.toMatch(/<script|onclick|javascript:/i);
    }
  });

  it('hotspot names are escaped in the list and cannot close the data block', async () => {
    const res = await get('club', '/atlas');
    expect(res.text).not.toContain(HOSTILE);
    expect(res.text).toContain('<strong>Hut &lt;script&gt;alert(1)&lt;/script&gt;&lt;/script&gt;</strong>');
    const { jsonDataBlock } = await import('../../server/site/pages/atlas.ts');
    const block = jsonDataBlock({ name: `x</script><script>alert(1)</script>` });
    expect(block).not.toMatch(/</);
    expect(JSON.parse(block)).toEqual({ name: 'x</script><script>alert(1)</script>' });
  });

  it('JSON-LD is a data block whose content cannot end it, and carries hostile names as data', async () => {
    const res = await get('club', '/events/launch');
    const block = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(res.text)![1];
    expect(block).not.toContain('<');
    expect(executable(res.text)).not.toMatch(/<script/);
    expect(jsonLd(res.text).name).toBe(`Launch ${HOSTILE}`);
    expect(res.text).toContain(
      '<meta property="og:title" content="Launch &lt;script&gt;alert(1)&lt;/script&gt; · The Club">',
    );
  });

  it('pages rendered for a signed-in viewer, and gate and not-found pages, carry no ETag and never answer 304', async () => {
    const anonymousTag = String((await get('club', '/blog')).headers.etag);
    const member = await get('club', '/blog', 'ACCEPTED');
    expect(member.headers.etag).toBeUndefined();
    expect((await get('club', '/blog', 'ACCEPTED', { 'If-None-Match': anonymousTag })).status).toBe(200);
    for (const [tag, path] of [
      ['inner', '/blog'],
      ['club', '/nope'],
    ]) {
      const res = await get(tag, path, 'anonymous', { 'If-None-Match': anonymousTag });
      expect(res.status).not.toBe(304);
      expect(res.headers.etag).toBeUndefined();
    }
  });

  it('a Host header with more than a name and a port never reaches the links of a page, the feed or the sitemap', async () => {
    const host = `club.localhost:${port}"><b>x`;
    for (const path of ['/', '/blog/feed.xml', '/sitemap.xml', '/robots.txt']) {
      const res = await rawRequest(port, 'GET', path, { Host: host });
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain('<b>x');
      expect(res.text, path).not.toContain('&lt;b&gt;x');
    }
  });
});
