// <svc-rsvp> on the demo page (a customer's site at 127.0.0.1: publishable key, widget actions on
// the platform at localhost, the page's Origin listed in the demo's embed origins) and on the
// event's page of the hosted site (server-rendered, hydrated, same-origin, keyless). Free RSVP with the QR decoded and verified by the server;
// paid checkout through the local checkout page and back; the ticket e-mails read from the
// server's outbox with the real CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Tier } from '../../contract/resources.ts';
import {
  API_ORIGIN,
  COMMUNITY,
  DEMO_URL,
  HOSTED_ORIGIN,
  PAGE_ORIGIN,
  axeViolations,
  openCustomerPage,
  publishableKey,
  recordProblems,
  snippet,
  svc,
  uniqueEmail,
} from './support.ts';

const EVENT = 'big-summit-day';
const RSVP_PATH = `/api/actions/${COMMUNITY}/events/${EVENT}/rsvp`;
const CHECKOUT_PATH = `/api/actions/${COMMUNITY}/events/${EVENT}/checkout`;

const widget = (page: Page) => page.locator('svc-rsvp').first();
const tierRadio = (w: Locator, name: string) => w.getByRole('radio', { name: new RegExp(`^${name}\\b`) });
const tierRow = (w: Locator, name: string) => w.locator('[part~="tier"]', { hasText: name });

interface Mail {
  to: string;
  subject: string;
  text: string;
  attachments: { filename: string; contentType: string }[];
}
const outbox = async (to: string) => JSON.parse(await svc('mail', 'list', '--to', to, '--json')) as Mail[];

