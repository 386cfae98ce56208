// <svc-donate> on the demo page (a customer's site at 127.0.0.1: publishable key, the donate
// widget action on the platform at localhost) and on an event's page of the hosted site
// (server-rendered, hydrated, same-origin, keyless, the sign-in cookie naming the donor). Donations go through the server's local checkout and back;
// the summary line is checked against the API's summary.
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import {
  API_ORIGIN,
  COMMUNITY,
  DEMO_URL,
  HOSTED_ORIGIN,
  PAGE_ORIGIN,
  axeViolations,
  publishableKey,
  recordProblems,
  uniqueEmail,
  usd,
} from './support.ts';

// demo/fixture.json: trail-fund is pay-what-you-want from $5.00 (500), big-summit-day fixed at
// $5 / $10 / $25, heather-lake-cleanup pay-what-you-want from $1.00.
const FUND = 'trail-fund';
const EVENT = 'big-summit-day';
const DONATE_FUND = `/api/actions/${COMMUNITY}/products/${FUND}/donate`;
const HOSTED_EVENT_URL = `${HOSTED_ORIGIN}/events/heather-lake-cleanup`;

const fund = (page: Page) => page.locator(`svc-donate[sku="${FUND}"]`);
const compact = (page: Page) => page.locator('svc-donate[mode="button"]');
const chip = (w: Locator, label: string) => w.getByRole('radio', { name: label, exact: true });

