// Issue 20, item 7 (the robustness points of the widgets on a customer's page) and item 8 (link
// templates), on the hostile-host page (tests/e2e/hostile-host.ts): a polluted Object.prototype,
// a strict CSP with Trusted Types, one event read by two widgets, checkout return parameters left
// in the address bar.
import { expect, test, type Page } from '@playwright/test';
import { openHostileHost } from './hostile-host.ts';
import {
  API_ORIGIN,
  COMMUNITY,
  HOSTED_ORIGIN,
  PAGE_ORIGIN,
  apiEvents,
  items,
  publishableKey,
  recordProblems,
} from './support.ts';

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

/** Every widget of ALL_SEVEN (the header aside) has drawn its content, not its loading state. */
async function expectAllSevenDrawn(page: Page) {
  await expect(items(page.locator('svc-events')).first()).toBeVisible();
  await expect(page.locator('svc-members [part~="name"]').first()).toBeVisible();
  await expect(page.locator('svc-rsvp').getByRole('group', { name: 'Tickets for Big Summit Day' })).toBeVisible();
  await expect(page.locator(`svc-donate[sku="${FUND}"] [part~="chip"]`).first()).toBeVisible();
  await expect(page.locator('svc-apply').getByRole('group', { name: 'Choose a membership' })).toBeVisible();
  await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();
}

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

  await expectAllSevenDrawn(page);

  const donate = page.locator('svc-donate[mode="button"]');
  await donate.getByRole('button', { name: 'Donate', exact: true }).click();
  const dialog = donate.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio').first()).toBeFocused();

  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test('under a strict CSP with Trusted Types every widget renders, the dropdown and the donate popover open, with no violation', async ({
  page,
}) => {
  const problems = recordProblems(page);
  // Init scripts run whatever the page's CSP says: every violation the page reports, report-only
  // or enforced, whatever its source (the widgets' styles, a chunk, an image, a sink).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  await openHostileHost(page, 'strict-csp', ALL_SEVEN, { strictCsp: true });
  const header = page.locator('svc-header');
  await header.getByRole('button', { name: 'About' }).click();
  await expect(header.locator('[part~="dropdown"]')).toBeVisible();
  await expectAllSevenDrawn(page);
  const donate = page.locator('svc-donate[mode="button"]');
  await donate.getByRole('button', { name: 'Donate', exact: true }).click();
  await expect(donate.getByRole('dialog')).toBeVisible();

  await page.waitForLoadState('networkidle');
  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  expect(problems).toEqual([]);
  // And the policy was in force: Trusted Types refuse a plain string in a script sink.
  const sink = await page.evaluate(() => {
    try {
      document.createElement('div').innerHTML = '<b>x</b>';
      return 'accepted';
    } catch {
      return 'refused';
    }
  });
  expect(sink).toBe('refused');
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

/** The page's own query and fragment, which the widgets must leave alone. */
const OWN = { query: 'lang=en&utm_source=mail%20out', hash: '#tickets' };

async function segmentId(page: Page): Promise<string> {
  const res = await page.request.get(`${API_ORIGIN}/v1/communities/${COMMUNITY}/segments/public`, {
    headers: { 'X-API-Key': await publishableKey(page.request) },
  });
  return ((await res.json()) as { id: string }[])[0].id;
}

const RETURNS = [
  {
    widget: `<svc-rsvp event="${EVENT}"></svc-rsvp>`,
    params: async () => `svc_checkout=cancelled&svc_event=${EVENT}`,
    says: 'Checkout cancelled: nothing was charged.',
  },
  {
    widget: `<svc-donate sku="${FUND}"></svc-donate>`,
    params: async () => `svc_donate=success&session=cs_test_e2e&svc_sku=${FUND}`,
    says: /^Thank you! Your payment is being confirmed/,
  },
  {
    widget: '<svc-apply></svc-apply>',
    params: async (page: Page) => `svc_apply=success&session=cs_test_e2e&svc_segment=${await segmentId(page)}`,
    says: /^Payment received\. Welcome!/,
  },
];

for (const [i, r] of RETURNS.entries()) {
  const name = r.widget.match(/<(svc-\w+)/)![1];
  test(`${name}: back from the checkout, the notice shows and exactly the return's parameters leave the address bar`, async ({
    page,
  }) => {
    const [lang, utm] = OWN.query.split('&');
    await openHostileHost(
      page,
      `return-${i}`,
      r.widget,
      {},
      { search: `?${lang}&${await r.params(page)}&${utm}${OWN.hash}` },
    );
    await expect(page.locator(name).locator('[part~="notice"]')).toHaveText(r.says);
    await expect.poll(() => page.url()).toBe(`${PAGE_ORIGIN}/e2e/return-${i}.html?${OWN.query}${OWN.hash}`);
    // Replaced, not pushed: Back leaves the page rather than returning to the parameters.
    await page.goBack();
    expect(page.url()).toBe('about:blank');
  });
}

test('link templates: cards, nav and footer go where the page says; a broken template keeps the default and says why', async ({
  page,
}) => {
  const problems = recordProblems(page);
  const key = await publishableKey(page.request);
  const { events } = await apiEvents(page.request, key, { limit: '2', upcoming: 'true' });
  const featured = (await apiEvents(page.request, key, { limit: '1', upcoming: 'true', featured: 'true' })).events[0];
  const res = await page.request.get(`${API_ORIGIN}/v1/communities/${COMMUNITY}/members?limit=2`, {
    headers: { 'X-API-Key': key },
  });
  const members = (await res.json()) as { usertag: string }[];
  await openHostileHost(
    page,
    'links',
    [
      '<svc-header site-href="/community{path}" current="/events"></svc-header>',
      '<svc-events id="cards" limit="2" event-href="/shop/events/{slug}?ref=widget"></svc-events>',
      '<svc-events id="broken" featured limit="1" event-href="/e/{name}"></svc-events>',
      '<svc-members limit="2" member-href="people/{usertag}"></svc-members>',
      '<svc-footer site-href="https://elsewhere.example/hikers{path}"></svc-footer>',
    ].join(''),
    { pollutePrototype: true },
  );

  const cards = page.locator('#cards');
  await expect(cards.locator('a[part~="link"]')).toHaveCount(events.length);
  for (const [i, e] of events.entries())
    await expect(cards.locator('a[part~="link"]').nth(i)).toHaveAttribute(
      'href',
      `${PAGE_ORIGIN}/shop/events/${encodeURIComponent(e.slug)}?ref=widget`,
    );
  // Relative to the page (/e2e/links.html), as a link written in it would be.
  const memberLinks = page.locator('svc-members a[part~="link"]');
  await expect(memberLinks).toHaveCount(members.length);
  for (const [i, m] of members.entries())
    await expect(memberLinks.nth(i)).toHaveAttribute(
      'href',
      `${PAGE_ORIGIN}/e2e/people/${encodeURIComponent(m.usertag)}`,
    );

  const header = page.locator('svc-header');
  const eventsLink = header.getByRole('link', { name: 'Events', exact: true });
  await expect(eventsLink).toHaveAttribute('href', `${PAGE_ORIGIN}/community/events`);
  await expect(eventsLink).toHaveAttribute('aria-current', 'page');
  await expect(header.locator('[part~="brand"]')).toHaveAttribute('href', `${PAGE_ORIGIN}/community/`);
  // Absolute config links stay as they are; sign-in stays on the community's site.
  await header.getByRole('button', { name: 'About' }).click();
  await expect(header.getByRole('link', { name: /Leave No Trace/ })).toHaveAttribute(
    'href',
    'https://www.lnt.org/why/7-principles/',
  );
  await expect(header.locator('[part~="sign-in"]')).toHaveAttribute('href', new RegExp(`^${HOSTED_ORIGIN}/sign-in\\?`));
  await expect(page.locator('svc-footer').getByRole('link', { name: 'Become a member' })).toHaveAttribute(
    'href',
    'https://elsewhere.example/hikers/apply',
  );

  // {name} is no placeholder of <svc-events>: the community's page, and one message naming the fix.
  await expect(page.locator('#broken a[part~="link"]')).toHaveAttribute(
    'href',
    `${HOSTED_ORIGIN}/events/${encodeURIComponent(featured.slug)}`,
  );
  // A new template is applied at once.
  await page.locator('#cards').evaluate((el) => el.setAttribute('event-href', 'https://tickets.example/{id}'));
  await expect(cards.locator('a[part~="link"]').first()).toHaveAttribute(
    'href',
    `https://tickets.example/${events[0].id}`,
  );
  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([
    `console: [svc] event-href="/e/{name}": unknown placeholder {name} (use {slug},{id}); linking to the community's site instead`,
  ]);
});
