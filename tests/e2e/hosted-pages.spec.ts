// Every page of the hosted site (docs/hosted-site.md) in Chromium, with JavaScript on and off:
// it renders its heading, axe finds nothing, and nothing fails in the console. Then the gate as a
// visitor meets it (members-only pages send them to sign in and back), the pages only members and
// leaders open, and a community whose every user-written field is hostile: no script of theirs runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { E2E_PORT, HOSTED_ORIGIN, axeViolations, recordProblems, svc } from './support.ts';

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

async function contextFor(browser: Browser, javaScript: boolean, signedIn = false): Promise<BrowserContext> {
  if (!signedIn) return browser.newContext({ javaScriptEnabled: javaScript });
  // Signed in from a page of the site (the cookie is the site's, host-only), then carried over.
  const signer = await browser.newContext();
  const page = await signer.newPage();
  await page.goto(`${HOSTED_ORIGIN}/sign-in`);
  const status = await page.evaluate(async (who) => {
    const res = await fetch('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(who),
    });
    return res.status;
  }, MAYA);
  expect(status).toBe(200);
  const storageState = await signer.storageState();
  await signer.close();
  return browser.newContext({ javaScriptEnabled: javaScript, storageState });
}

/**
 * axe runs in the page, so with JavaScript off it cannot run there. What a visitor without
 * JavaScript gets is the server's HTML (declarative shadow roots included) with no script run: a
 * page whose scripts are all refused is that DOM, and axe checks it there.
 */
async function withoutScripts(browser: Browser, context: BrowserContext): Promise<Page> {
  const scanner = await browser.newContext({ storageState: await context.storageState() });
  await scanner.route(/\/(widgets|_site)\//, (route) => route.abort());
  return scanner.newPage();
}

async function expectPageFine(
  page: Page,
  pathname: string,
  heading: RegExp,
  problems: string[],
  scanner: Page | null,
): Promise<void> {
  const res = await page.goto(`${HOSTED_ORIGIN}${pathname}`);
  expect(res?.status(), pathname).toBe(200);
  await expect(page.locator('main h1').first(), pathname).toHaveText(heading);
  if (scanner) await scanner.goto(`${HOSTED_ORIGIN}${pathname}`);
  expect(await axeViolations(scanner ?? page), pathname).toEqual([]);
  expect(problems, pathname).toEqual([]);
}

for (const javaScript of [true, false]) {
  const mode = javaScript ? 'with JavaScript' : 'without JavaScript';

  test(`every public page renders and is accessible ${mode}`, async ({ browser }) => {
    const context = await contextFor(browser, javaScript);
    const page = await context.newPage();
    const scanner = javaScript ? null : await withoutScripts(browser, context);
    const problems = javaScript ? recordProblems(page) : [];
    for (const [pathname, heading] of PUBLIC_PAGES) await expectPageFine(page, pathname, heading, problems, scanner);
    await context.close();
  });

  test(`a member's and a leader's pages render and are accessible ${mode}`, async ({ browser }) => {
    const context = await contextFor(browser, javaScript, true);
    const page = await context.newPage();
    const scanner = javaScript ? null : await withoutScripts(browser, context);
    const problems = javaScript ? recordProblems(page) : [];
    for (const pathname of MEMBER_PAGES) await expectPageFine(page, pathname, /./, problems, scanner);
    // The first conversation and the first post, followed from their lists.
    await page.goto(`${HOSTED_ORIGIN}/conversations`);
    const thread = await page.locator('main a[href^="/conversations/"]').first().getAttribute('href');
    await expectPageFine(page, thread!, /./, problems, scanner);
    await page.goto(`${HOSTED_ORIGIN}/feed`);
    const post = await page.locator('main a[href^="/feed/post/"]').first().getAttribute('href');
    await expectPageFine(page, post!, /./, problems, scanner);
    await expectPageFine(page, '/events/snow-lake-hike/manage', /./, problems, scanner);
    await context.close();
  });

  test(`a members-only page is a gate for an anonymous visitor ${mode}, with sign-in and apply links`, async ({
    browser,
  }) => {
    const context = await contextFor(browser, javaScript);
    const page = await context.newPage();
    const scanner = javaScript ? null : await withoutScripts(browser, context);
    for (const pathname of MEMBER_PAGES) {
      const res = await page.goto(`${HOSTED_ORIGIN}${pathname}`);
      expect(res?.status()).toBe(403);
      await expect(page.locator('main a[href^="/sign-in?next="]').first()).toHaveAttribute(
        'href',
        `/sign-in?next=${encodeURIComponent(pathname)}`,
      );
      await expect(page.locator('main a[href="/apply"]')).toHaveCount(1);
      if (scanner) await scanner.goto(`${HOSTED_ORIGIN}${pathname}`);
      expect(await axeViolations(scanner ?? page)).toEqual([]);
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
  // Under 100 characters, the longest names take: <script>, an onerror and an onload, quotes to break out.
  const evil = (what: string) =>
    `${what.slice(0, 8)}"'><img src=x onerror="__pwned=1"><script>__pwned=2</script><svg onload="__pwned=3">`;
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
            tiers: [{ name: evil('tier'), priceCents: 0, currency: 'USD' }],
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
          categories: [{ key: 'c', name: evil('category') }],
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
