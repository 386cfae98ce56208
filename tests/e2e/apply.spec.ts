// <svc-apply> on the demo page (a customer's site at 127.0.0.1: publishable key, widget actions on
// the platform at localhost, the page's Origin listed in the demo's embed origins) and on the
// hosted demo (same-origin, keyless). demo/fixture.json gives the demo community three kinds of
// segment: Trail Friends (free, auto-approved), Trail Crew (free, reviewed) and Summit Club (paid
// monthly or yearly, founding prices, a form with "E-mail" and "Full name"), and rules to accept.
import fs from 'node:fs';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import type { Segment } from '../../contract/resources.ts';
import {
  API_ORIGIN,
  COMMUNITY,
  DEMO_URL,
  HOSTED_ORIGIN,
  PAGE_ORIGIN,
  axeViolations,
  publishableKey,
  recordProblems,
  svc,
  uniqueEmail,
  usd,
} from './support.ts';

const RULES = 'I have read and accept the community rules';

const widget = (page: Page) => page.locator('svc-apply').first();
const members = (page: Page) => page.locator('svc-members').first();
const segmentRadio = (w: Locator, name: string) => w.getByRole('radio', { name: new RegExp(`^${name}\\b`) });
const segmentCard = (w: Locator, name: string) => w.locator('[part~="segment"]', { hasText: name });
const uniqueName = (first: string) => `${first} ${Math.random().toString(36).slice(2, 8).replace(/\d/g, 'x')}`;

