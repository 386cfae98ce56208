// The demo "customer site" at 127.0.0.1 pastes the real snippet; the API is localhost.
import { expect, test, type Page, type Request } from '@playwright/test';
import {
  API_ORIGIN,
  DEMO_URL,
  PAGE_ORIGIN,
  apiEvents,
  axeViolations,
  isEventsRequest,
  items,
  names,
  recordProblems,
} from './support.ts';

const main = (page: Page) => page.locator('svc-events:not([featured])');
const featured = (page: Page) => page.locator('svc-events[featured]');

/** The publishable key the page itself was served with. */
async function pageKey(page: Page): Promise<string> {
  const key = await page.locator('script[src$="/widgets/loader.js"]').getAttribute('data-key');
  expect(key).toMatch(/^pk_live_/);
  return key!;
}

test('the demo page shows the upcoming events from the API, cross-origin with the publishable key', async ({
  page,
  request,
}) => {
  const apiCalls: Request[] = [];
  page.on('request', (r) => {
    if (isEventsRequest(r.url())) apiCalls.push(r);
  });
  await page.goto(DEMO_URL);
  const key = await pageKey(page);
  const expected = await apiEvents(request, key, { limit: '6', upcoming: 'true' });
  expect(expected.events).toHaveLength(6);

  await expect(names(main(page))).toHaveText(expected.events.map((e) => e.name));
  expect(new URL(page.url()).origin).toBe(PAGE_ORIGIN);
  expect(apiCalls[0].url().startsWith(API_ORIGIN)).toBe(true);
  expect(await apiCalls[0].allHeaders()).toMatchObject({ 'x-api-key': key, origin: PAGE_ORIGIN });

  // Each card: start time, format badge, place and price summary, all from the API's data.
  const cards = items(main(page));
  for (const [i, event] of expected.events.entries()) {
    const card = cards.nth(i);
    await expect(card.locator('time')).toHaveAttribute('datetime', event.startDate);
    await expect(card.locator('[part~="badge"]')).toHaveText(
      { online: 'Online', in_person: 'In person', hybrid: 'Hybrid' }[event.format],
    );
    const place = event.location?.name || event.location?.city;
    if (place) await expect(card.locator('[part~="location"]')).toHaveText(place);
    const onSale = event.tiers.filter((t) => t.isActive);
    const paid = onSale.filter((t) => t.priceCents > 0).sort((a, b) => a.priceCents - b.priceCents);
    const price = card.locator('[part~="price"]');
    if (onSale.length === 0) await expect(price).toHaveCount(0);
    else if (paid.length === 0) await expect(price).toHaveText('Free');
    else
      await expect(price).toHaveText(
        `From ${new Intl.NumberFormat('en-US', { style: 'currency', currency: paid[0].currency }).format(paid[0].priceCents / 100)}`,
      );
  }
  // The seed has both kinds, so both branches above ran.
  await expect(cards.locator('[part~="price"]', { hasText: 'Free' }).first()).toBeVisible();
  await expect(cards.locator('[part~="price"]', { hasText: 'From' }).first()).toBeVisible();
});

test.describe('a viewer in Tokyo', () => {
  test.use({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });

  test('sees dates in their own time zone and locale', async ({ page }) => {
    await page.goto(DEMO_URL);
    const time = items(main(page)).first().locator('time');
    const iso = (await time.getAttribute('datetime'))!;
    const expected = new Intl.DateTimeFormat('en-US', {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone: 'Asia/Tokyo',
    }).format(new Date(iso));
    await expect(time).toHaveText(expected);
    await expect(time).toContainText('GMT+9');
  });
});

