// Every page of the hosted site (docs/hosted-site.md) in Chromium, with JavaScript on and off:
// it renders its heading, axe finds nothing, and nothing fails in the console. Then the gate as a
// visitor meets it (members-only pages send them to sign in and back), the pages only members and
// leaders open, and a community whose every user-written field is hostile: no script of theirs runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { E2E_PORT, HOSTED_ORIGIN, axeViolations, serveTiles, svc } from './support.ts';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

const MAYA = { email: 'maya@example.com', password: 'demo-password' };

/** demo/fixture.json's pages an anonymous visitor opens, each with its heading. */
const PUBLIC_PAGES: [string, RegExp][] = [
  ['/', /Demo Hikers/],
  ['/events', /Events/],
  ['/events/snow-lake-hike', /Snow Lake/],
  ['/events/lantern-night-walk', /Lantern/],
  ['/marketplace', /./],
  ['/marketplace/trail-bandana', /Bandana/],
  ['/members', /Members/],
  ['/members/maya', /Maya Okafor/],
  ['/atlas', /./],
  ['/blog', /./],
  ['/blog/welcome-to-demo-hikers', /Welcome to Demo Hikers/],
  ['/apply', /./],
];

/** Members-only for the demo: FEED by its page setting, CHAT always. */
const MEMBER_PAGES = ['/feed', '/conversations'];

/**
 * A context with JavaScript on or off, signed in as Maya when asked. The sign-in goes through a
 * page of the community's host with JavaScript on (Node cannot resolve `demo.localhost`, and with
 * JavaScript off not even a promise settles in a page); its cookie is carried to the context.
 */
async function contextFor(browser: Browser, javaScript: boolean, signedIn = false): Promise<BrowserContext> {
  if (!signedIn) {
    const context = await browser.newContext({ javaScriptEnabled: javaScript });
    await serveTiles(context);
    return context;
  }
  const signingIn = await browser.newContext();
  const page = await signingIn.newPage();
  await page.goto(`${HOSTED_ORIGIN}/events`);
  const status = await page.evaluate(async (who) => {
    const res = await fetch('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(who),
    });
    await res.text();
    return res.status;
  }, MAYA);
  expect(status).toBe(200);
  const storageState = await signingIn.storageState();
  await signingIn.close();
  return browser.newContext({ javaScriptEnabled: javaScript, storageState });
}

/**
 * Console errors, uncaught exceptions and failed requests, less what is expected: a browser without
 * JavaScript refuses the module preloads of the page's `<head>` (Chromium reports them failed,
 * "csp"): it never runs them.
 */
function recordPageProblems(page: Page, javaScript: boolean): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (!javaScript && r.resourceType() === 'script') return;
    problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return problems;
}

/**
 * axe on a page as a browser without JavaScript shows it. axe needs JavaScript to run (with it
 * off, not even a promise settles in the page), so the page is opened in a context with it on,
 * every script refused, and its stylesheets' `(scripting: none)` queries made true: they are the
 * one thing a browser without JavaScript renders differently (the `.nojs` boxes, the header's
 * nav always shown). The page's HTML is read by the browser (Node cannot resolve
 * `demo.localhost`) and served without its CSP, whose style hashes the rewritten styles no
 * longer match.
 */
async function axeWithoutJavaScript(browser: Browser, url: string, storageState?: StorageState): Promise<string[]> {
  const context = await browser.newContext({ storageState });
  const page = await context.newPage();
  await page.route('**/*', (route) => (route.request().resourceType() === 'script' ? route.abort() : route.continue()));
  await page.goto(new URL('/robots.txt', url).href);
  const html = await page.evaluate(async (u) => (await fetch(u)).text(), url);
  await page.route(url, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: html.replace(/\(scripting:\s*none\)/g, 'all'),
    }),
  );
  await page.goto(url);
  const violations = await axeViolations(page);
  await context.close();
  return violations;
}

/** Opens the page: it answers 200, shows its heading, passes axe (as it is shown with or without JavaScript), and nothing fails. */
async function expectPageFine(page: Page, pathname: string, heading: RegExp, problems: string[]): Promise<void> {
  const url = `${HOSTED_ORIGIN}${pathname}`;
  const res = await page.goto(url);
  expect(res?.status(), pathname).toBe(200);
  await expect(page.locator('main h1').first(), pathname).toHaveText(heading);
  const javaScript = (await page.evaluate(() => matchMedia('(scripting: enabled)').matches)) as boolean;
  if (javaScript) {
    // Hydrated and settled (the header's session check answered) before the scan.
    await page.waitForLoadState('networkidle');
    expect(await axeViolations(page), pathname).toEqual([]);
  } else {
    // The same viewer: the context's cookies.
    const storageState = await page.context().storageState();
    expect(await axeWithoutJavaScript(page.context().browser()!, url, storageState), pathname).toEqual([]);
  }
  expect(problems, pathname).toEqual([]);
}

