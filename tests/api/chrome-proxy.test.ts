// The chrome proxy (docs/chrome-proxy.md): a community's external pages are fetched from its
// landingUrl, a real customer site started here, and served in the community's chrome; a 404 or a
// failure there falls back to the built-in page. What the customer's site receives is asserted on
// its side: never a credential of the visitor.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { forgetCommunityCaches } from '../../server/domain/communities.ts';
import { ChromeProxy } from '../../server/site/proxy/proxy.ts';
import { UpstreamCache } from '../../server/site/proxy/cache.ts';
import { createUpstreamClient } from '../../server/site/proxy/upstream.ts';
import { makeCommunity, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

/** What the customer's site saw: one entry per request it received. */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamOrigin: string;
const received: Received[] = [];
/** A server nothing should ever reach: where a redirect of the customer's site points. */
let secret: http.Server;
let secretHits = 0;
let secretOrigin: string;
let revalidations = 0;
let version = 'v1';
const DATED = 'Tue, 01 Sep 2026 10:00:00 GMT';

let server: TestServer;
let port: string;
let db: TestServer['database']['db'];
let communityId: string;
let memberCookie: string;

const page = (title: string, body: string, head = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
${head}
</head>
<body class="customer">
${body}
</body>
</html>
`;

function customerSite(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const html = (status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
    res.end(text);
  };
  switch (url.pathname) {
    case '/site/blog':
      return html(
        200,
        page(
          'Customer blog',
          `<h1>Customer blog</h1>
<img src="/site/img/a.png" srcset="/site/img/a.png 1x, /site/img/a@2x.png 2x" alt="">
<a href="/site/blog/hello?x=1#c">Hello post</a>
<a href="/site/about">About us</a>
<a href="https://elsewhere.example/x">Elsewhere</a>
<script>var inline = "/site/blog"; if (1 < 2) {}</script>`,
          `<link rel="stylesheet" href="/site/style.css">\n<link rel="icon" href="/favicon.ico">`,
        ),
        { 'Cache-Control': 'public, max-age=300', 'Set-Cookie': 'wp_session=customer; Path=/' },
      );
    case '/site/blog/hello':
      return html(200, page('Hello', `<h1>Hello from the customer</h1>`), { 'Cache-Control': 'max-age=300' });
    case '/site/blog/echo':
      return html(200, page('Echo', `<h1>Echo</h1><pre>${JSON.stringify(req.headers).replace(/</g, '&lt;')}</pre>`), {
        'Cache-Control': 'no-store',
      });
    case '/site/blog/fallback-post':
    case '/site/blog/missing':
      return html(404, page('Not here', '<h1>Customer 404</h1>'));
    case '/site/blog/gone':
      return html(404, page('Not here', '<h1>Customer 404</h1>'), { 'Cache-Control': 'max-age=60' });
    case '/site/blog/broken':
      return html(500, page('Oops', '<h1>Customer 500</h1>'));
    case '/site/blog/slow':
      // Never answers: the proxy's deadline does.
      return;
    case '/site/blog/gzip': {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': 'gzip' });
      res.end(zlib.gzipSync(page('Zipped', '<h1>Zipped page</h1>')));
      return;
    }
    case '/site/blog/huge': {
      const filler = `<p>${'x'.repeat(1000)}</p>\n`.repeat(6 * 1024);
      return html(200, page('Huge', `<h1>Huge page</h1>\n${filler}`));
    }
    case '/site/blog/latin': {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      const text = page('Latin', '<h1>Caf\u00e9 cr\u00e8me</h1>', '<meta charset="iso-8859-1">').replace(
        '<meta charset="utf-8">\n',
        '',
      );
      res.end(Buffer.from(text, 'latin1'));
      return;
    }
    case '/site/blog/based':
      return html(
        200,
        page(
          'Based',
          '<h1>Based</h1><img src="img/b.png" alt=""><a href="blog/hello">Hello, relative to the base</a>',
          `<base href="${upstreamOrigin}/site/">`,
        ),
      );
    case '/site/blog/style.css':
      res.writeHead(200, {
        'Content-Type': 'text/css',
        ETag: '"css1"',
        'Set-Cookie': 'x=1',
        'Clear-Site-Data': '"cookies"',
        'Service-Worker-Allowed': '/',
        'Access-Control-Allow-Origin': '*',
      });
      res.end('body { color: rebeccapurple; }');
      return;
    case '/site/blog/old':
      res.writeHead(301, { Location: '/site/blog/hello' });
      res.end();
      return;
    case '/site/blog/away':
      res.writeHead(302, { Location: `${secretOrigin}/admin` });
      res.end();
      return;
    case '/site/blog/revalidate':
      if (req.headers['if-none-match'] === `"${version}"`) {
        revalidations++;
        res.writeHead(304, { ETag: `"${version}"`, 'Cache-Control': 'no-cache' });
        res.end();
        return;
      }
      return html(200, page('Versioned', `<h1>Version ${version}</h1>`), {
        ETag: `"${version}"`,
        'Cache-Control': 'no-cache',
      });
    case '/site/blog/dated':
      if (req.headers['if-modified-since'] === DATED) {
        revalidations++;
        res.writeHead(304, { 'Last-Modified': DATED, 'Cache-Control': 'no-cache' });
        res.end();
        return;
      }
      return html(200, page('Dated', '<h1>Dated page</h1>'), { 'Last-Modified': DATED, 'Cache-Control': 'no-cache' });
    case '/site/blog/hosted-links':
      return html(200, page('Links', `<h1>Built for ${req.headers['x-forwarded-host']}</h1>`), {
        'Cache-Control': 'max-age=300',
      });
    case '/site/blog/varies':
      return html(200, page('Varies', `<h1>Language ${req.headers['accept-language']}</h1>`), {
        'Cache-Control': 'max-age=300',
        Vary: 'Accept-Language',
      });
    case '/site/blog/private':
      return html(200, page('Private', `<h1>Private ${received.length}</h1>`), {
        'Cache-Control': 'private, max-age=300',
      });
    case '/site/blog/contact':
      return html(200, page('Thanks', `<h1>Thanks</h1><p id="got">${body.replace(/</g, '&lt;')}</p>`));
    case '/site/marketplace':
      return html(200, page('Customer shop', '<h1>The customer shop</h1>'), { 'Cache-Control': 'max-age=300' });
    default:
      return html(404, page('Not here', '<h1>Customer 404</h1>'));
  }
}

const listen = (s: http.Server) =>
  new Promise<string>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

const get = (path: string, headers: Record<string, string> = {}, host = `prox.localhost:${port}`) =>
  rawRequest(port, 'GET', path, { Host: host, ...headers });
const lastReceived = (path: string) => [...received].reverse().find((r) => r.url.startsWith(path));

/** Stores a community's settings as the admin app would, and forgets what the process kept of them. */
async function settings(values: { storefront?: object; pages?: object[]; landing?: string | null }) {
  const set: Record<string, string | null> = {};
  if (values.storefront) set.storefront_config = JSON.stringify(values.storefront);
  if (values.pages) set.page_settings = JSON.stringify(values.pages);
  if (values.landing !== undefined) set.landing_url = values.landing;
  await db.updateTable('communities').set(set).where('id', '=', communityId).execute();
  forgetCommunityCaches(db);
  server.readCache.invalidate(communityId);
  server.chromeProxy.cache.clear();
}

const STOREFRONT = {
  header: { storeName: 'Prox' },
  nav: [{ href: '/blog', label: 'Journal' }],
  chromeProxy: { enabled: true, headless: false },
  externalPages: ['BLOG'],
};
const PAGES = [
  { pageKey: 'EVENTS', enabled: true, visibility: null },
  { pageKey: 'BLOG', enabled: true, visibility: null },
  { pageKey: 'MARKETPLACE', enabled: false, visibility: null },
];

/** A community of another test server, its BLOG external on the customer site here. */
async function proxiedCommunity(target: TestServer['database']['db'], tag: string) {
  const c = await makeCommunity(target, tag, { name: tag });
  await target
    .updateTable('communities')
    .set({
      storefront_config: JSON.stringify(STOREFRONT),
      page_settings: JSON.stringify(PAGES),
      landing_url: `${upstreamOrigin}/site`,
    })
    .where('id', '=', c.id)
    .execute();
  forgetCommunityCaches(target);
  return c;
}

async function article(slug: string, title: string) {
  await db
    .insertInto('articles')
    .values({
      id: newId(),
      community_id: communityId,
      slug,
      title,
      excerpt: '',
      content: '<p>Built in</p>',
      banner_url: null,
      category: null,
      status: 'PUBLISHED',
      published_at: nowIso(),
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      customerSite(req, res, body);
    });
  });
  upstreamOrigin = await listen(upstream);
  secret = http.createServer((_req, res) => {
    secretHits++;
    res.end('secret');
  });
  secretOrigin = await listen(secret);
  server = await startTestServer({
    env: { SVC_READ_CACHE_MS: '0', SVC_BODY_LIMIT: '16kb' },
    // Short deadlines, so the slow page is a test of seconds, not of the production 10 s.
    chromeProxy: (config, logger) =>
      new ChromeProxy({
        client: createUpstreamClient({ allowPrivate: true, connectTimeoutMs: 500, responseTimeoutMs: 800 }),
        cache: new UpstreamCache(config.chromeProxy.cacheBytes),
        logger,
        bodyLimitBytes: config.bodyLimitBytes,
      }),
  });
  port = new URL(server.url).port;
  db = server.database.db;
  const community = await makeCommunity(db, 'prox', { name: 'Prox Club', domains: ['prox.example'] });
  communityId = community.id;
  await settings({ storefront: STOREFRONT, pages: PAGES, landing: `${upstreamOrigin}/site/` });
  await article('fallback-post', 'The built-in fallback');
  const member = await makeUser(db, 'prox-member');
  await makeMembership(db, communityId, member.id, 'ACCEPTED');
  memberCookie = `svc_auth_prox=${(await server.sessions.issue(member.id, Date.now(), undefined, 'prox')).token}`;
});

afterAll(async () => {
  await server?.close();
  await new Promise((r) => upstream?.close(r));
  await new Promise((r) => secret?.close(r));
});

beforeEach(() => {
  server.chromeProxy.cache.clear();
});

/** The document's body as the visitor got it, between the chrome's header and footer. */
function chromeOf(res: RawResponse): { header: number; footer: number; bodyOpen: number; bodyClose: number } {
  return {
    bodyOpen: res.text.indexOf('<body class="customer">'),
    header: res.text.indexOf('<svc-header'),
    footer: res.text.indexOf('<svc-footer'),
    bodyClose: res.text.lastIndexOf('</body>'),
  };
}

describe('chrome proxy: happy path', () => {
  it("serves the customer's page at its community route, inside the server-rendered header and footer", async () => {
    const res = await get('/blog');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<h1>Customer blog</h1>');
    const at = chromeOf(res);
    // The header right after <body>, the footer right before </body>, both in declarative shadow DOM.
    expect(at.header).toBe(at.bodyOpen + '<body class="customer">'.length);
    expect(res.text.slice(at.footer).indexOf('</body>')).toBeGreaterThan(0);
    expect(at.footer).toBeLessThan(at.bodyClose);
    expect(res.text).toMatch(/<svc-header[^>]*><template shadowrootmode="open">/);
    expect(res.text).toMatch(/<svc-footer[^>]*><template shadowrootmode="open">/);
    expect(res.text.match(/\/widgets\/loader\.js/g)).toHaveLength(1);
    // The theme's custom properties, in the page's head.
    expect(res.text.slice(0, res.text.indexOf('</head>'))).toContain('--svc-theme-brand-color');
    expect(res.text).toContain('Prox');
    expect(lastReceived('/site/blog')?.url).toBe('/site/blog');
    expect(res.headers['server-timing']).toMatch(/^upstream;dur=\d+(\.\d+)?/);
  });

  it("rewrites the customer's asset URLs to its host and links to community routes to this site", async () => {
    const res = await get('/blog');
    expect(res.text).toContain(`<link rel="stylesheet" href="${upstreamOrigin}/site/style.css">`);
    expect(res.text).toContain(`<link rel="icon" href="${upstreamOrigin}/favicon.ico">`);
    expect(res.text).toContain(`src="${upstreamOrigin}/site/img/a.png"`);
    expect(res.text).toContain(`srcset="${upstreamOrigin}/site/img/a.png 1x, ${upstreamOrigin}/site/img/a@2x.png 2x"`);
    expect(res.text).toContain('<a href="/blog/hello?x=1#c">Hello post</a>');
    expect(res.text).toContain(`<a href="${upstreamOrigin}/site/about">About us</a>`);
    expect(res.text).toContain('<a href="https://elsewhere.example/x">Elsewhere</a>');
    // Scripts are the customer's and are left exactly as they were.
    expect(res.text).toContain('<script>var inline = "/site/blog"; if (1 < 2) {}</script>');
  });

  it('serves sub-routes from the customer, query included, and the built-in page where it answers 404', async () => {
    expect((await get('/blog/hello?ref=nav')).text).toContain('Hello from the customer');
    expect(lastReceived('/site/blog/hello')?.url).toBe('/site/blog/hello?ref=nav');
    const fallback = await get('/blog/fallback-post');
    expect(fallback.status).toBe(200);
    expect(fallback.text).toContain('The built-in fallback');
    expect(fallback.text).not.toContain('Customer 404');
    expect(fallback.headers['server-timing']).toContain('upstream;dur=');
    // Built-in pages have their own strict policy; the customer's 404 body is nowhere.
    expect(fallback.headers['content-security-policy']).toContain("default-src 'none'");
    const missing = await get('/blog/missing');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Page not found');
  });

  it('falls back to the built-in page when the customer answers 5xx, times out, or cannot be reached', async () => {
    const five = await get('/blog/broken');
    expect(five.status).toBe(404);
    expect(five.text).not.toContain('Customer 500');
    expect(five.headers['server-timing']).toContain('status 500');
    const started = Date.now();
    const slow = await get('/blog/slow');
    expect(slow.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(slow.headers['server-timing']).toContain('timeout');
    // A landing site that is down: the built-in blog, as if the proxy were off.
    const closed = http.createServer();
    const closedOrigin = await listen(closed);
    await new Promise((r) => closed.close(r));
    await settings({ landing: `${closedOrigin}/site` });
    try {
      const down = await get('/blog/fallback-post');
      expect(down.status).toBe(200);
      expect(down.text).toContain('The built-in fallback');
      expect(down.headers['server-timing']).toContain('unreachable');
    } finally {
      await settings({ landing: `${upstreamOrigin}/site/` });
    }
  });

  it('decodes a gzip page and an ISO-8859-1 page, and serves both as UTF-8 in the chrome', async () => {
    const zipped = await get('/blog/gzip');
    expect(zipped.text).toContain('<h1>Zipped page</h1>');
    expect(zipped.text).toContain('<svc-header');
    const latin = await get('/blog/latin');
    expect(latin.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(latin.text).toContain('<h1>Caf\u00e9 cr\u00e8me</h1>');
    expect(latin.text).toContain('<meta charset="utf-8">');
    expect(latin.text).not.toContain('iso-8859-1');
  });

  it("resolves the page's URLs against its own <base>, and drops the <base> so the chrome's links stay here", async () => {
    const res = await get('/blog/based');
    expect(res.text).not.toContain('<base');
    expect(res.text).toContain(`src="${upstreamOrigin}/site/img/b.png"`);
    expect(res.text).toContain('<a href="/blog/hello">Hello, relative to the base</a>');
  });

  it('streams a page over 5 MB through as it came, without the chrome', async () => {
    const res = await get('/blog/huge');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Huge page</h1>');
    expect(res.text.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(res.text).not.toContain('<svc-header');
  });

  it('streams what is not HTML through unchanged', async () => {
    const res = await get('/blog/style.css');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/css');
    expect(res.headers.etag).toBe('"css1"');
    expect(res.text).toBe('body { color: rebeccapurple; }');
  });

  it('brings a redirect into a proxied route back to this host, and passes any other through unfollowed', async () => {
    const moved = await get('/blog/old');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/blog/hello');
    const away = await get('/blog/away');
    expect(away.status).toBe(302);
    expect(away.headers.location).toBe(`${secretOrigin}/admin`);
    expect(secretHits).toBe(0);
  });

  it('passes a form post on a proxied route to the customer as it came, and shows the answer in the chrome', async () => {
    const res = await rawRequest(
      port,
      'POST',
      '/blog/contact',
      { Host: `prox.localhost:${port}`, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: memberCookie },
      'name=Ada&message=hi%20there',
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('<p id="got">name=Ada&message=hi%20there</p>');
    expect(res.text).toContain('<svc-header');
    const got = lastReceived('/site/blog/contact')!;
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(got.headers.cookie).toBeUndefined();
  });

  it("yields a disabled page's route to the customer's site, with no built-in page behind it", async () => {
    const shop = await get('/marketplace');
    expect(shop.status).toBe(200);
    expect(shop.text).toContain('The customer shop');
    expect(shop.text).toContain('<svc-header');
    const missing = await get('/marketplace/nothing');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Page not found');
  });

  it('serves the built-in pages as before when the proxy is off, or the page is not external', async () => {
    const events = await get('/events');
    expect(events.status).toBe(200);
    expect(lastReceived('/site/events')).toBeUndefined();
    await settings({ storefront: { ...STOREFRONT, chromeProxy: { enabled: false, headless: false } } });
    try {
      const before = received.length;
      const blog = await get('/blog/fallback-post');
      expect(blog.text).toContain('The built-in fallback');
      expect((await get('/marketplace')).status).toBe(404);
      expect(received.length).toBe(before);
    } finally {
      await settings({ storefront: STOREFRONT });
    }
  });

  it('headless: wraps nothing, and adds the loader only to a page without one', async () => {
    await settings({ storefront: { ...STOREFRONT, chromeProxy: { enabled: true, headless: true } } });
    try {
      const res = await get('/blog/hello');
      expect(res.text).toContain('Hello from the customer');
      expect(res.text).not.toContain('<svc-header');
      expect(res.text).not.toContain('<svc-footer');
      expect(res.text.match(/\/widgets\/loader\.js/g)).toHaveLength(1);
      expect(res.text.indexOf('/widgets/loader.js')).toBeLessThan(res.text.lastIndexOf('</body>'));
    } finally {
      await settings({ storefront: STOREFRONT });
    }
  });
});

describe('chrome proxy: caching', () => {
  it('keeps a cacheable page once for every visitor and applies each visitor its own chrome', async () => {
    const before = received.filter((r) => r.url === '/site/blog').length;
    const anonymous = await get('/blog');
    const member = await get('/blog', { Cookie: memberCookie });
    const again = await get('/blog');
    expect(received.filter((r) => r.url === '/site/blog').length).toBe(before + 1);
    expect(anonymous.headers['server-timing']).toContain('miss');
    expect(member.headers['server-timing']).toContain('hit');
    expect(again.text).toBe(anonymous.text);
    // The member's header is theirs: it names them, and is never kept for anyone else.
    expect(member.text).toContain('prox-member');
    expect(anonymous.text).not.toContain('prox-member');
    expect(member.headers['cache-control']).toBe('private, no-store');
    expect(anonymous.headers['cache-control']).toBe('public, max-age=300');
    expect(anonymous.headers.vary).toContain('Cookie');
  });

  it('revalidates a no-cache page with its ETag and serves the kept copy on 304', async () => {
    version = 'v1';
    const first = await get('/blog/revalidate');
    expect(first.text).toContain('Version v1');
    const count = revalidations;
    const second = await get('/blog/revalidate');
    expect(second.text).toContain('Version v1');
    expect(revalidations).toBe(count + 1);
    expect(second.headers['server-timing']).toContain('revalidated');
    expect(lastReceived('/site/blog/revalidate')?.headers['if-none-match']).toBe('"v1"');
    version = 'v2';
    expect((await get('/blog/revalidate')).text).toContain('Version v2');
  });

  it('revalidates a page that has only a Last-Modified date with If-Modified-Since', async () => {
    expect((await get('/blog/dated')).text).toContain('Dated page');
    const count = revalidations;
    const again = await get('/blog/dated');
    expect(again.text).toContain('Dated page');
    expect(again.headers['server-timing']).toContain('revalidated');
    expect(revalidations).toBe(count + 1);
    expect(lastReceived('/site/blog/dated')?.headers['if-modified-since']).toBe(DATED);
  });

  it('never keeps a private or no-store page', async () => {
    const a = await get('/blog/private');
    const b = await get('/blog/private');
    expect(a.text).not.toBe(b.text);
    expect(b.headers['server-timing']).toContain('miss');
    await get('/blog/echo');
    await get('/blog/echo');
    expect(received.filter((r) => r.url === '/site/blog/echo').length).toBeGreaterThanOrEqual(2);
  });

  it("remembers the customer's 404 as long as it may, so the built-in page answers without asking again", async () => {
    await get('/blog/gone');
    const before = received.length;
    const again = await get('/blog/gone');
    expect(again.status).toBe(404);
    expect(again.text).toContain('Page not found');
    expect(again.headers['server-timing']).toContain('hit, not found');
    expect(received.length).toBe(before);
    // Without freshness information a 404 is not kept: asked again.
    await get('/blog/missing');
    const count = received.length;
    await get('/blog/missing');
    expect(received.length).toBe(count + 1);
  });
});

describe('chrome proxy: security', () => {
  it("sends the customer's site no cookie, no Authorization, no key, and says who forwarded what", async () => {
    await get('/blog/echo', {
      Cookie: `${memberCookie}; other=1`,
      Authorization: 'Bearer secret-token',
      'X-API-Key': 'sk_test_secret',
      'X-Forwarded-For': '203.0.113.9',
      'Accept-Language': 'fr',
    });
    const got = lastReceived('/site/blog/echo')!;
    expect(got.headers.cookie).toBeUndefined();
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers['x-api-key']).toBeUndefined();
    expect(got.headers['accept-language']).toBe('fr');
    expect(got.headers['x-forwarded-host']).toBe(`prox.localhost:${port}`);
    expect(got.headers['x-forwarded-proto']).toBe('http');
    // SVC_TRUST_PROXY is off here: the socket's address is the visitor, whatever the request claimed.
    expect(got.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(got.headers.host).toBe(new URL(upstreamOrigin).host);
  });

  it("drops the customer's Set-Cookie, and every header of a file that would act on the community's origin", async () => {
    const res = await get('/blog');
    expect(res.headers['set-cookie']).toBeUndefined();
    const css = await get('/blog/style.css');
    expect(css.headers['set-cookie']).toBeUndefined();
    expect(css.headers['clear-site-data']).toBeUndefined();
    expect(css.headers['service-worker-allowed']).toBeUndefined();
    expect(css.headers['access-control-allow-origin']).toBeUndefined();
    expect(css.headers['x-content-type-options']).toBe('nosniff');
    const head = await rawRequest(port, 'HEAD', '/blog/style.css', { Host: `prox.localhost:${port}` });
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe('"css1"');
  });

  it('tells the upstream the host the community was found by, and keeps one entry per host', async () => {
    // A dressed-up Host (case, a port) is not what the upstream is told, nor what others are served.
    const odd = await get('/blog/hosted-links', {}, `PROX.localhost:${port}`);
    expect(odd.text).toContain(`Built for prox.localhost:${port}`);
    const custom = await get('/blog/hosted-links', {}, `prox.example:${port}`);
    expect(custom.text).toContain(`Built for prox.example:${port}`);
    expect((await get('/blog/hosted-links')).text).toContain(`Built for prox.localhost:${port}`);
  });

  it('never serves one visitor the variant an upstream Vary made for another', async () => {
    expect((await get('/blog/varies', { 'Accept-Language': 'fr' })).text).toContain('Language fr');
    expect((await get('/blog/varies', { 'Accept-Language': 'de' })).text).toContain('Language de');
  });

  it('keeps the gate of an external page: a members-only BLOG shows the gate page, not the customer page', async () => {
    await settings({
      pages: PAGES.map((p) => (p.pageKey === 'BLOG' ? { ...p, visibility: 'MEMBERS_ONLY' } : p)),
    });
    try {
      const before = received.length;
      const gate = await get('/blog');
      expect(gate.status).toBe(403);
      expect(gate.text).toContain('Members only');
      expect(received.length).toBe(before);
      const member = await get('/blog', { Cookie: memberCookie });
      expect(member.text).toContain('Customer blog');
    } finally {
      await settings({ pages: PAGES });
    }
  });

  it('refuses a loopback landing site in production: the built-in page answers and nothing reaches it', async () => {
    const production = await startTestServer({ env: { NODE_ENV: 'production', SVC_READ_CACHE_MS: '0' } });
    try {
      const pdb = production.database.db;
      await proxiedCommunity(pdb, 'prod');
      const before = received.length;
      const res = await rawRequest(new URL(production.url).port, 'GET', '/blog', {
        Host: `prod.localhost:${new URL(production.url).port}`,
      });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('Customer blog');
      expect(res.headers['server-timing']).toContain('refused');
      expect(received.length).toBe(before);
    } finally {
      await production.close();
    }
  });

  it('refuses a body over the limit before the customer sees any of it', async () => {
    const before = received.length;
    const res = await rawRequest(
      port,
      'POST',
      '/blog/contact',
      { Host: `prox.localhost:${port}`, 'Content-Type': 'text/plain' },
      'x'.repeat(20 * 1024),
    );
    expect(res.status).toBe(413);
    expect(res.text).toContain('Too large');
    expect(received.length).toBe(before);
  });

  it("keeps the site's own form posts: an RSVP route on an external EVENTS page is never sent upstream", async () => {
    await settings({ storefront: { ...STOREFRONT, externalPages: ['BLOG', 'EVENTS'] } });
    try {
      const before = received.length;
      const res = await rawRequest(
        port,
        'POST',
        '/events/none/rsvp',
        { Host: `prox.localhost:${port}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        'tier=x',
      );
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(received.length).toBe(before);
    } finally {
      await settings({ storefront: STOREFRONT });
    }
  });

  it('answers on the community host only: the same path on the platform host is not proxied', async () => {
    const before = received.length;
    const res = await rawRequest(port, 'GET', '/blog', { Host: `127.0.0.1:${port}` });
    expect(res.status).toBe(404);
    expect(received.length).toBe(before);
  });
});