test('the demo page loads without console errors, exceptions or failed requests', async ({ page }) => {
  const problems = recordProblems(page);
  await page.goto(DEMO_URL);
  await expect(items(main(page))).toHaveCount(6);
  await expect(items(featured(page))).toHaveCount(1);
  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test('the demo page, widgets included, has no axe violations', async ({ page }) => {
  await page.goto(DEMO_URL);
  await expect(items(main(page))).toHaveCount(6);
  await expect(items(featured(page))).toHaveCount(1);
  // axe-core walks open shadow roots, so the widgets' DOM is part of the scan.
  const violations = await axeViolations(page);
  const shadowNodes = await page.evaluate(
    () => document.querySelector('svc-events')!.shadowRoot!.querySelectorAll('*').length,
  );
  expect(shadowNodes).toBeGreaterThan(10);
  expect(violations).toEqual([]);
});

test('the featured attribute shows only the featured event', async ({ page, request }) => {
  await page.goto(DEMO_URL);
  const { events } = await apiEvents(request, await pageKey(page), { featured: 'true', upcoming: 'true', limit: '1' });
  expect(events).toHaveLength(1);
  expect(events[0].featured).toBe(true);
  await expect(names(featured(page))).toHaveText([events[0].name]);
  await expect(featured(page).getByRole('button', { name: /load more/i })).toHaveCount(0);
});

test('"Load more" appends the next page by cursor and ends on the last page', async ({ page, request }) => {
  await page.goto(DEMO_URL);
  const key = await pageKey(page);
  const first = await apiEvents(request, key, { limit: '6', upcoming: 'true' });
  expect(first.nextCursor).toBeTruthy();
  const second = await apiEvents(request, key, { limit: '6', upcoming: 'true', cursor: first.nextCursor! });
  await expect(items(main(page))).toHaveCount(6);

  const more = main(page).getByRole('button', { name: 'Load more events' });
  const nextRequest = page.waitForRequest((r) => isEventsRequest(r.url()) && r.url().includes('cursor='));
  await more.click();
  const url = new URL((await nextRequest).url());
  expect(url.searchParams.get('cursor')).toBe(first.nextCursor);
  expect(url.searchParams.has('offset')).toBe(false);

  await expect(names(main(page))).toHaveText([...first.events, ...second.events].map((e) => e.name));
  // Focus lands on the first new event, not back at the top of the page.
  await expect(names(main(page)).nth(6)).toBeFocused();

  // Click through to the last page: the button goes away once there is no next cursor.
  let total = first.events.length + second.events.length;
  let cursor = second.nextCursor;
  while (cursor) {
    const page3 = await apiEvents(request, key, { limit: '6', upcoming: 'true', cursor });
    total += page3.events.length;
    cursor = page3.nextCursor;
    await more.click();
    await expect(items(main(page))).toHaveCount(total);
  }
  await expect(more).toHaveCount(0);
});

test('choosing an event emits a cancelable svc:events:select the host page can take over', async ({ page }) => {
  await page.goto(DEMO_URL);
  await page.evaluate(() => {
    const w = window as unknown as { selected: unknown[] };
    w.selected = [];
    // On document: the event must bubble out of the shadow root (composed).
    document.addEventListener('svc:events:select', (e) => {
      w.selected.push((e as CustomEvent).detail);
      e.preventDefault();
    });
  });
  const slug = await items(main(page)).first().getAttribute('data-slug');
  await names(main(page)).first().click();
  await names(main(page)).nth(1).focus();
  await page.keyboard.press('Enter');
  const secondSlug = await items(main(page)).nth(1).getAttribute('data-slug');

  const selected = await page.evaluate(
    () => (window as unknown as { selected: { slug: string; id: string }[] }).selected,
  );
  expect(selected.map((s) => s.slug)).toEqual([slug, secondSlug]);
  expect(selected[0].id).toMatch(/^[0-9a-f-]{36}$/);
  expect(page.url()).toBe(DEMO_URL);
});

test("an event nobody intercepts opens on the community's site", async ({ page }) => {
  await page.goto(DEMO_URL);
  const slug = await items(main(page)).first().getAttribute('data-slug');
  const href = await names(main(page)).first().getAttribute('href');
  // The community's hosted site (demo.localhost in development); answered here so the test
  // checks where the link goes, not what that page renders.
  await page.route(href!, (route) => route.fulfill({ contentType: 'text/html', body: '<title>event</title>' }));
  expect(href).toBe(`http://demo.localhost:3100/events/${slug}`);
  await items(main(page))
    .first()
    .click({ position: { x: 20, y: 100 } });
  await page.waitForURL(href!);
});