async function apiSegments(request: APIRequestContext): Promise<Segment[]> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${COMMUNITY}/segments/public`, {
    headers: { 'X-API-Key': await publishableKey(request) },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as Segment[];
}

/** The demo's seeded people by membership status, from the fixture the server imported. */
function seededEmail(status: 'ACCEPTED' | 'PENDING'): string {
  const demo = (
    JSON.parse(fs.readFileSync('demo/fixture.json', 'utf8')) as {
      communities: {
        tag: string;
        users: { email: string; usertag: string }[];
        memberships: { usertag: string; status: string; role?: string }[];
      }[];
    }
  ).communities.find((c) => c.tag === COMMUNITY)!;
  const usertag = demo.memberships.find((m) => m.status === status && m.role !== 'founder')!.usertag;
  return demo.users.find((u) => u.usertag === usertag)!.email;
}

/** Records `svc:apply:<name>` details the widget dispatches, across navigations. */
async function recordEvents(page: Page, name: 'submitted' | 'checkout'): Promise<unknown[]> {
  const seen: unknown[] = [];
  await page.exposeBinding(`record_${name}`, (_source, detail: unknown) => {
    seen.push(detail);
  });
  await page.addInitScript((n) => {
    document.addEventListener(
      `svc:apply:${n}`,
      (e) => void (window as unknown as Record<string, (d: unknown) => void>)[`record_${n}`]((e as CustomEvent).detail),
    );
  }, name);
  return seen;
}

/** Loads every page of the directory, so a member who joined last is on it. */
async function everyMember(page: Page): Promise<Locator> {
  const w = members(page);
  await expect(w.locator('[part~="name"]').first()).toBeVisible();
  const more = w.getByRole('button', { name: 'Load more members' });
  // The button is disabled while a page loads and goes away with the last one, possibly between
  // a check and the click: only its absence ends the loop, a failed click while it stays is an error.
  await page.waitForLoadState('networkidle');
  for (let i = 0; i < 20 && (await more.isVisible()); i++) {
    try {
      // A short timeout: a click on a button that went away would otherwise wait out the test.
      await more.click({ timeout: 5000 });
    } catch (err) {
      if (await more.isVisible()) throw err;
      break;
    }
    await page.waitForLoadState('networkidle');
  }
  return w.locator('[part~="name"]');
}

test.use({ locale: 'en-US', timezoneId: 'UTC' });

test('cards show each public segment with its price per cycle and founding spots; the cycle switch offers only its cycles', async ({
  page,
  request,
}) => {
  const problems = recordProblems(page);
  const segments = await apiSegments(request);
  const summit = segments.find((s) => s.name === 'Summit Club')!;
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(w.getByRole('group', { name: 'Choose a membership' })).toBeVisible();
  await expect(w.locator('[part~="segment-name"]')).toHaveText(segments.map((s) => s.name));
  await expect(segmentCard(w, 'Trail Friends').locator('[part~="segment-price"]')).toHaveText('Free');
  await expect(segmentCard(w, 'Trail Crew').locator('[part~="segment-price"]')).toHaveText('Free');
  const left = summit.foundingMemberCap! - summit.foundingMemberCount;
  expect(left).toBeGreaterThan(0);
  await expect(segmentCard(w, 'Summit Club').locator('[part~="segment-price"]')).toHaveText(
    `${usd(summit.foundingPriceMonthly!)} / month or ${usd(summit.foundingPriceYearly!)} / year`,
  );
  await expect(segmentCard(w, 'Summit Club').locator('[part~="segment-founding"]')).toHaveText(
    `${left} founding spots left`,
  );
  await expect(segmentCard(w, 'Expedition Crew').locator('[part~="segment-price"]')).toContainText(
    '$360.00 in 3 payments, one every month, for 1 year',
  );

  // A free segment has no cycle to choose; a paid one only the cycles it offers.
  await segmentRadio(w, 'Trail Friends').check();
  await expect(w.getByRole('group', { name: 'How would you like to pay?' })).toHaveCount(0);
  await segmentRadio(w, 'Summit Club').check();
  const cycles = w.getByRole('group', { name: 'How would you like to pay?' });
  await expect(cycles.getByRole('radio')).toHaveCount(2);
  await expect(cycles.locator('[part~="cycle-price"]')).toHaveText([
    `${usd(summit.foundingPriceMonthly!)} / month (founding price; regularly ${usd(summit.priceMonthly!)} / month)`,
    `${usd(summit.foundingPriceYearly!)} / year (founding price; regularly ${usd(summit.priceYearly!)} / year)`,
  ]);
  // The segment's own form, from its schema: its e-mail and "Full name" fields are the applicant's.
  await expect(w.getByLabel('E-mail')).toHaveAttribute('type', 'email');
  await expect(w.getByLabel('Full name')).toHaveAttribute('autocomplete', 'name');
  await expect(w.getByLabel('Your usual pace')).toHaveJSProperty('tagName', 'SELECT');
  await expect(w.getByRole('button', { name: 'Continue to payment' })).toBeVisible();
  expect(problems).toEqual([]);
});

test('free, auto-approved: welcome at once, and the new member is in <svc-members> after a reload', async ({
  page,
}) => {
  const problems = recordProblems(page);
  const submitted = await recordEvents(page, 'submitted');
  const email = uniqueEmail('friend');
  const name = uniqueName('Ana');
  await page.goto(DEMO_URL);
  const w = widget(page);
  await segmentRadio(w, 'Trail Friends').check();
  // The community's rules are shown, and must be ticked before anything is sent.
  await expect(w.locator('[part~="rules-text"]')).toContainText('Leave no trace.');
  await w.getByLabel('Your name').fill(name);
  await w.getByLabel('E-mail').fill(email);
  const actions: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/actions/')) actions.push(r.url());
  });
  await w.getByRole('button', { name: 'Apply' }).click();
  await expect(w.getByLabel(RULES)).toBeFocused();
  await expect(w.getByLabel(RULES)).toHaveAccessibleDescription('Tick this box to continue.');
  expect(actions).toEqual([]);

  await w.getByLabel(RULES).check();
  const sent = page.waitForRequest(
    (r) => r.url().includes(`/api/actions/${COMMUNITY}/segments/`) && r.method() === 'POST',
  );
  await w.getByRole('button', { name: 'Apply' }).click();
  const req = await sent;
  expect(new URL(req.url()).origin).toBe(API_ORIGIN);
  expect(req.headers()).toMatchObject({ 'x-api-key': expect.stringMatching(/^pk_live_/) });
  expect(req.postDataJSON()).toEqual({ answers: { name, email }, source: 'customer-site-demo' });

  const confirmation = w.locator('[part~="confirmation"]');
  await expect(confirmation).toBeFocused();
  await expect(confirmation).toContainText('Welcome to Demo Hikers!');
  await expect.poll(() => submitted.length).toBe(1);
  expect(submitted).toEqual([{ requestId: expect.any(String), segmentId: expect.any(String), status: 'APPROVED' }]);

  await page.reload();
  await expect(await everyMember(page)).toContainText([name]);
  expect(problems).toEqual([]);
});

test('free, reviewed: "we\'ll review", then approved through the API, the member shows in <svc-members>', async ({
  page,
  request,
}) => {
  const submitted = await recordEvents(page, 'submitted');
  const email = uniqueEmail('crew');
  const name = uniqueName('Bo');
  await page.goto(DEMO_URL);
  const w = widget(page);
  await segmentRadio(w, 'Trail Crew').check();
  await w.getByLabel('Your name').fill(name);
  await w.getByLabel('E-mail').fill(email);
  await w.getByRole('checkbox', { name: 'Saturdays' }).check();
  await w.getByLabel(RULES).check();
  await w.getByRole('button', { name: 'Apply' }).click();
  await expect(w.locator('[part~="confirmation"]')).toContainText("we'll review your application");
  await expect.poll(() => submitted.length).toBe(1);
  expect(submitted).toEqual([{ requestId: expect.any(String), segmentId: expect.any(String), status: 'PENDING' }]);
  const { requestId } = submitted[0] as { requestId: string };

  // Not a member yet; the check now tells this address it is pending, before another submit.
  await page.reload();
  expect(await (await everyMember(page)).allTextContents()).not.toContain(name);
  await segmentRadio(widget(page), 'Trail Crew').check();
  await widget(page).getByLabel('E-mail').fill(email);
  await expect(widget(page).locator('[part~="email-status"]')).toHaveText(
    'An application from this address is already waiting for review.',
  );

  const secret = (
    JSON.parse(await svc('key', 'create', '--community', COMMUNITY, '--scopes', 'WRITE_MEMBERS', '--json')) as {
      key: string;
    }
  ).key;
  const approved = await request.post(`${API_ORIGIN}/v1/communities/${COMMUNITY}/applications/${requestId}/approve`, {
    headers: { 'X-API-Key': secret },
  });
  expect(approved.status()).toBe(200);
  await page.reload();
  await expect(await everyMember(page)).toContainText([name]);
});

test('the e-mail check tells a member before they submit, and nothing is sent', async ({ page }) => {
  await page.goto(DEMO_URL);
  const w = widget(page);
  await segmentRadio(w, 'Trail Friends').check();
  const checks: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/check-email') && r.method() === 'GET')
      checks.push(new URL(r.url()).searchParams.get('email')!);
  });
  const status = w.locator('[part~="email-status"]');
  await expect(status).toHaveAttribute('role', 'status');
  // Typed a character at a time: one check, once typing pauses, for the whole address.
  await w.getByLabel('E-mail').pressSequentially(seededEmail('ACCEPTED'), { delay: 20 });
  await expect(status).toHaveText("You're already a member with this address.");
  expect(checks).toEqual([seededEmail('ACCEPTED')]);

  await w.getByLabel('Your name').fill('Someone');
  await w.getByLabel(RULES).check();
  const actions: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/actions/')) actions.push(r.url());
  });
  await w.getByRole('button', { name: 'Apply' }).click();
  await expect(w.getByLabel('E-mail')).toBeFocused();
  await expect(w.getByLabel('E-mail')).toHaveAccessibleDescription("You're already a member with this address.");
  expect(actions).toEqual([]);

  await w.getByLabel('E-mail').fill(seededEmail('PENDING'));
  await expect(status).toHaveText('An application from this address is already waiting for review.');
  await w.getByLabel('E-mail').fill(uniqueEmail('newcomer'));
  await expect(status).toHaveText('');
});

test('paid: choose a cycle, the local checkout, Pay, and back to the page as a member', async ({ page, request }) => {
  const submitted = await recordEvents(page, 'submitted');
  const checkouts = await recordEvents(page, 'checkout');
  const email = uniqueEmail('patron');
  const name = uniqueName('Cy');
  const summit = (await apiSegments(request)).find((s) => s.name === 'Summit Club')!;
  await page.goto(`${DEMO_URL}#join`);
  const w = widget(page);
  await segmentRadio(w, 'Summit Club').check();
  await w.getByLabel('E-mail').fill(email);
  await w.getByLabel('Full name').fill(name);
  await w.getByLabel('How long have you been hiking?').fill('Since I could walk');
  await w.getByLabel('Your usual pace').selectOption('Moderate');
  await w.getByLabel(RULES).check();
  // Two cycles offered and none chosen: the switch asks first.
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(w.locator('[data-key="billingCycle"] [part~="field-error"]')).toHaveText(
    'Choose how you would like to pay.',
  );
  await expect(w.getByRole('radio', { name: /^Monthly/ })).toBeFocused();
  await w.getByRole('radio', { name: /^Yearly/ }).check();

  const submit = page.waitForRequest((r) => r.url().includes('/submit') && r.method() === 'POST');
  const checkout = page.waitForRequest((r) => r.url() === `${API_ORIGIN}/api/actions/${COMMUNITY}/apply/checkout`);
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  expect((await submit).postDataJSON()).toEqual({
    answers: { email, full_name: name, hiking_since: 'Since I could walk', pace: 'Moderate' },
    billingCycle: 'YEARLY',
    source: 'customer-site-demo',
  });
  const checkoutBody = (await checkout).postDataJSON();
  // The submit's event reaches the test through a binding after the browser has dispatched it.
  await expect.poll(() => submitted.length).toBe(1);
  const { requestId } = submitted[0] as { requestId: string };
  expect(checkoutBody).toEqual({
    requestId,
    successUrl: `${DEMO_URL}?svc_apply=success&session={CHECKOUT_SESSION_ID}&svc_segment=${summit.id}#join`,
    cancelUrl: `${DEMO_URL}?svc_apply=cancelled&svc_segment=${summit.id}#join`,
  });

  // The server's local checkout page, at the founding yearly price, paid with the applicant's e-mail.
  await page.waitForURL(/\/checkout\/cs_local_[0-9a-f]{32}$/);
  expect(submitted).toEqual([{ requestId: expect.any(String), segmentId: summit.id, status: 'PAYMENT_PENDING' }]);
  expect(checkouts).toEqual([{ requestId, sessionId: expect.stringMatching(/^cs_local_/), checkoutUrl: page.url() }]);
  await expect(page.getByTestId('total')).toHaveText(usd(summit.foundingPriceYearly!));
  await page.getByRole('button', { name: `Pay ${usd(summit.foundingPriceYearly!)}` }).click();

  await page.waitForURL((url) => url.origin === PAGE_ORIGIN && url.searchParams.get('svc_apply') === 'success');
  const notice = widget(page).locator('[part~="notice"]');
  await expect(notice).toContainText('Payment received. Welcome!');
  await expect(notice).toBeFocused();
  await expect(await everyMember(page)).toContainText([name]);
  // One founding spot fewer.
  const after = (await apiSegments(request)).find((s) => s.name === 'Summit Club')!;
  expect(after.foundingMemberCount).toBe(summit.foundingMemberCount + 1);
});

