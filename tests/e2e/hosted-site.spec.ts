// The hosted site's widgets (docs/hosted-site.md, "How pages are made"): <svc-header>,
// <svc-footer> and <svc-rsvp> arrive server-rendered in declarative shadow roots, so they are in
// the first paint with or without JavaScript, and hydrate in place without a layout shift; the
// hydrated RSVP books with the sign-in cookie and no publishable key. On the demo community's own
// host (demo.localhost: Chromium resolves *.localhost to loopback).
import { expect, test, type Page } from '@playwright/test';
import {
  HOSTED_ORIGIN,
  cls,
  recordProblems,
  serveTiles,
  uniqueEmail,
  watchLayoutShifts,
  widgetManifest,
} from './support.ts';

const EVENT = 'big-summit-day';
const EVENT_URL = `${HOSTED_ORIGIN}/events/${EVENT}`;
const MAYA = { email: 'maya@example.com', password: 'demo-password' };

test.use({ locale: 'en-US', timezoneId: 'UTC' });

/** Every widget on the page has connected: its chunk ran and hydrated the server's markup. */
async function hydrated(page: Page, tags: string[]): Promise<void> {
  await page.waitForFunction((names) => names.every((n) => customElements.get(n)), tags);
  // connect() runs in the element's upgrade; one more frame for the effects after hydration.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Problems other than the expected 401 of the anonymous session check. */
const unexpected = (problems: string[]) => problems.filter((p) => !/status of 401/.test(p));

async function signIn(page: Page): Promise<void> {
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
}

test('header, footer and RSVP are in the first paint: with the widget scripts blocked they are all there', async ({
  page,
}) => {
  await page.route('**/widgets/**', (route) => route.abort());
  await page.goto(EVENT_URL);
  const header = page.locator('svc-header');
  await expect(header.locator('[part~="name"]')).toHaveText('Demo Hikers');
  await expect(header.getByRole('link', { name: 'Events' })).toBeVisible();
  await expect(header.locator('[part~="sign-in"]')).toBeVisible();
  await expect(page.locator('svc-footer [part~="footer"]')).toBeVisible();
  const rsvp = page.locator('svc-rsvp');
  await expect(rsvp.locator('[part~="tier"]').first()).toBeVisible();
  await expect(rsvp.getByRole('radio', { name: /^Free RSVP\b/ })).toBeVisible();
});

test('the widgets hydrate in place: no layout shift, no console error, only their own chunks', async ({ page }) => {
  const problems = recordProblems(page);
  const files: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/widgets/')) files.push(url.pathname.slice('/widgets/'.length));
  });
  await watchLayoutShifts(page);
  await page.goto(EVENT_URL);
  await hydrated(page, ['svc-header', 'svc-footer', 'svc-rsvp', 'svc-donate']);
  // The donate block (the event takes donations) is the server's too, and works once hydrated.
  const donate = page.locator('svc-donate');
  await expect(donate.getByRole('radio').first()).toBeVisible();
  // Hydrated: choosing a tier now shows its form (the server's markup alone does nothing).
  const rsvp = page.locator('svc-rsvp');
  // With JavaScript the no-JS parts are not shown, and hydration removes them.
  await expect(rsvp.getByRole('link', { name: 'Sign in to RSVP' })).toHaveCount(0);
  await rsvp.getByRole('radio', { name: /^Free RSVP\b/ }).check();
  await expect(rsvp.getByLabel('Your name')).toBeVisible();
  // Hydrated, not rendered over: the server's attributes stay (a render would have removed the
  // form's no-JS action, which the browser's tree does not have).
  await expect(rsvp.locator('form')).toHaveAttribute('action', `/events/${EVENT}/rsvp`);
  // 0: the page paints only once its header is parsed whole (rel=expect, server/site/pages/layout.ts);
  // painted halfway, the header's nav moved when its sign-in link arrived, about 1 run in 7.
  expect(await cls(page)).toBe(0);
  // No CSP violation either: every style the widgets brought is allowed by its hash.
  expect(unexpected(problems)).toEqual([]);

  const { widgets } = widgetManifest();
  const shown = ['header', 'footer', 'rsvp', 'donate'];
  const expected = new Set(['loader.js', ...shown.flatMap((n) => [widgets[n].file, ...widgets[n].imports])]);
  for (const f of files) expect(expected.has(f), f).toBe(true);
  for (const other of ['events', 'apply', 'members']) expect(files).not.toContain(widgets[other].file);
});

test('the member directory hydrates from the first page it came with: filtering works, no read, no shift', async ({
  page,
}) => {
  const problems = recordProblems(page);
  const reads: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.includes('/members')) reads.push(r.url());
  });
  await watchLayoutShifts(page);
  await page.goto(`${HOSTED_ORIGIN}/members`);
  await hydrated(page, ['svc-header', 'svc-footer', 'svc-members']);
  const directory = page.locator('svc-members');
  // The server's cards, then the hydrated filter narrowing them.
  await expect(directory.getByRole('link', { name: /Maya Okafor/ })).toBeVisible();
  // Measured before filtering: the list shrinking is the visitor's doing (and Playwright's typing
  // does not count as recent input for the layout-shift API).
  expect(await cls(page)).toBe(0);
  await directory.getByLabel('Filter members').fill('priya');
  await expect(directory.locator('[part~="count"]')).toHaveText(/^1 matching member\b/);
  expect(reads.filter((u) => u.includes('/v1/'))).toEqual([]);
  expect(unexpected(problems)).toEqual([]);
});

