// <svc-apply> on the demo page (a customer's site at 127.0.0.1: publishable key, widget actions on
// the platform at localhost, the page's Origin listed in the demo's embed origins) and on the
// demo community's hosted `/apply` (server-rendered, same-origin, keyless). demo/fixture.json gives the demo community three kinds of
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
  watchLayoutShifts,
  cls,
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

// The hosted site's `/apply` (docs/hosted-site.md): <svc-apply> server-rendered with the segments
// and their forms, hydrated in place; its reads and its application same-origin and keyless; the
// page's plain forms in its place without JavaScript.
const APPLY_URL = `${HOSTED_ORIGIN}/apply`;

/** Every widget on the page has connected (its chunk ran and hydrated the server's markup), plus two frames. */
async function hydrated(page: Page, tags: string[]): Promise<void> {
  await page.waitForFunction((names) => names.every((n) => customElements.get(n)), tags);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Problems other than the expected 401 of the anonymous session check. */
const unexpected = (problems: string[]) => problems.filter((p) => !/status of 401/.test(p));

test('hosted /apply: the widget is in the first paint, with the widget scripts blocked', async ({ page }) => {
  await page.route('**/widgets/**', (route) => route.abort());
  await page.goto(APPLY_URL);
  const w = widget(page);
  await expect(w.getByRole('group', { name: 'Choose a membership' })).toBeVisible();
  await expect(segmentRadio(w, 'Trail Friends')).toBeVisible();
  await expect(segmentCard(w, 'Summit Club').locator('[part~="segment-price"]')).toContainText('/ month');
  // With JavaScript on, the page's no-JS forms are not shown.
  await expect(page.getByRole('link', { name: 'Sign in to apply' })).toBeHidden();
});

test('hosted /apply: hydrates without a request or a layout shift, and applies same-origin and keyless', async ({
  page,
}) => {
  const problems = recordProblems(page);
  const reads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/segments/')) reads.push(`${r.method()} ${r.url()}`);
  });
  await watchLayoutShifts(page);
  await page.goto(APPLY_URL);
  await hydrated(page, ['svc-header', 'svc-footer', 'svc-apply']);
  const w = widget(page);
  // Hydrated: choosing a segment shows its form (from the page's state: no request for it).
  await segmentRadio(w, 'Trail Crew').check();
  await expect(w.getByLabel('Your name')).toBeVisible();
  await expect(w.getByRole('checkbox', { name: 'Saturdays' })).toBeVisible();
  expect(reads).toEqual([]);
  expect(await cls(page)).toBe(0);

  await w.getByLabel('Your name').fill('Hana Hosted');
  await w.getByLabel('E-mail').fill(uniqueEmail('hosted'));
  await w.getByLabel(RULES).check();
  const sent = page.waitForRequest((r) => r.url().endsWith('/submit') && r.method() === 'POST');
  await w.getByRole('button', { name: 'Apply' }).click();
  const req = await sent;
  expect(new URL(req.url()).origin).toBe(HOSTED_ORIGIN);
  expect(req.headers()['x-api-key']).toBeUndefined();
  expect(req.postDataJSON()).toMatchObject({ source: 'hosted site' });
  await expect(w.locator('[part~="confirmation"]')).toContainText("we'll review");
  expect(unexpected(problems)).toEqual([]);
});

test('hosted /apply: the e-mail check reads /v1 same-origin with no key, and answers', async ({ page }) => {
  const problems = recordProblems(page);
  await page.goto(APPLY_URL);
  await hydrated(page, ['svc-apply']);
  const w = widget(page);
  await segmentRadio(w, 'Trail Friends').check();
  const check = page.waitForResponse((r) => r.url().includes('/check-email'));
  await w.getByLabel('E-mail').fill(seededEmail('PENDING'));
  const res = await check;
  expect(new URL(res.url()).origin).toBe(HOSTED_ORIGIN);
  expect(new URL(res.url()).pathname).toMatch(new RegExp(`^/v1/communities/${COMMUNITY}/segments/[^/]+/check-email$`));
  expect((await res.request().allHeaders())['x-api-key']).toBeUndefined();
  expect(res.status()).toBe(200);
  await expect(w.locator('[part~="email-status"]')).toHaveText(
    'An application from this address is already waiting for review.',
  );
  expect(unexpected(problems)).toEqual([]);
});

test('hosted /apply has no axe violations: the cards, and a segment’s form', async ({ page }) => {
  await page.goto(APPLY_URL);
  await hydrated(page, ['svc-apply']);
  expect(await axeViolations(page)).toEqual([]);
  await segmentRadio(widget(page), 'Summit Club').check();
  await expect(widget(page).getByLabel('Full name')).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

test.describe('hosted /apply with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  test('the widget gives way to the plain forms: sign in first, then apply with a form post', async ({
    page,
    browser,
  }) => {
    await page.goto(APPLY_URL);
    await expect(widget(page)).toBeHidden();
    const signIn = page.getByRole('link', { name: 'Sign in to apply' });
    await expect(signIn).toBeVisible();
    await expect(signIn).toHaveAttribute('href', `/sign-in?next=${encodeURIComponent('/apply')}`);

    // A new account, signed up on this site in a page with JavaScript (the sign-up is a JSON
    // post), whose cookie this context then takes.
    const email = uniqueEmail('nojs');
    const withJs = await browser.newContext();
    const signUpPage = await withJs.newPage();
    await signUpPage.goto(`${HOSTED_ORIGIN}/sign-in`);
    const status = await signUpPage.evaluate(
      async (body) => {
        const res = await fetch('/api/auth/sign-up', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        await res.text();
        return res.status;
      },
      { email, password: 'nojs-password-123', name: 'Nico Nojs' },
    );
    expect(status).toBe(201);
    await page.context().addCookies(await withJs.cookies());
    await withJs.close();
    await page.goto(APPLY_URL);
    await expect(widget(page)).toBeHidden();
    const friends = page.locator('section', { has: page.getByRole('heading', { name: 'Trail Friends' }) });
    await expect(friends.getByLabel(/^E-mail/)).toHaveValue(email);
    await expect(page.getByText('Paying for this membership needs JavaScript.').first()).toBeVisible();
    await friends.getByRole('button', { name: 'Apply: Trail Friends' }).click();
    await expect(page).toHaveURL(`${APPLY_URL}?applied=approved`);
    await expect(page.getByRole('status')).toContainText('your membership is active');
  });
});
