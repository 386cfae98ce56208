// How hosted pages are made (docs/hosted-site.md): <svc-header>, <svc-footer> and <svc-rsvp>
// rendered on the server into declarative shadow roots, the state they hydrate from in JSON data
// blocks, the scripts each page loads, and the CSP that allows exactly the styles on the page.
// The browser side (first paint, hydration without a layout shift, JavaScript off) is
// tests/e2e/hosted-site.spec.ts.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../server/app.ts';
import { rsvpWidget } from '../../server/site/pages/events.ts';
import type { SiteContext } from '../../server/site/pages/context.ts';
import { jsonBlock, loadWidgetBuild, PageWidgets } from '../../server/site/widgets-ssr.ts';
import type { WidgetManifest } from '../../vite.config.ts';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let memberCookie: string;
let manifest: WidgetManifest;
const HOSTILE = '<script>alert(1)</script>';
const DAY = 24 * 3600_000;

const get = (p: string, host: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', p, { Host: `${host}:${port}`, ...(cookie ? { Cookie: cookie } : {}) });

/** The declarative shadow root of `<svc-{name}>`: its `<style>` text and the markup after it. */
function root(html: string, name: string): { attrs: string; css: string; markup: string; state: string | null } {
  const m = new RegExp(
    `<svc-${name}([^>]*)><template shadowrootmode="open"><style>([\\s\\S]*?)</style>([\\s\\S]*?)</template>` +
      `(?:<script type="application/json">([\\s\\S]*?)</script>)?</svc-${name}>`,
  ).exec(html);
  if (!m) throw new Error(`no server-rendered <svc-${name}> in the page`);
  return { attrs: m[1], css: m[2], markup: m[3], state: m[4] ?? null };
}
const pageState = (html: string) =>
  JSON.parse(/<script type="application\/json" id="svc-state">([\s\S]*?)<\/script>/.exec(html)![1]);
const hash = (text: string) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  manifest = (await loadWidgetBuild(path.join(ROOT_DIR, 'dist'))).manifest;
  const db = server.database.db;
  const club = await makeCommunity(db, 'club', {
    name: 'The Club',
    themeConfig: { brandColor: '#ff0000', bodyFont: 'Inter, sans-serif', bgColor: 'red;}</style><b>x' },
  });
  await db
    .updateTable('communities')
    .set({
      storefront_config: JSON.stringify({
        header: { showBell: true, bgColor: '#102030' },
        footer: { title: 'Club footer', copyright: '© The Club' },
        pages: { '/events': { footer: { title: 'Events footer' } } },
      }),
    })
    .where('id', '=', club.id)
    .execute();
  await makeEvent(db, club.id, {
    slug: 'summit-day',
    name: 'Summit Day',
    startDate: new Date(Date.now() + 2 * DAY).toISOString(),
    tiers: [
      { name: 'Free entry', priceCents: 0 },
      { name: 'Supporter', priceCents: 1500 },
    ],
  });
  await makeEvent(db, club.id, {
    slug: 'fund-day',
    name: 'Fund Day',
    startDate: new Date(Date.now() + 3 * DAY).toISOString(),
    tiers: [{ name: 'Free entry', priceCents: 0 }],
    donationConfig: { enabled: true, mode: 'fixed', amounts: [500, 1000], currency: 'USD', label: 'Trail fund' },
  });
  const member = await makeUser(db, 'mia');
  await makeMembership(db, club.id, member.id, 'ACCEPTED');
  memberCookie = `svc_auth_club=${(await server.sessions.issue(member.id, Date.now(), undefined, 'club')).token}`;

  const evil = await makeCommunity(db, 'evil', { name: `Evil ${HOSTILE}` });
  await db
    .updateTable('communities')
    .set({
      storefront_config: JSON.stringify({
        footer: { title: `Foot ${HOSTILE}`, columns: [{ title: HOSTILE, links: [{ label: HOSTILE, href: '/x' }] }] },
      }),
    })
    .where('id', '=', evil.id)
    .execute();
  await makeEvent(db, evil.id, {
    slug: 'bad',
    name: `Bad ${HOSTILE}`,
    startDate: new Date(Date.now() + DAY).toISOString(),
    tiers: [{ name: `Tier ${HOSTILE}`, priceCents: 0 }],
  });
});
afterAll(async () => {
  await server.close();
});