test('the atlas draws every place on a Leaflet map from the configured tiles, and only the atlas loads Leaflet', async ({
  page,
  context,
}) => {
  const tiles = await serveTiles(context);
  const problems = recordProblems(page);
  const leaflet: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/_site/leaflet')) leaflet.push(r.url());
  });
  await page.goto(`${HOSTED_ORIGIN}/events`);
  await hydrated(page, ['svc-header']);
  expect(leaflet).toEqual([]);

  await page.goto(`${HOSTED_ORIGIN}/atlas`);
  const places = await page.locator('main li strong').allTextContents();
  expect(places.length).toBeGreaterThan(1);
  // One marker per place in the list, each titled with its name; the tiles come from SVC_MAP_TILES_URL.
  const markers = page.locator('#atlas-map .leaflet-marker-icon');
  await expect(markers).toHaveCount(places.length);
  expect((await markers.evaluateAll((els) => els.map((e) => e.getAttribute('title')))).sort()).toEqual(
    [...places].sort(),
  );
  await expect.poll(() => tiles.requested.length).toBeGreaterThan(0);
  await expect(page.locator('#atlas-map')).toContainText('© E2E tiles');
  // A marker opens its place's popup, the name as text.
  await markers.first().click();
  await expect(page.locator('.leaflet-popup-content strong')).toHaveText(
    (await markers.first().getAttribute('title'))!,
  );
  expect(leaflet.length).toBeGreaterThan(0);
  // Leaflet's own styles and scripts run under the page's CSP: no violation.
  expect(unexpected(problems)).toEqual([]);
});

test('a page without an RSVP loads only the chrome', async ({ page }) => {
  const files: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/widgets/')) files.push(url.pathname.slice('/widgets/'.length));
  });
  await watchLayoutShifts(page);
  await page.goto(`${HOSTED_ORIGIN}/events`);
  await hydrated(page, ['svc-header', 'svc-footer']);
  const { widgets } = widgetManifest();
  expect(files).toContain(widgets.header.file);
  expect(files).not.toContain(widgets.rsvp.file);
  expect(await cls(page)).toBe(0);
});

test('signed in, the server renders the user menu, and the hydrated RSVP books with the cookie and no key', async ({
  page,
}) => {
  await page.goto(`${HOSTED_ORIGIN}/events`);
  await signIn(page);
  const problems = recordProblems(page);
  await watchLayoutShifts(page);
  await page.goto(EVENT_URL);
  // The signed-in header is the server's too: no "Sign in" flash before the session is known.
  await expect(page.locator('svc-header [part~="user"]')).toContainText('Maya Okafor');
  await hydrated(page, ['svc-header', 'svc-footer', 'svc-rsvp', 'svc-donate']);
  expect(await cls(page)).toBe(0);

  const rsvp = page.locator('svc-rsvp');
  await rsvp.getByRole('radio', { name: /^Free RSVP\b/ }).check();
  await rsvp.getByLabel('Your name').fill('Maya Okafor');
  await rsvp.getByLabel('E-mail').fill(uniqueEmail('hosted-ssr'));
  const emergency = rsvp.getByLabel('Emergency contact (name and phone)');
  if (await emergency.count()) await emergency.fill('Sam Lee, +1 206 555 0100');
  const sent = page.waitForRequest((r) => r.url().endsWith(`/events/${EVENT}/rsvp`) && r.method() === 'POST');
  await rsvp.getByRole('button', { name: 'RSVP' }).click();
  const request = await sent;
  const headers = await request.allHeaders();
  expect(new URL(request.url()).origin).toBe(HOSTED_ORIGIN);
  expect(headers['x-api-key']).toBeUndefined();
  expect(headers.cookie).toMatch(/svc_auth/);
  await expect(rsvp.locator('[part~="qr"]')).toBeVisible();
  expect(unexpected(problems)).toEqual([]);
});

test.describe('with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  test('the chrome and the RSVP are there and usable: links work, the RSVP asks to sign in', async ({ page }) => {
    await page.goto(EVENT_URL);
    const header = page.locator('svc-header');
    await expect(header.locator('[part~="name"]')).toHaveText('Demo Hikers');
    await expect(page.locator('svc-footer [part~="footer"]')).toBeVisible();
    const rsvp = page.locator('svc-rsvp');
    await expect(rsvp.getByRole('radio', { name: /^Free RSVP\b/ })).toBeVisible();
    // Donating is a paid checkout, which needs a script: the form is not offered, a line says why.
    await expect(page.locator('svc-donate [part~="submit"]')).toBeHidden();
    await expect(page.getByText('Donating needs JavaScript.')).toBeVisible();
    await expect(rsvp.getByRole('link', { name: 'Sign in to RSVP' })).toBeVisible();
    await expect(rsvp.getByRole('link', { name: 'Sign in to RSVP' })).toHaveAttribute(
      'href',
      `/sign-in?next=${encodeURIComponent(`/events/${EVENT}`)}`,
    );
    await header.getByRole('link', { name: 'Events' }).click();
    await expect(page).toHaveURL(`${HOSTED_ORIGIN}/events`);
    await expect(page.getByRole('heading', { name: 'Events', level: 1 })).toBeVisible();
    await expect(page.locator('svc-header [part~="sign-in"]')).toBeVisible();
  });

  test('the atlas is its list: every place by category, and the map box says the list has them all', async ({
    page,
    context,
  }) => {
    const tiles = await serveTiles(context);
    await page.goto(`${HOSTED_ORIGIN}/atlas`);
    await expect(page.locator('#atlas-map')).toHaveText('The map needs JavaScript. Every place is in the list below.');
    expect(await page.locator('main li strong').count()).toBeGreaterThan(1);
    expect(await page.locator('main h2').count()).toBeGreaterThan(1);
    expect(tiles.requested).toEqual([]);
  });
});