test('keyboard only: into the segments, choose with the arrows, fill, tick, send, and land on the answer', async ({
  page,
}) => {
  const email = uniqueEmail('keys');
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(segmentRadio(w, 'Trail Friends')).toBeVisible();
  const inSegments = () =>
    page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el instanceof HTMLInputElement && el.type === 'radio' && el.closest('[part~="segments"]') !== null;
    });
  for (let i = 0; i < 120 && !(await inSegments()); i++) await page.keyboard.press('Tab');
  await expect(segmentRadio(w, 'Trail Friends')).toBeFocused();
  expect(await segmentCard(w, 'Trail Friends').evaluate((label) => getComputedStyle(label).outlineStyle)).toBe('solid');

  await page.keyboard.press('ArrowDown');
  await expect(segmentRadio(w, 'Trail Crew')).toBeChecked();
  await page.keyboard.press('ArrowUp');
  await expect(segmentRadio(w, 'Trail Friends')).toBeChecked();

  await page.keyboard.press('Tab');
  await expect(w.getByLabel('Your name')).toBeFocused();
  await page.keyboard.type('Kim Park');
  await page.keyboard.press('Tab');
  await page.keyboard.type(email);
  // Past the rules text (a scrollable region, focusable so it can be scrolled) to the box.
  await page.keyboard.press('Tab');
  await expect(w.locator('[part~="rules-text"]')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(w.getByLabel(RULES)).toBeFocused();
  await page.keyboard.press('Space');
  await expect(w.getByLabel(RULES)).toBeChecked();
  await page.keyboard.press('Tab');
  await expect(w.getByRole('button', { name: 'Apply' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(w.locator('[part~="confirmation"]')).toBeFocused();
  await expect(w.locator('[part~="confirmation"]')).toContainText('Welcome');
});

test('the demo page with the apply widget has no axe violations: cards, the form with errors, the answer', async ({
  page,
}) => {
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(segmentRadio(w, 'Trail Friends')).toBeVisible();
  const scan = async () => expect(await axeViolations(page, 'svc-apply')).toEqual([]);
  await scan();
  await segmentRadio(w, 'Summit Club').check();
  await w.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(w.locator('[part~="field-error"]').first()).toBeVisible();
  await scan();
  await segmentRadio(w, 'Trail Crew').check();
  await w.getByLabel('Your name').fill('Axe Tester');
  await w.getByLabel('E-mail').fill(uniqueEmail('axe'));
  await w.getByLabel(RULES).check();
  await w.getByRole('button', { name: 'Apply' }).click();
  await expect(w.locator('[part~="confirmation"]')).toBeVisible();
  await scan();
  expect(await axeViolations(page)).toEqual([]);
});

test('on the hosted site the application is same-origin and keyless', async ({ page }) => {
  const email = uniqueEmail('hosted');
  await page.goto(`${HOSTED_ORIGIN}/demo/hosted`);
  const w = widget(page);
  await segmentRadio(w, 'Trail Crew').check();
  await w.getByLabel('Your name').fill('Hana Hosted');
  await w.getByLabel('E-mail').fill(email);
  await w.getByLabel(RULES).check();
  const sent = page.waitForRequest((r) => r.url().endsWith('/submit') && r.method() === 'POST');
  await w.getByRole('button', { name: 'Apply' }).click();
  const req = await sent;
  expect(new URL(req.url()).origin).toBe(HOSTED_ORIGIN);
  expect(req.headers()['x-api-key']).toBeUndefined();
  expect(req.postDataJSON()).toMatchObject({ source: 'hosted-demo' });
  await expect(w.locator('[part~="confirmation"]')).toContainText("we'll review");
});