describe('chrome proxy: the anonymous page cache', () => {
  it('keeps an anonymous proxied page only while the upstream says it is fresh, never a signed-in one', async () => {
    const cached = await startTestServer({ env: { SVC_READ_CACHE_MS: '60000' } });
    try {
      const cdb = cached.database.db;
      const c = await proxiedCommunity(cdb, 'kept');
      const cport = new URL(cached.url).port;
      const at = (path: string, headers: Record<string, string> = {}) =>
        rawRequest(cport, 'GET', path, { Host: `kept.localhost:${cport}`, ...headers });
      const asked = (path: string) => received.filter((r) => r.url === `/site${path}`).length;

      // Fresh for 300 s upstream: the whole page is kept, and served without the proxy's cache either.
      const first = await at('/blog/hello');
      cached.chromeProxy.cache.clear();
      const second = await at('/blog/hello');
      expect(second.text).toBe(first.text);
      expect(second.headers['server-timing']).toContain('page cache');

      // A page the upstream varies by language is never kept whole: each visitor gets their own.
      expect((await at('/blog/varies', { 'Accept-Language': 'fr' })).text).toContain('Language fr');
      expect((await at('/blog/varies', { 'Accept-Language': 'de' })).text).toContain('Language de');

      // no-cache upstream: revalidated on every visit, so never kept whole.
      version = 'v1';
      await at('/blog/revalidate');
      const before = asked('/blog/revalidate');
      await at('/blog/revalidate');
      expect(asked('/blog/revalidate')).toBe(before + 1);

      // A visitor with a sign-in cookie never gets the kept copy.
      const member = await makeUser(cdb, 'kept-member');
      await makeMembership(cdb, c.id, member.id, 'ACCEPTED');
      const cookie = `svc_auth_kept=${(await cached.sessions.issue(member.id, Date.now(), undefined, 'kept')).token}`;
      const signedIn = await at('/blog/hello', { Cookie: cookie });
      expect(signedIn.text).toContain('kept-member');
      expect(signedIn.headers['server-timing']).not.toContain('page cache');
      expect((await at('/blog/hello')).text).not.toContain('kept-member');
    } finally {
      await cached.close();
    }
  });
});