for (const javaScript of [true, false]) {
  const mode = javaScript ? 'with JavaScript' : 'without JavaScript';

  for (const [pathname, heading] of PUBLIC_PAGES)
    test(`${pathname} renders and is accessible ${mode}`, async ({ browser }) => {
      const context = await contextFor(browser, javaScript);
      const page = await context.newPage();
      const problems = recordPageProblems(page, javaScript);
      await expectPageFine(page, pathname, heading, problems);
      await context.close();
    });

  test(`a member's and a leader's pages render and are accessible ${mode}`, async ({ browser }) => {
    test.slow();
    const context = await contextFor(browser, javaScript, true);
    const page = await context.newPage();
    const problems = recordPageProblems(page, javaScript);
    for (const pathname of MEMBER_PAGES) await expectPageFine(page, pathname, /./, problems);
    // The first conversation and the first post, followed from their lists.
    await page.goto(`${HOSTED_ORIGIN}/conversations`);
    const thread = await page.locator('main a[href^="/conversations/"]').first().getAttribute('href');
    await expectPageFine(page, thread!, /./, problems);
    await page.goto(`${HOSTED_ORIGIN}/feed`);
    const post = await page.locator('main a[href^="/feed/post/"]').first().getAttribute('href');
    await expectPageFine(page, post!, /./, problems);
    await expectPageFine(page, '/events/snow-lake-hike/manage', /./, problems);
    await context.close();
  });

  test(`a members-only page is a gate for an anonymous visitor ${mode}, with sign-in and apply links`, async ({
    browser,
  }) => {
    const context = await contextFor(browser, javaScript);
    const page = await context.newPage();
    for (const pathname of MEMBER_PAGES) {
      const res = await page.goto(`${HOSTED_ORIGIN}${pathname}`);
      expect(res?.status()).toBe(403);
      await expect(page.locator('main a[href^="/sign-in?next="]').first()).toHaveAttribute(
        'href',
        `/sign-in?next=${encodeURIComponent(pathname)}`,
      );
      await expect(page.locator('main a[href="/apply"]')).toHaveCount(1);
      const violations = javaScript
        ? await axeViolations(page)
        : await axeWithoutJavaScript(browser, `${HOSTED_ORIGIN}${pathname}`);
      expect(violations, pathname).toEqual([]);
    }
    await context.close();
  });
}

test('signing in from the gate returns the visitor to the page they asked for', async ({ page }) => {
  await page.goto(`${HOSTED_ORIGIN}/feed`);
  await page.locator('main a[href^="/sign-in?next="]').first().click();
  await page.getByLabel('E-mail').fill(MAYA.email);
  await page.getByLabel('Password').fill(MAYA.password);
  await page.getByRole('button', { name: /^Sign in/ }).click();
  await page.waitForURL(`${HOSTED_ORIGIN}/feed`);
  await expect(page.locator('main h1').first()).not.toHaveText('Members only');
});

test("no script of a hostile community's content runs on any of its pages", async ({ browser }) => {
  const tag = `hostile-${Date.now().toString(36)}`;
  const evil = (what: string) =>
    `${what} <img src=x onerror="window.__pwned='${what}'"><script>window.__pwned='${what}'</script>"'><svg onload="window.__pwned='${what}'">`;
  // The same for the fields of at most 100 characters (a tier's name, an atlas category's).
  const evilShort = (what: string) =>
    `${what} <img src=x onerror="__pwned='${what}'"><script>__pwned='${what}'</script>"'><svg onload="__pwned='${what}'">`;
  const fixture = {
    communities: [
      {
        tag,
        name: evil('community'),
        visibility: 'PUBLIC',
        accessibility: 'OPEN',
        features: ['atlas', 'marketplace'],
        storefrontConfig: { description: evil('description') },
        founder: `${tag}-f`,
        users: [{ email: `${tag}@example.com`, name: evil('founder'), usertag: `${tag}-f`, bio: evil('bio') }],
        memberships: [{ usertag: `${tag}-f`, status: 'ACCEPTED', role: 'founder' }],
        events: [
          {
            slug: 'evil-event',
            name: evil('event'),
            description: evil('event description'),
            startDate: '+3d@18:00',
            format: 'in_person',
            location: { name: evil('place') },
            tiers: [{ name: evilShort('t'), priceCents: 0, currency: 'USD' }],
          },
        ],
        articles: [
          {
            slug: 'evil-article',
            title: evil('article'),
            excerpt: evil('excerpt'),
            content: `<p>${evil('article body')}</p><a href="javascript:window.__pwned='href'">link</a>`,
            status: 'PUBLISHED',
            publishedAt: '-1d@10:00',
          },
        ],
        products: [
          {
            sku: 'evil-sku',
            name: evil('product'),
            description: evil('product description'),
            priceCents: 500,
            currency: 'USD',
            seller: `${tag}-f`,
          },
        ],
        atlas: {
          categories: [{ key: 'c', name: evilShort('c') }],
          hotspots: [{ name: evil('hotspot'), description: evil('spot'), latitude: 1, longitude: 2, category: 'c' }],
        },
      },
    ],
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hostile-')), 'hostile.json');
  fs.writeFileSync(file, JSON.stringify(fixture));
  await svc('import', file);

  const origin = `http://${tag}.localhost:${E2E_PORT}`;
  const pages = [
    '/',
    '/events',
    '/events/evil-event',
    '/marketplace',
    '/marketplace/evil-sku',
    '/members',
    `/members/${tag}-f`,
    '/atlas',
    '/blog',
    '/blog/evil-article',
    '/apply',
    '/nope',
  ];
  for (const javaScript of [true, false]) {
    const context = await browser.newContext({ javaScriptEnabled: javaScript });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    for (const pathname of pages) {
      await page.goto(`${origin}${pathname}`);
      await page.waitForLoadState('load');
      // The text is shown as text: the markup never became elements.
      expect(await page.locator('img[src="x"], svg[onload], script:not([src]):not([type])').count(), pathname).toBe(0);
      if (javaScript)
        expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned), pathname).toBeUndefined();
    }
    expect(dialogs).toEqual([]);
    await context.close();
  }
});
