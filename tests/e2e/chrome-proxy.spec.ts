// The chrome proxy in Chromium (docs/chrome-proxy.md): the demo community lists BLOG in
// externalPages, its landingUrl the demo's "customer blog" (/demo/site/ on the platform host), so
// http://demo.localhost/blog is the customer's page inside the community's header and footer. The
// header hydrates same-origin, signs the visitor in and back, and the page is axe clean; a post
// the customer's blog does not have is the built-in article.
import { expect, test, type Page } from '@playwright/test';
import { API_ORIGIN, HOSTED_ORIGIN, axeViolations } from './support.ts';

const MAYA = { email: 'maya@example.com', password: 'demo-password' };

/** Console errors, uncaught exceptions and failed requests on the page. */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    // The anonymous header asks who is signed in; a 401 is its answer, not a problem.
    if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}

test("the customer's blog is served on the community's domain in its chrome, hydrated, its assets loaded, axe clean", async ({
  page,
}) => {
  const problems = recordProblems(page);
  const assets: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/demo/site/assets/') || r.url().includes('/demo/banners/'))
      assets.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${HOSTED_ORIGIN}/blog`);
  await expect(page.getByRole('heading', { name: 'Trail Notes', level: 1 })).toBeVisible();
  const header = page.locator('svc-header');
  await expect(header.locator('[part~="name"]')).toHaveText('Demo Hikers');
  await expect(page.locator('svc-footer [part~="footer"]')).toBeVisible();
  // The header is the first thing in <body>, the footer the last element before the state block.
  expect(await page.evaluate(() => document.body.firstElementChild?.tagName)).toBe('SVC-HEADER');
  await page.waitForFunction(() => customElements.get('svc-header') && customElements.get('svc-footer'));
  // The customer's stylesheet and image came from the customer's host, rewritten to absolute URLs.
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('Georgia');
  expect(assets).toEqual(
    expect.arrayContaining([`200 ${API_ORIGIN}/demo/site/assets/blog.css`, `200 ${API_ORIGIN}/demo/banners/lake.svg`]),
  );
  // A post of the blog is a link on this host; "About" stays on the customer's.
  await expect(page.getByRole('link', { name: 'Spring trail report' })).toHaveAttribute(
    'href',
    '/blog/spring-trail-report',
  );
  await expect(page.getByRole('link', { name: 'About this blog' })).toHaveAttribute(
    'href',
    `${API_ORIGIN}/demo/site/about`,
  );
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test("signing in from the proxied page's header returns the visitor to it, signed in", async ({ page }) => {
  await page.goto(`${HOSTED_ORIGIN}/blog/spring-trail-report`);
  await page.waitForFunction(() => customElements.get('svc-header'));
  await page.locator('svc-header [part~="sign-in"]').click();
  await page.getByLabel('E-mail').fill(MAYA.email);
  await page.getByLabel('Password').fill(MAYA.password);
  await page.getByRole('button', { name: /^Sign in/ }).click();
  await page.waitForURL(`${HOSTED_ORIGIN}/blog/spring-trail-report`);
  await expect(page.getByRole('heading', { name: 'Spring trail report', level: 1 })).toBeVisible();
  // The header is rendered for the member now: no sign-in link, their own menu instead.
  await expect(page.locator('svc-header [part~="sign-in"]')).toHaveCount(0);
  await expect(page.locator('svc-header')).toContainText('Maya');
});

test("a post the customer's blog does not have is the built-in article, in the same chrome", async ({ page }) => {
  const res = await page.goto(`${HOSTED_ORIGIN}/blog/welcome-to-demo-hikers`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['server-timing']).toContain('upstream;dur=');
  await expect(page.getByRole('heading', { name: /Welcome to Demo Hikers/, level: 1 })).toBeVisible();
  await expect(page.locator('svc-header [part~="name"]')).toHaveText('Demo Hikers');
});

test("the customer's contact form posts through the proxy and its answer comes back in the chrome", async ({
  page,
}) => {
  await page.goto(`${HOSTED_ORIGIN}/blog`);
  await page.getByLabel('Your name').fill('Ada');
  await page.getByLabel('Message').fill('See you on the ridge');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('heading', { name: 'Thank you, Ada', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${HOSTED_ORIGIN}/blog/contact`);
  await expect(page.locator('svc-header [part~="name"]')).toHaveText('Demo Hikers');
});

test.describe('with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  test('the proxied page has its header and footer in the first paint, and their links work', async ({ page }) => {
    await page.goto(`${HOSTED_ORIGIN}/blog`);
    await expect(page.getByRole('heading', { name: 'Trail Notes', level: 1 })).toBeVisible();
    const header = page.locator('svc-header');
    await expect(header.locator('[part~="name"]')).toHaveText('Demo Hikers');
    await expect(page.locator('svc-footer [part~="footer"]')).toBeVisible();
    await header.getByRole('link', { name: 'Events' }).click();
    await expect(page).toHaveURL(`${HOSTED_ORIGIN}/events`);
  });
});