describe('hosted site SSR: happy path', () => {
  it('renders the header and footer into declarative shadow roots, from storefrontConfig', async () => {
    const { status, text } = await get('/', 'club.localhost');
    expect(status).toBe(200);
    const header = root(text, 'header');
    expect(header.attrs).toBe(' current="/"');
    expect(header.markup).toMatch(/^<div class="svc" part="root"><header class="hdr /);
    expect(header.markup).toContain('<span class="name" part="name">The Club</span>');
    expect(header.markup).toMatch(/<a class="link" part="nav-link" href="http:\/\/club\.localhost:\d+\/events"/);
    expect(header.markup).toContain('part="sign-in" href="http://club.localhost:');
    expect(header.markup).toContain(`/sign-in?next=${encodeURIComponent('/')}`);
    // No inline style attribute (the CSP refuses them): the header's look is in its <style>.
    expect(header.markup).not.toContain('style=');
    expect(header.css).toContain('--svc-theme-header-bg-color:#102030');
    const footer = root(text, 'footer');
    expect(footer.markup).toContain('<p class="title" part="title">Club footer</p>');
    expect(footer.markup).toContain('© The Club');
    // pages.<route>.footer replaces the default footer on that route.
    expect(root((await get('/events', 'club.localhost')).text, 'footer').markup).toContain('Events footer');
  });

  it('holds the first paint until the header is parsed whole: rel=expect names <main>, which follows it', async () => {
    const { text } = await get('/events', 'club.localhost');
    const head = text.slice(0, text.indexOf('</head>'));
    expect(head).toContain('<link rel="expect" href="#main" blocking="render">');
    // Painted halfway through the header, its nav moved when its sign-in link arrived.
    expect(text.indexOf('<main id="main">')).toBeGreaterThan(text.indexOf('</svc-header>'));
  });

  it("applies the theme as custom properties, on the page and in each widget's root", async () => {
    const { text } = await get('/events', 'club.localhost');
    const pageStyle = /<style>([\s\S]*?)<\/style>/.exec(text)![1];
    expect(pageStyle).toContain(':root{--svc-theme-brand-color:#ff0000;--svc-theme-body-font:Inter, sans-serif}');
    expect(pageStyle).toContain('font-family: var(--svc-body-font, var(--svc-theme-body-font');
    expect(root(text, 'header').css).toContain(':host{--svc-theme-brand-color:#ff0000;');
  });

  it('puts the state the widgets hydrate from in JSON data blocks, never executed', async () => {
    const anonymous = pageState((await get('/', 'club.localhost')).text);
    expect(anonymous.session).toBeNull();
    expect(anonymous.community).toMatchObject({ communityTag: 'club', name: 'The Club' });
    // siteNav's: every page reachable here (the community has no feature on, so no Marketplace or Atlas).
    expect(anonymous.community.storefrontConfig.nav).toEqual(
      ['Home', 'Events', 'Feed', 'Members', 'Blog', 'Chat'].map((label) => expect.objectContaining({ label })),
    );
    const member = await get('/', 'club.localhost', memberCookie);
    expect(pageState(member.text).session).toEqual({
      id: expect.any(String),
      usertag: 'mia',
      name: expect.any(String),
      profileImage: null,
    });
    // Signed in: the user menu and the bell (showBell) come from the server, no "Sign in".
    const header = root(member.text, 'header');
    expect(header.markup).toContain('part="user"');
    expect(header.markup).toContain('part="bell"');
    expect(header.markup).not.toContain('part="sign-in"');
    expect(JSON.parse(header.state!)).toEqual({ unread: 0 });
  });

  it('renders <svc-rsvp> with the tiers on the event page, a plain form post without JavaScript', async () => {
    const { text } = await get('/events/summit-day', 'club.localhost');
    const rsvp = root(text, 'rsvp');
    expect(rsvp.attrs).toBe(' event="summit-day"');
    expect(rsvp.markup).toContain(
      '<form class="form" part="form" novalidate method="post" action="/events/summit-day/rsvp">',
    );
    expect(rsvp.markup).toMatch(
      /<input type="radio" name="tierId" value="[^"]+"\/><span class="tier-name" part="tier-name">Free entry</,
    );
    expect(rsvp.markup).toContain('Supporter');
    // Anonymous: without JavaScript the form asks to sign in first.
    expect(rsvp.markup).toContain(
      `<div class="nojs"><p><a href="/sign-in?next=${encodeURIComponent('/events/summit-day')}">Sign in to RSVP</a></p></div>`,
    );
    const state = JSON.parse(rsvp.state!);
    expect(state.event.slug).toBe('summit-day');
    expect(state.tiers.map((t: { name: string }) => t.name)).toEqual(['Free entry', 'Supporter']);
    expect(state).not.toHaveProperty('ssr');
  });

  it('renders <svc-donate> on an event that takes donations, with its target and summary, and only there', async () => {
    const { text } = await get('/events/fund-day', 'club.localhost');
    const donate = root(text, 'donate');
    expect(donate.attrs).toBe(' event="fund-day"');
    expect(donate.markup).toContain('<div class="donate">');
    expect(donate.markup).toContain('Trail fund');
    expect(JSON.parse(donate.state!)).toEqual({
      key: 'fund-day',
      target: { name: 'Fund Day', config: expect.objectContaining({ enabled: true }), currency: 'USD' },
      summary: { total: 0, count: 0, currency: null },
    });
    expect(text).toContain(`<link rel="modulepreload" href="/widgets/${manifest.widgets.donate.file}">`);
    const plain = (await get('/events/summit-day', 'club.localhost')).text;
    expect(plain).not.toContain('<svc-donate');
    expect(plain).not.toContain(manifest.widgets.donate.file);
  });

  it('with a CSRF token, the no-JS RSVP form carries it and a submit button', async () => {
    const build = await loadWidgetBuild(path.join(ROOT_DIR, 'dist'));
    const { community } = pageState((await get('/', 'club.localhost')).text);
    const widgets = new PageWidgets(build, { community, session: null, href: 'http://club.localhost/events/e' });
    const ctx = { chrome: { widgets } } as unknown as SiteContext;
    const event = { slug: 'e', name: 'E', startDate: new Date(Date.now() + DAY).toISOString(), endDate: null };
    const tier = {
      id: 't1',
      name: 'Free',
      priceCents: 0,
      currency: 'USD',
      capacity: null,
      sold: 0,
      isActive: true,
      hasForm: false,
    };
    const html = rsvpWidget(ctx, event as never, { tiers: [tier], forms: {} }, 'tok"<en>');
    expect(html).toContain('method="post" action="/events/e/rsvp"');
    expect(html).toContain('<input type="hidden" name="_csrf" value="tok&quot;&lt;en&gt;"><button type="submit"');
  });

  it('loads only the chunks of the widgets on the page, as module files, with no inline script', async () => {
    const events = await get('/events', 'club.localhost');
    const detail = await get('/events/summit-day', 'club.localhost');
    const preloads = (html: string) =>
      [...html.matchAll(/<link rel="modulepreload" href="\/widgets\/([^"]+)">/g)].map((m) => m[1]);
    const chunks = (names: string[]) =>
      new Set(names.flatMap((n) => [manifest.widgets[n].file, ...manifest.widgets[n].imports]));
    expect(new Set(preloads(events.text))).toEqual(chunks(['header', 'footer']));
    expect(new Set(preloads(detail.text))).toEqual(chunks(['header', 'footer', 'rsvp']));
    expect(events.text).toContain(`<script type="module" src="/widgets/loader.js" data-community="club"></script>`);
    for (const res of [events, detail]) {
      for (const [tag, body] of Array.from(res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g), (m) => [
        m[1],
        m[2],
      ]))
        if (!/type="application\/(ld\+)?json"/.test(tag))
          expect([tag, body]).toEqual([expect.stringContaining('src="/widgets/'), '']);
    }
  });
});