interface Summary {
  total: number;
  count: number;
  currency: string | null;
}
async function apiSummary(request: APIRequestContext, key: string, path = `products/${FUND}`): Promise<Summary> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${COMMUNITY}/${path}/donations/summary`, {
    headers: { 'X-API-Key': key },
  });
  expect(res.status()).toBe(200);
  expect(res.headers()['cache-control']).toBe('no-store');
  return (await res.json()) as Summary;
}
/** Placed by floating-ui right under its button, or right over it when flipped for lack of room. */
function besideIts(button: { y: number; height: number } | null, panel: { y: number; height: number } | null): boolean {
  if (!button || !panel) return false;
  const below = panel.y - (button.y + button.height);
  const above = button.y - (panel.y + panel.height);
  return (below >= 0 && below < 20) || (above >= 0 && above < 20);
}
const supporters = (s: Summary) => `${s.count} ${s.count === 1 ? 'supporter' : 'supporters'} raised ${usd(s.total)}`;

test.use({ locale: 'en-US', timezoneId: 'UTC' });

test('choose a chip, give an e-mail, pay on the local checkout, come back to a thank-you; the summary counts the gift', async ({
  page,
  request,
}) => {
  const problems = recordProblems(page);
  const email = uniqueEmail('donor');
  const key = await publishableKey(request);
  const before = await apiSummary(request, key);
  const checkouts: unknown[] = [];
  await page.exposeBinding('recordCheckout', (_source, detail: unknown) => {
    checkouts.push(detail);
  });
  await page.addInitScript(() => {
    document.addEventListener(
      'svc:donate:checkout',
      (e) => void (window as unknown as { recordCheckout(d: unknown): void }).recordCheckout((e as CustomEvent).detail),
    );
  });
  await page.goto(DEMO_URL);
  const w = fund(page);

  // The config's label names the chips; pay-what-you-want suggests round amounts from the minimum.
  const group = w.getByRole('group', { name: 'Give to the trail fund' });
  await expect(group.getByRole('radio')).toHaveCount(4);
  await expect(w.locator('[part~="chip"]')).toHaveText(['$5', '$10', '$25', '$50']);
  await expect(w.getByLabel('Other amount (USD)')).toHaveAccessibleDescription('Minimum $5.00');
  await expect(w.locator('[part~="summary"]')).toHaveText(before.count ? supporters(before) : '');

  await chip(w, '$10').check();
  const emailInput = w.getByLabel('E-mail');
  await expect(emailInput).toHaveAttribute('type', 'email');
  await expect(emailInput).toHaveAttribute('autocomplete', 'email');
  await emailInput.fill(email);
  const sent = page.waitForRequest((r) => r.url() === `${API_ORIGIN}${DONATE_FUND}` && r.method() === 'POST');
  await w.getByRole('button', { name: 'Donate $10.00' }).click();
  const request_ = await sent;
  expect(await request_.allHeaders()).toMatchObject({ 'x-api-key': key, origin: PAGE_ORIGIN });
  expect(request_.postDataJSON()).toEqual({
    donation: { amount: 1000 },
    customer: { email },
    successUrl: `${DEMO_URL}?svc_donate=success&session={CHECKOUT_SESSION_ID}&svc_sku=${FUND}`,
    cancelUrl: `${DEMO_URL}?svc_donate=cancelled&svc_sku=${FUND}`,
  });

  // The server's local checkout: the config's label as the line, the donor's e-mail for the receipt.
  await page.waitForURL(/\/checkout\/cs_local_[0-9a-f]{32}$/);
  expect(checkouts).toEqual([
    { sessionId: expect.stringMatching(/^cs_local_/), checkoutUrl: page.url(), amount: 1000, currency: 'USD' },
  ]);
  await expect(page.getByRole('table', { name: 'What you are paying for' })).toContainText('Give to the trail fund');
  await expect(page.getByText(`Receipt to ${email}`)).toBeVisible();
  // The widget takes the return's parameters out of the address bar once read: the URL the
  // browser came back to is the request's.
  const back = page.waitForRequest((r) => r.isNavigationRequest() && r.url().includes('svc_donate=success'));
  await page.getByRole('button', { name: 'Pay $10.00' }).click();

  const backUrl = new URL((await back).url());
  expect(backUrl.origin).toBe(PAGE_ORIGIN);
  expect(backUrl.searchParams.get('session')).toBe((checkouts[0] as { sessionId: string }).sessionId);
  const notice = fund(page).locator('[part~="notice"]');
  await expect(notice).toHaveText('Thank you! Your payment is being confirmed; your gift will show here once it is.');
  await expect(notice).toBeFocused();
  // Only the widget that opened the checkout says so: the event's donate button does not.
  await expect(compact(page).locator('[part~="notice"]')).toHaveCount(0);

  const after = { total: before.total + 1000, count: before.count + 1, currency: 'USD' };
  expect(await apiSummary(request, key)).toEqual(after);
  const line = fund(page).locator('[part~="summary"]');
  await expect(line).toHaveText(supporters(after));
  await expect(line).toHaveAttribute('aria-live', 'polite');
  expect(page.url()).toBe(DEMO_URL);
  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test('cancelling on the checkout page comes back to say nothing was charged; the summary is unchanged', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  const before = await apiSummary(request, key, `events/${EVENT}`);
  await page.goto(DEMO_URL);
  const b = compact(page);
  await b.getByRole('button', { name: 'Donate', exact: true }).click();
  await chip(b, '$25').check();
  await b.getByLabel('E-mail').fill(uniqueEmail('cancel'));
  await b.getByRole('button', { name: 'Donate $25.00' }).click();
  await page.waitForURL(/\/checkout\/cs_local_/);
  await expect(page.getByTestId('total')).toHaveText('$25.00');
  const back = page.waitForRequest((r) => r.isNavigationRequest() && r.url().includes('svc_donate=cancelled'));
  await page.getByRole('button', { name: 'Cancel' }).click();
  const backUrl = new URL((await back).url());
  expect(backUrl.origin).toBe(PAGE_ORIGIN);
  expect(backUrl.searchParams.get('svc_event')).toBe(EVENT);
  await expect(compact(page).locator('[part~="notice"]')).toHaveText('Donation cancelled: nothing was charged.');
  await expect(fund(page).locator('[part~="notice"]')).toHaveCount(0);
  expect(await apiSummary(request, key, `events/${EVENT}`)).toEqual(before);
});

test('a custom amount below the minimum is refused before anything is sent, with the message next to the input', async ({
  page,
}) => {
  const actions: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/actions/')) actions.push(r.url());
  });
  await page.goto(DEMO_URL);
  const w = fund(page);
  const custom = w.getByLabel('Other amount (USD)');
  await chip(w, '$25').check();
  // A typed amount replaces the chip.
  await custom.fill('4.99');
  await expect(chip(w, '$25')).not.toBeChecked();
  await w.getByLabel('E-mail').fill(uniqueEmail('low'));
  // Not an amount the server takes, so the button names none.
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(custom).toBeFocused();
  await expect(custom).toHaveAttribute('aria-invalid', 'true');
  await expect(custom).toHaveAccessibleDescription('Minimum $5.00 Give at least $5.00.');
  await expect(w.locator('[part~="custom"] [part~="field-error"]')).toHaveText('Give at least $5.00.');

  // Not a number, then too many decimals: each said in words; typing clears the message.
  await custom.fill('five');
  await expect(custom).not.toHaveAttribute('aria-invalid', 'true');
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(w.locator('[part~="field-error"]')).toHaveText('Enter an amount like $10.00.');
  await custom.fill('5.005');
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(w.locator('[part~="field-error"]')).toHaveText('Use at most 2 decimals.');
  // The amount is read as a decimal string: 1,234.5 is exactly $1,234.50.
  await custom.fill('1,234.5');
  await expect(w.getByRole('button', { name: 'Donate $1,234.50' })).toBeVisible();
  expect(actions).toEqual([]);

  // An address the browser-side check lets through but the server refuses lands on the e-mail field.
  await w.getByLabel('E-mail').fill('ana@example.c');
  const answer = page.waitForResponse((r) => r.url() === `${API_ORIGIN}${DONATE_FUND}`);
  await w.getByRole('button', { name: 'Donate $1,234.50' }).click();
  const res = await answer;
  expect(res.status()).toBe(400);
  expect(await res.json()).toMatchObject({ extras: { field: 'customer.email' } });
  const email = w.getByLabel('E-mail');
  await expect(email).toBeFocused();
  await expect(email).toHaveAccessibleDescription('For your receipt. Enter an e-mail address like name@example.com.');
});

test('keyboard: Tab reaches the chips, the arrows move and choose, and the focused chip has a visible ring', async ({
  page,
}) => {
  await page.goto(DEMO_URL);
  const w = fund(page);
  await w.getByLabel('Other amount (USD)').click();
  // Back from the custom amount into the group: with nothing chosen, the last chip takes focus.
  await page.keyboard.press('Shift+Tab');
  await expect(chip(w, '$50')).toBeFocused();
  expect(
    await w.locator('[part~="chip"]', { hasText: '$50' }).evaluate((label) => getComputedStyle(label).outlineStyle),
  ).toBe('solid');
  await page.keyboard.press('ArrowLeft');
  await expect(chip(w, '$25')).toBeChecked();
  await expect(chip(w, '$25')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(chip(w, '$10')).toBeChecked();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(chip(w, '$50')).toBeChecked();
  await expect(w.getByRole('button', { name: 'Donate $50.00' })).toBeVisible();
  // Tab leaves the group for the custom amount, then the minimum's info button.
  await page.keyboard.press('Tab');
  await expect(w.getByLabel('Other amount (USD)')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(w.getByRole('button', { name: 'Why is there a minimum?' })).toBeFocused();
});

test('the minimum is explained in a popover next to the custom amount; Escape closes it', async ({ page }) => {
  await page.goto(DEMO_URL);
  const w = fund(page);
  const info = w.getByRole('button', { name: 'Why is there a minimum?' });
  await expect(info).toHaveAttribute('aria-expanded', 'false');
  await info.click();
  await expect(info).toHaveAttribute('aria-expanded', 'true');
  const panel = w.locator('[part~="info-panel"]');
  await expect(panel).toBeVisible();
  await expect(panel).toContainText('Gifts here start at $5.00.');
  // Placed by floating-ui next to its button, not left at the viewport's corner.
  // Polled: floating-ui arrives with the first opening, and places the panel when it does.
  await expect.poll(async () => besideIts(await info.boundingBox(), await panel.boundingBox())).toBe(true);
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(info).toBeFocused();
});

test('mode="button": a compact Donate button opens the form in a popover, focus moves in, Escape closes and returns focus', async ({
  page,
}) => {
  await page.goto(DEMO_URL);
  const b = compact(page);
  const button = b.getByRole('button', { name: 'Donate', exact: true });
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await expect(b.getByRole('radio')).toHaveCount(0);

  await button.focus();
  await page.keyboard.press('Enter');
  const dialog = b.getByRole('dialog', { name: 'Add a gift for the trail fund' });
  await expect(dialog).toBeVisible();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  // Fixed mode: the listed amounts only, no custom amount.
  await expect(dialog.locator('[part~="chip"]')).toHaveText(['$5', '$10', '$25']);
  await expect(dialog.getByLabel(/Other amount/)).toHaveCount(0);
  await expect(chip(b, '$5')).toBeFocused();
  await expect.poll(async () => besideIts(await button.boundingBox(), await dialog.boundingBox())).toBe(true);

  await page.keyboard.press('ArrowRight');
  await expect(chip(b, '$10')).toBeChecked();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  // Opened again, the choice is still there; a click elsewhere closes it without taking focus.
  await button.click();
  await expect(chip(b, '$10')).toBeChecked();
  await expect(chip(b, '$10')).toBeFocused();
  await page.locator('h1').click();
  await expect(dialog).toBeHidden();
  await expect(button).not.toBeFocused();
});

test('the demo page with the donate widgets has no axe violations: the form, its errors, both popovers', async ({
  page,
}) => {
  await page.goto(DEMO_URL);
  const w = fund(page);
  await expect(chip(w, '$5')).toBeVisible();
  await expect(compact(page).getByRole('button', { name: 'Donate', exact: true })).toBeVisible();
  const scan = async () => expect(await axeViolations(page, 'svc-donate')).toEqual([]);
  await scan();
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(w.locator('[part~="field-error"]').first()).toBeVisible();
  await scan();
  await w.getByRole('button', { name: 'Why is there a minimum?' }).click();
  await expect(w.locator('[part~="info-panel"]')).toBeVisible();
  await scan();
  await compact(page).getByRole('button', { name: 'Donate', exact: true }).click();
  await expect(compact(page).getByRole('dialog')).toBeVisible();
  await scan();
  expect(await axeViolations(page)).toEqual([]);
});

test('on the hosted site the donation is same-origin and keyless, and a signed-in member gives as themselves', async ({
  page,
}) => {
  // The event's page: <svc-donate event> is server-rendered into it (the event takes donations) and hydrated.
  await page.goto(HOSTED_EVENT_URL);
  const w = page.locator('svc-donate[event="heather-lake-cleanup"]');
  await expect(w.getByLabel('Other amount (USD)')).toHaveAccessibleDescription('Minimum $1.00');
  await expect(w.getByLabel('E-mail')).toBeVisible();

  const status = await page.evaluate(async () => {
    const res = await fetch('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'maya@example.com', password: 'demo-password' }),
    });
    await res.text();
    if (res.ok) document.dispatchEvent(new CustomEvent('svc:session:changed'));
    return res.status;
  });
  expect(status).toBe(200);
  await expect(w.locator('[part~="donor"]')).toHaveText('Donating as Maya Okafor.');
  await expect(w.getByLabel('E-mail')).toHaveCount(0);

  await w.getByLabel('Other amount (USD)').fill('2,50');
  const sent = page.waitForRequest(
    (r) => r.url().endsWith(`/api/actions/${COMMUNITY}/events/heather-lake-cleanup/donate`) && r.method() === 'POST',
  );
  await w.getByRole('button', { name: 'Donate $2.50' }).click();
  const request = await sent;
  expect(new URL(request.url()).origin).toBe(HOSTED_ORIGIN);
  const headers = await request.allHeaders();
  expect(headers['x-api-key']).toBeUndefined();
  expect(headers.cookie).toContain('svc_auth_demo=');
  expect(request.postDataJSON()).toEqual({
    donation: { amount: 250 },
    successUrl: `${HOSTED_EVENT_URL}?svc_donate=success&session={CHECKOUT_SESSION_ID}&svc_event=heather-lake-cleanup`,
    cancelUrl: `${HOSTED_EVENT_URL}?svc_donate=cancelled&svc_event=heather-lake-cleanup`,
  });
  await page.waitForURL(/\/checkout\/cs_local_/);
  await expect(page.getByText('Receipt to maya@example.com')).toBeVisible();
});

test('on the hosted site a chip chosen and an e-mail typed before the widget hydrates are what it sends', async ({
  page,
}) => {
  const email = uniqueEmail('early-donor');
  // The widget's chunk is held back: the server's form is on screen, and the visitor fills it in.
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/widgets\/donate-[^/]+\.js$/, async (route) => {
    await arrived;
    await route.continue();
  });
  await page.goto(HOSTED_EVENT_URL, { waitUntil: 'domcontentloaded' });
  const w = page.locator('svc-donate[event="heather-lake-cleanup"]');
  const second = w.locator('[part~="chip"]').nth(1);
  const label = (await second.textContent())!.trim();
  await second.locator('input').check();
  await w.getByLabel('E-mail').fill(email);

  release();
  await page.waitForFunction(() => customElements.get('svc-donate'));
  // Hydrated: the chip still chosen, the e-mail kept, and both are what the donation sends.
  await expect(chip(w, label)).toBeChecked();
  await expect(w.getByLabel('E-mail')).toHaveValue(email);
  const amount = Math.round(Number(label.replace(/[^0-9.]/g, '')) * 100);
  const sent = page.waitForRequest(
    (r) => r.url().endsWith(`/api/actions/${COMMUNITY}/events/heather-lake-cleanup/donate`) && r.method() === 'POST',
  );
  await w.getByRole('button', { name: `Donate ${usd(amount)}` }).click();
  expect((await sent).postDataJSON()).toMatchObject({ donation: { amount }, customer: { email } });
  await page.waitForURL(/\/checkout\/cs_local_/);
});
