// Issue 20, item 7 (the robustness points of the widgets on a customer's page) and item 8 (link
// templates), on the hostile-host page (tests/e2e/hostile-host.ts): a polluted Object.prototype,
// one event read by two widgets, checkout return parameters left in the address bar.
import { expect, test } from '@playwright/test';
import { openHostileHost } from './hostile-host.ts';
import { API_ORIGIN, COMMUNITY, items, recordProblems } from './support.ts';

const EVENT = 'big-summit-day';
const FUND = 'trail-fund';

test.use({ locale: 'en-US', timezoneId: 'UTC' });

const ALL_SEVEN = [
  '<svc-header></svc-header>',
  '<svc-events limit="2"></svc-events>',
  '<svc-members limit="2"></svc-members>',
  `<svc-rsvp event="${EVENT}"></svc-rsvp>`,
  `<svc-donate sku="${FUND}"></svc-donate>`,
  `<svc-donate event="${EVENT}" mode="button"></svc-donate>`,
  '<svc-apply></svc-apply>',
  '<svc-footer></svc-footer>',
].join('');

test('with Object.prototype polluted every widget renders, the dropdown and the donate popover open, and nothing throws', async ({
  page,
}) => {
  const problems = recordProblems(page);
  await openHostileHost(page, 'polluted', ALL_SEVEN, { pollutePrototype: true });
  // The pollution really happened, and the descriptor guard gave the page its own functions back.
  expect(
    await page.evaluate(() => ({
      inherited: ({} as Record<string, unknown>).get,
      native: [Object.defineProperty, Object.defineProperties].map((f) => /\[native code\]/.test(String(f))),
    })),
  ).toEqual({ inherited: 'host', native: [true, true] });

  const header = page.locator('svc-header');
  const about = header.getByRole('button', { name: 'About' });
  await about.click();
  const dropdown = header.locator('[part~="dropdown"]');
  await expect(dropdown).toBeVisible();
  // Placed by floating-ui (the popover chunk) under its trigger, not left at the corner.
  await expect
    .poll(async () => {
      const [t, d] = [await about.boundingBox(), await dropdown.boundingBox()];
      return !!t && !!d && d.y >= t.y + t.height && d.y - (t.y + t.height) < 20;
    })
    .toBe(true);

  await expect(items(page.locator('svc-events')).first()).toBeVisible();
  await expect(page.locator('svc-members [part~="name"]').first()).toBeVisible();
  await expect(page.locator('svc-rsvp').getByRole('group', { name: 'Tickets for Big Summit Day' })).toBeVisible();
  await expect(page.locator(`svc-donate[sku="${FUND}"] [part~="chip"]`).first()).toBeVisible();
  await expect(page.locator('svc-apply').getByRole('group', { name: 'Choose a membership' })).toBeVisible();
  await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();

  const donate = page.locator('svc-donate[mode="button"]');
  await donate.getByRole('button', { name: 'Donate', exact: true }).click();
  const dialog = donate.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio').first()).toBeFocused();

  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test('the RSVP and the donate button of one event read that event once between them', async ({ page }) => {
  const eventReads: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === `/v1/communities/${COMMUNITY}/events/${EVENT}` && r.method() === 'GET')
      eventReads.push(r.url());
  });
  await openHostileHost(
    page,
    'one-event-twice',
    `<svc-rsvp event="${EVENT}"></svc-rsvp><svc-donate event="${EVENT}" mode="button"></svc-donate>`,
  );
  await expect(page.locator('svc-rsvp').getByRole('group', { name: 'Tickets for Big Summit Day' })).toBeVisible();
  await expect(page.locator('svc-donate').getByRole('button', { name: 'Donate', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(eventReads).toEqual([`${API_ORIGIN}/v1/communities/${COMMUNITY}/events/${EVENT}`]);
});