describe('hosted site SSR: /sign-in and /notifications', () => {
  it('get the same server-rendered chrome on a community host, with their CSP extended to it', async () => {
    const signIn = await get('/sign-in?next=/events', 'club.localhost');
    expect(signIn.status).toBe(200);
    expect(root(signIn.text, 'header').markup).toContain('The Club');
    expect(root(signIn.text, 'footer').markup).toContain('Club footer');
    expect(signIn.text).toContain('<h1 id="title"');
    const notes = await get('/notifications', 'club.localhost', memberCookie);
    expect(notes.status).toBe(200);
    expect(root(notes.text, 'header').markup).toContain('part="user"');
    for (const res of [signIn, notes]) {
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toMatch(/script-src 'nonce-[^']+' 'self'/);
      expect(csp).not.toContain('unsafe-inline');
      for (const style of [root(res.text, 'header').css, root(res.text, 'footer').css])
        expect(csp).toContain(hash(style));
      expect(res.text).toContain('<script type="module" src="/widgets/loader.js" data-community="club"></script>');
    }
  });

  it('keep their own layout on the platform host', async () => {
    const res = await get('/sign-in', 'localhost');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<svc-header');
    expect(String(res.headers['content-security-policy'])).not.toContain("'self'; style-src");
  });
});

describe('hosted site SSR: errors', () => {
  it('a chrome that cannot be rendered (a Host no URL can hold) leaves the page with the plain chrome', async () => {
    const res = await rawRequest(port, 'GET', '/events', { Host: 'club.localhost:99999999' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a class="site-name" href="/">The Club</a>');
    expect(res.text).not.toContain('<svc-header');
    expect(res.text).toContain('<h1>Events</h1>');
  });

  it('the not-found page has the same chrome', async () => {
    const res = await get('/nope', 'club.localhost');
    expect(res.status).toBe(404);
    expect(root(res.text, 'header').markup).toContain('The Club');
    expect(root(res.text, 'footer').markup).toContain('Club footer');
  });

  it('an event that does not exist has no RSVP, and a page without the build falls back to the plain chrome', async () => {
    expect((await get('/events/none', 'club.localhost')).text).not.toContain('<svc-rsvp');
    // A server whose dist/ has no widget build: the pages still work, without widgets or scripts.
    const bare = await startTestServer({ distDir: path.join(os.tmpdir(), `svc-no-build-${process.pid}`) });
    try {
      await makeCommunity(bare.database.db, 'club', { name: 'The Club' });
      const res = await rawRequest(new URL(bare.url).port, 'GET', '/events', {
        Host: `club.localhost:${new URL(bare.url).port}`,
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain('<a class="site-name" href="/">The Club</a>');
      expect(res.text).not.toMatch(/<script|<svc-/);
      expect(String(res.headers['content-security-policy'])).not.toContain('script-src');
    } finally {
      await bare.close();
    }
  });
});

describe('hosted site SSR: security', () => {
  it('escapes hostile community, event, tier and footer text inside the declarative roots and the data blocks', async () => {
    for (const p of ['/', '/events', '/events/bad']) {
      const { text } = await get(p, 'evil.localhost');
      expect(text).not.toContain('<script>alert(1)');
      expect(text).not.toMatch(/<script>/);
      const header = root(text, 'header');
      expect(header.markup).toContain('Evil &lt;script>alert(1)&lt;/script>');
      expect(root(text, 'footer').markup).toContain('Foot &lt;script>alert(1)&lt;/script>');
      // The JSON blocks cannot be closed from inside.
      expect(text).toContain('Evil \\u003cscript\\u003ealert(1)\\u003c/script\\u003e');
      expect(pageState(text).community.name).toBe(`Evil ${HOSTILE}`);
    }
    const rsvp = root((await get('/events/bad', 'evil.localhost')).text, 'rsvp');
    expect(rsvp.markup).toContain('Tier &lt;script>alert(1)&lt;/script>');
    expect(JSON.parse(rsvp.state!).event.name).toBe(`Bad ${HOSTILE}`);
  });

  it('drops a theme value that could leave its declaration, from the page and the widgets', async () => {
    const { text } = await get('/', 'club.localhost');
    expect(text).not.toContain('</style><b>x');
    expect(text).not.toContain('--svc-theme-bg-color:');
  });

  it("sends a CSP with no 'unsafe-inline' whose hashes match every style, scripts and requests from the site only", async () => {
    for (const [p, cookie] of [
      ['/', undefined],
      ['/events/summit-day', undefined],
      ['/events/summit-day', memberCookie],
      ['/nope', undefined],
    ] as const) {
      const res = await get(p, 'club.localhost', cookie);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      const styles = [...res.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
      expect(styles.length).toBeGreaterThanOrEqual(3);
      const allowed = /style-src ([^;]+)/.exec(csp)![1].split(' ');
      expect(new Set(allowed)).toEqual(new Set(styles.map(hash)));
    }
  });

  it('a JSON block escapes what could end the script element or open a comment', () => {
    expect(jsonBlock({ a: '</script><!--&' })).toBe(
      '<script type="application/json">{"a":"\\u003c/script\\u003e\\u003c!--\\u0026"}</script>',
    );
  });
});

describe('hosted site SSR: link templates', () => {
  it('renders the member-href and site-href an element carries as the browser does, relative ones against the page', async () => {
    const build = await loadWidgetBuild(path.join(ROOT_DIR, 'dist'));
    const community = JSON.parse((await get('/api/communities/club', 'club.localhost')).text);
    community.storefrontConfig = {
      ...community.storefrontConfig,
      nav: [{ label: 'Events', href: '/events' }],
      footer: { columns: [{ title: 'More', links: [{ label: 'About', href: '/about?x=1' }] }] },
    };
    const page = `http://club.localhost:${port}/members`;
    const widgets = new PageWidgets(build, { community, session: null, href: page });
    const member = {
      userId: '0196b0c4-5f1e-7c2a-9d3e-1a2b3c4d5e6f',
      name: 'Ana Bo',
      usertag: 'ana_bo',
      profileImage: null,
      bio: null,
      joinedAt: new Date().toISOString(),
    };
    const members = root(
      widgets.element('members', { 'member-href': 'people/{usertag}?id={id}' }, { members: [member], total: 1 }),
      'members',
    );
    expect(members.markup).toContain(`href="http://club.localhost:${port}/people/ana_bo?id=${member.userId}"`);
    const header = root(widgets.element('header', { 'site-href': 'https://shop.example/c{path}' }), 'header');
    expect(header.markup).toContain('href="https://shop.example/c/events"');
    expect(header.markup).toContain('href="https://shop.example/c/"');
    const footer = root(widgets.element('footer', { 'site-href': '/c{path}' }), 'footer');
    expect(footer.markup).toContain(`href="http://club.localhost:${port}/c/about?x=1"`);
    // Without the attributes, the community's own pages.
    const plain = root(widgets.element('members', {}, { members: [member], total: 1 }), 'members');
    expect(plain.markup).toContain(`href="http://club.localhost:${port}/members/ana_bo"`);
  });
});