async function apiTiers(request: APIRequestContext, key: string, community = COMMUNITY, slug = EVENT): Promise<Tier[]> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${community}/events/${slug}/tiers`, {
    headers: { 'X-API-Key': key },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as Tier[];
}

function decodeQr(png: Buffer): string {
  const image = PNG.sync.read(png);
  const found = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (!found) throw new Error('not a readable QR code');
  return found.data;
}

/** Fills the free tier's form on the demo event (its required emergency contact included). */
async function fillFreeForm(w: Locator, email: string) {
  await w.getByLabel('Your name').fill('Ana Lima');
  await w.getByLabel('E-mail').fill(email);
  await w.getByLabel('Emergency contact (name and phone)').fill('Sam Lee, +1 206 555 0100');
}

test.use({ locale: 'en-US', timezoneId: 'UTC' });

test('shows every tier with its price and what is left; sold-out and closed tiers cannot be chosen', async ({
  page,
  request,
}) => {
  const problems = recordProblems(page);
  await page.goto(DEMO_URL);
  const key = await publishableKey(request);
  const w = widget(page);
  await expect(w.getByRole('group', { name: 'Tickets for Big Summit Day' })).toBeVisible();
  const tiers = await apiTiers(request, key);
  await expect(w.locator('[part~="tier-name"]')).toHaveText(tiers.map((t) => t.name));
  await expect(w.locator('[part~="tier-price"]')).toHaveText(
    tiers.map((t) => (t.priceCents === 0 ? 'Free' : `$${(t.priceCents / 100).toFixed(2)}`)),
  );

  // Early bird is sold out in the seed, and the bus is closed (inactive): shown, never choosable.
  await expect(tierRow(w, 'Early bird')).toContainText('Sold out');
  await expect(tierRadio(w, 'Early bird')).toBeDisabled();
  await expect(tierRow(w, 'Bus seat from Seattle')).toContainText('Closed');
  await expect(tierRadio(w, 'Bus seat from Seattle')).toBeDisabled();
  await tierRow(w, 'Early bird').click({ force: true });
  await expect(tierRadio(w, 'Early bird')).not.toBeChecked();
  await expect(w.getByRole('button', { name: /RSVP|Continue/ })).toHaveCount(0);

  // Open tiers say how many seats are left.
  await expect(tierRow(w, 'Free RSVP')).toContainText(/\d+ left/);
  await expect(tierRadio(w, 'Summit supporter')).toBeEnabled();
  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test("prices in each tier's currency, exact seats left, nothing for unlimited; past and unknown events say so", async ({
  page,
}) => {
  // A community of its own, imported through the real CLI, so the numbers are exactly as set here.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rsvp-e2e-'));
  const file = path.join(dir, 'rsvp.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      communities: [
        {
          tag: 'rsvp-club',
          name: 'RSVP Club',
          visibility: 'PUBLIC',
          accessibility: 'OPEN',
          founder: 'rita',
          embedOrigins: [PAGE_ORIGIN],
          users: [{ email: 'rita@example.com', name: 'Rita Ruiz', usertag: 'rita' }],
          events: [
            {
              slug: 'tea-tasting',
              name: 'Tea Tasting',
              startDate: '+3d@18:00',
              endDate: '+3d@20:00',
              format: 'in_person',
              tiers: [
                { name: 'Standing', priceCents: 0, currency: 'USD', capacity: 5, sold: 2 },
                { name: 'Tatami seat', priceCents: 1200, currency: 'JPY' },
                { name: 'Front row', priceCents: 2500, currency: 'EUR', capacity: 4, sold: 4 },
                { name: 'Last seats', priceCents: 900, currency: 'USD', capacity: 6, sold: 3 },
              ],
            },
            {
              slug: 'last-year',
              name: 'Last Year',
              startDate: '-30d@18:00',
              endDate: '-30d@20:00',
              format: 'online',
              tiers: [{ name: 'Free', priceCents: 0, currency: 'USD' }],
            },
          ],
        },
      ],
    }),
  );
  await svc('import', file);
  fs.rmSync(dir, { recursive: true, force: true });
  const key = (
    (await (await page.request.get(`${API_ORIGIN}/v1/communities/rsvp-club/publishable-key`)).json()) as {
      publishableKey: string;
    }
  ).publishableKey;

  await openCustomerPage(
    page,
    'rsvp-tiers',
    [
      '<svc-rsvp event="tea-tasting"></svc-rsvp>',
      '<svc-rsvp event="last-year" id="past"></svc-rsvp>',
      '<svc-rsvp event="no-such-event" id="missing"><a href="https://rsvp.example/events">Our events</a></svc-rsvp>',
      snippet(key, 'rsvp-club'),
    ].join(''),
  );
  const w = widget(page);
  await expect(w.locator('[part~="tier-name"]')).toHaveText(['Standing', 'Tatami seat', 'Front row', 'Last seats']);
  await expect(w.locator('[part~="tier-price"]')).toHaveText(['Free', '¥1,200', '€25.00', '$9.00']);
  await expect(tierRow(w, 'Standing')).toContainText('3 left');
  await expect(tierRow(w, 'Tatami seat').locator('[part~="tier-left"], [part~="tier-unavailable"]')).toHaveCount(0);
  await expect(tierRow(w, 'Front row')).toContainText('Sold out');
  await expect(tierRadio(w, 'Front row')).toBeDisabled();

  // Quantity: at most 10 per checkout, or what is left; the total in the tier's currency.
  await tierRadio(w, 'Tatami seat').check();
  const quantity = w.getByLabel('Tickets');
  await expect(quantity).toHaveAttribute('max', '10');
  await quantity.fill('2');
  await expect(w.locator('[part~="total"]')).toHaveText('Total: ¥2,400');
  await tierRadio(w, 'Last seats').check();
  await expect(quantity).toHaveAttribute('max', '3');
  await quantity.fill('4');
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(quantity).toHaveAttribute('aria-invalid', 'true');
  await expect(quantity).toHaveAccessibleDescription('Choose from 1 to 3 tickets.');

  await expect(page.locator('#past').locator('[part~="ended"]')).toHaveText('This event has ended.');
  await expect(page.locator('#past').getByRole('radio')).toHaveCount(0);
  await expect(page.locator('#missing').getByRole('alert')).toContainText("This event isn't open for booking here.");
});

test('free RSVP end to end: the QR ticket is shown, verifies at the door, and is e-mailed', async ({
  page,
  request,
}) => {
  const problems = recordProblems(page);
  const email = uniqueEmail('free');
  await page.goto(DEMO_URL);
  const key = await publishableKey(request);
  const free = (await apiTiers(request, key)).find((t) => t.name === 'Free RSVP')!;
  await page.evaluate(() => {
    document.addEventListener('svc:rsvp:confirmed', (e) => {
      (window as unknown as { confirmed: unknown[] }).confirmed = [
        ...((window as unknown as { confirmed?: unknown[] }).confirmed ?? []),
        (e as CustomEvent).detail,
      ];
    });
  });
  const w = widget(page);
  await tierRadio(w, 'Free RSVP').check();

  // The tier's form, built from its schema: types, autofill tokens, labels, help text.
  await expect(w.getByLabel('Your name')).toHaveAttribute('autocomplete', 'name');
  await expect(w.getByLabel('E-mail')).toHaveAttribute('type', 'email');
  await expect(w.getByLabel('E-mail')).toHaveAttribute('autocomplete', 'email');
  const mobile = w.getByLabel('Your mobile, for day-of updates');
  await expect(mobile).toHaveAttribute('type', 'tel');
  await expect(mobile).toHaveAttribute('autocomplete', 'tel');
  await expect(mobile).toHaveAccessibleDescription('Only the trip leaders see it.');
  await expect(w.getByLabel('Emergency contact (name and phone)')).toHaveAttribute('required', '');
  await expect(w.getByLabel('Bringing something to the potluck?')).toHaveJSProperty('tagName', 'SELECT');

  await fillFreeForm(w, email);
  await mobile.fill('+1 206 555 0199');
  await w.getByLabel('Bringing something to the potluck?').selectOption('Something sweet');
  await w.getByLabel('Photos of me may appear in the club newsletter').check();
  const sent = page.waitForRequest((r) => r.url() === `${API_ORIGIN}${RSVP_PATH}` && r.method() === 'POST');
  await w.getByRole('button', { name: 'RSVP' }).click();
  const request_ = await sent;
  expect(await request_.allHeaders()).toMatchObject({ 'x-api-key': key, origin: PAGE_ORIGIN });
  expect(request_.postDataJSON()).toEqual({
    tierId: free.id,
    name: 'Ana Lima',
    email,
    formAnswers: {
      emergency_contact: 'Sam Lee, +1 206 555 0100',
      mobile: '+1 206 555 0199',
      potluck: 'Something sweet',
      photos_ok: true,
    },
  });

  const confirmation = w.locator('[part~="confirmation"]');
  await expect(confirmation).toBeFocused();
  await expect(confirmation).toContainText("You're going!");
  await expect(confirmation).toContainText(`Also sent to your e-mail (${email})`);
  const qr = w.getByRole('img', { name: 'Ticket QR code for Big Summit Day (Free RSVP)' });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const src = (await qr.getAttribute('src'))!;
  expect(src).toMatch(/^data:image\/png;base64,/);
  const png = Buffer.from(src.slice(src.indexOf(',') + 1), 'base64');
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.length).toBeGreaterThan(200);
  expect(png.length).toBeLessThan(50_000);

  // The QR is a ticket code the server recognises as this RSVP.
  const secret = (
    JSON.parse(await svc('key', 'create', '--community', COMMUNITY, '--scopes', 'WRITE_SALES', '--json')) as {
      key: string;
    }
  ).key;
  const verified = await request.post(`${API_ORIGIN}/v1/communities/${COMMUNITY}/tickets/verify`, {
    headers: { 'X-API-Key': secret },
    data: { code: decodeQr(png) },
  });
  expect(await verified.json()).toMatchObject({
    valid: true,
    ticket: { kind: 'RSVP', eventSlug: EVENT, tierId: free.id, name: 'Ana Lima', email },
  });

  const confirmed = await page.evaluate(() => (window as unknown as { confirmed?: unknown[] }).confirmed);
  expect(confirmed).toEqual([{ rsvpId: expect.any(String), tierId: free.id, event: EVENT }]);

  const mails = await outbox(email);
  expect(mails).toHaveLength(1);
  expect(mails[0].subject).toBe('Your ticket for Big Summit Day');
  expect(mails[0].attachments).toEqual([expect.objectContaining({ contentType: 'image/png' })]);
  expect(problems).toEqual([]);
});

test('paid checkout: quantity, the local checkout page, Pay, and back to a confirmation; one e-mailed ticket per seat', async ({
  page,
  request,
}) => {
  const email = uniqueEmail('paid');
  const checkouts: { sessionId: string; checkoutUrl: string }[] = [];
  await page.exposeBinding('recordCheckout', (_source, detail: { sessionId: string; checkoutUrl: string }) => {
    checkouts.push(detail);
  });
  await page.addInitScript(() => {
    document.addEventListener(
      'svc:rsvp:checkout',
      (e) => void (window as unknown as { recordCheckout(d: unknown): void }).recordCheckout((e as CustomEvent).detail),
    );
  });
  await page.goto(DEMO_URL);
  const key = await publishableKey(request);
  const supporter = (await apiTiers(request, key)).find((t) => t.name === 'Summit supporter')!;
  const w = widget(page);
  await tierRadio(w, 'Summit supporter').check();
  // No e-mail field here: the payment page asks for it, where the receipt goes too.
  await expect(w.getByLabel('E-mail')).toHaveCount(0);
  const quantity = w.getByLabel('Tickets');
  await expect(quantity).toHaveAttribute('type', 'number');
  await expect(quantity).toHaveAttribute('min', '1');
  await expect(quantity).toHaveAttribute('max', String(Math.min(10, supporter.capacity! - supporter.sold)));
  await w.getByLabel('Your name').fill('Bo Chen');
  await quantity.fill('2');
  await expect(w.locator('[part~="total"]')).toHaveText('Total: $50.00');

  const sent = page.waitForRequest((r) => r.url() === `${API_ORIGIN}${CHECKOUT_PATH}` && r.method() === 'POST');
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  const body = (await sent).postDataJSON() as Record<string, unknown>;
  expect(body).toEqual({
    tierId: supporter.id,
    quantity: 2,
    name: 'Bo Chen',
    successUrl: `${DEMO_URL}?svc_checkout=success&session={CHECKOUT_SESSION_ID}&svc_event=${EVENT}`,
    cancelUrl: `${DEMO_URL}?svc_checkout=cancelled&svc_event=${EVENT}`,
  });

  // The server's local checkout page: what is being paid, then Pay with the buyer's e-mail.
  await page.waitForURL(/\/checkout\/cs_local_[0-9a-f]{32}$/);
  expect(checkouts).toHaveLength(1);
  expect(page.url()).toBe(checkouts[0].checkoutUrl);
  await expect(page.getByRole('table', { name: 'What you are paying for' })).toContainText(
    'Big Summit Day: Summit supporter × 2',
  );
  await expect(page.getByTestId('total')).toHaveText('$50.00');
  await page.getByLabel('E-mail for your receipt and tickets').fill(email);
  // The widget takes the return's parameters out of the address bar once read: the URL the
  // browser came back to is the request's.
  const back = page.waitForRequest((r) => r.isNavigationRequest() && r.url().includes('svc_checkout=success'));
  await page.getByRole('button', { name: 'Pay $50.00' }).click();

  const backUrl = new URL((await back).url());
  expect(backUrl.origin).toBe(PAGE_ORIGIN);
  expect(backUrl.searchParams.get('session')).toBe(checkouts[0].sessionId);
  const notice = widget(page).locator('[part~="notice"]');
  await expect(notice).toHaveText('Payment received — your tickets are on their way by e-mail.');
  await expect(notice).toBeFocused();
  expect(page.url()).toBe(DEMO_URL);
  // The booking stays open below it for another ticket.
  await expect(tierRadio(widget(page), 'Summit supporter')).toBeEnabled();

  const mails = await outbox(email);
  expect(mails).toHaveLength(1);
  expect(mails[0].subject).toBe('Your 2 tickets for Big Summit Day');
  expect(mails[0].attachments).toHaveLength(2);
  expect(mails[0].attachments.every((a) => a.contentType === 'image/png')).toBe(true);
});

test('cancelling on the checkout page comes back to say nothing was charged', async ({ page }) => {
  await page.goto(DEMO_URL);
  const w = widget(page);
  await tierRadio(w, 'Summit supporter').check();
  await w.getByLabel('Your name').fill('Cy Dunn');
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/\/checkout\/cs_local_/);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.waitForURL((url) => url.origin === PAGE_ORIGIN && url.searchParams.get('svc_checkout') === 'cancelled');
  await expect(widget(page).locator('[part~="notice"]')).toHaveText('Checkout cancelled: nothing was charged.');
});

test('a required field left empty gets its message next to it and nothing is sent; a server refusal lands on its field', async ({
  page,
}) => {
  const actions: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/actions/')) actions.push(r.url());
  });
  await page.goto(DEMO_URL);
  const w = widget(page);
  await tierRadio(w, 'Free RSVP').check();
  await w.getByLabel('Your name').fill('Ana Lima');
  await w.getByLabel('E-mail').fill(uniqueEmail('empty'));
  await w.getByRole('button', { name: 'RSVP' }).click();

  const contact = w.getByLabel('Emergency contact (name and phone)');
  await expect(contact).toBeFocused();
  await expect(contact).toHaveAttribute('aria-invalid', 'true');
  await expect(contact).toHaveAccessibleDescription('This field is required.');
  // Next to the field: the message is inside the field's own wrapper, right after the control.
  await expect(w.locator('[data-key="formAnswers.emergency_contact"] [part~="field-error"]')).toHaveText(
    'This field is required.',
  );
  expect(actions).toEqual([]);

  // Typing clears the message; an address the browser-side check lets through but the server
  // refuses comes back as extras.field = "email", shown next to the e-mail field.
  await contact.fill('Sam Lee, +1 206 555 0100');
  await expect(contact).not.toHaveAttribute('aria-invalid', 'true');
  const email = w.getByLabel('E-mail');
  await email.fill('ana@example.c');
  const answer = page.waitForResponse((r) => r.url() === `${API_ORIGIN}${RSVP_PATH}`);
  await w.getByRole('button', { name: 'RSVP' }).click();
  const res = await answer;
  expect(res.status()).toBe(400);
  expect(await res.json()).toMatchObject({ extras: { field: 'email' } });
  await expect(email).toBeFocused();
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAccessibleDescription(
    /Your ticket is sent here\. Enter an e-mail address like name@example\.com\./,
  );
});

test('keyboard only: into the tiers, choose, fill, send, and on to another ticket, with a visible focus ring', async ({
  page,
}) => {
  const email = uniqueEmail('keys');
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(tierRadio(w, 'Free RSVP')).toBeVisible();
  // Tab from the top of the page until focus is in the tier group.
  const inTiers = () =>
    page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el instanceof HTMLInputElement && el.type === 'radio' && el.closest('[part~="tiers"]') !== null;
    });
  for (let i = 0; i < 80 && !(await inTiers()); i++) await page.keyboard.press('Tab');
  await expect(tierRadio(w, 'Free RSVP')).toBeFocused();
  const ring = await tierRow(w, 'Free RSVP').evaluate((label) => getComputedStyle(label).outlineStyle);
  expect(ring).toBe('solid');

  // Arrows move between the tiers that can be chosen (the sold-out and closed ones are skipped).
  await page.keyboard.press('ArrowDown');
  await expect(tierRadio(w, 'Summit supporter')).toBeChecked();
  await page.keyboard.press('ArrowDown');
  await expect(tierRadio(w, 'Free RSVP')).toBeChecked();
  await expect(tierRadio(w, 'Free RSVP')).toBeFocused();

  await page.keyboard.press('Tab');
  await expect(w.getByLabel('Your name')).toBeFocused();
  await page.keyboard.type('Kim Park');
  await page.keyboard.press('Tab');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await expect(w.getByLabel('Emergency contact (name and phone)')).toBeFocused();
  await page.keyboard.type('Lee Park, +1 206 555 0111');
  await page.keyboard.press('Enter');

  const confirmation = w.locator('[part~="confirmation"]');
  await expect(confirmation).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(w.getByRole('button', { name: 'Book another ticket' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(tierRadio(w, 'Free RSVP')).not.toBeChecked();
  expect(await outbox(email)).toHaveLength(1);
});

test('the demo page with the booking widget has no axe violations: tiers, the form with errors, the ticket', async ({
  page,
}) => {
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(tierRadio(w, 'Free RSVP')).toBeVisible();
  const scan = async () => expect(await axeViolations(page, 'svc-rsvp')).toEqual([]);
  await scan();
  await tierRadio(w, 'Free RSVP').check();
  await w.getByRole('button', { name: 'RSVP' }).click();
  await expect(w.locator('[part~="field-error"]').first()).toBeVisible();
  await scan();
  await fillFreeForm(w, uniqueEmail('axe'));
  await w.getByRole('button', { name: 'RSVP' }).click();
  await expect(w.locator('[part~="qr"]')).toBeVisible();
  await scan();
  // And the whole page, so the widget does not break the page's own landmarks and headings.
  expect(await axeViolations(page)).toEqual([]);
});

test('on the hosted site the RSVP is same-origin and keyless', async ({ page }) => {
  const email = uniqueEmail('hosted');
  // The event's page: <svc-rsvp> is server-rendered into it and hydrated.
  await page.goto(`${HOSTED_ORIGIN}/events/${EVENT}`);
  const w = widget(page);
  await tierRadio(w, 'Free RSVP').check();
  await fillFreeForm(w, email);
  const sent = page.waitForRequest((r) => r.url().endsWith(RSVP_PATH) && r.method() === 'POST');
  await w.getByRole('button', { name: 'RSVP' }).click();
  const request = await sent;
  expect(new URL(request.url()).origin).toBe(HOSTED_ORIGIN);
  expect((await request.allHeaders())['x-api-key']).toBeUndefined();
  await expect(w.locator('[part~="qr"]')).toBeVisible();
  expect(await outbox(email)).toHaveLength(1);
});

test('on the hosted site a tier chosen before the widget hydrates is the one it books', async ({ page }) => {
  const email = uniqueEmail('early');
  // The widget's chunk is held back: the server's form is on screen, and the visitor picks a tier.
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/widgets\/rsvp-[^/]+\.js$/, async (route) => {
    await arrived;
    await route.continue();
  });
  await page.goto(`${HOSTED_ORIGIN}/events/${EVENT}`, { waitUntil: 'domcontentloaded' });
  const w = widget(page);
  await tierRadio(w, 'Free RSVP').check();
  await expect(w.getByLabel('Your name')).toHaveCount(0);

  release();
  await page.waitForFunction(() => customElements.get('svc-rsvp'));
  // Hydrated: the tier still chosen, and its form under it.
  await expect(tierRadio(w, 'Free RSVP')).toBeChecked();
  await fillFreeForm(w, email);
  await w.getByRole('button', { name: 'RSVP' }).click();
  await expect(w.locator('[part~="qr"]')).toBeVisible();
  expect(await outbox(email)).toHaveLength(1);
});
