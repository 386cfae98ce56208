// The install doctor (docs/widgets.md, "Troubleshooting / install doctor"): on a customer's page
// with one install problem, the loader and the widgets write exactly one console message, the
// doctor's, with the fix; data-debug lists what each widget mounted and fetched. The words are
// the doctor chunk's own (tests/unit/widgets/doctor.test.ts checks them): here, which problem was
// seen, with which details, and that nothing else is said.
import { expect, test, type Page } from '@playwright/test';
import type { Problem } from '../../widgets/lib/contract.ts';
import { explain } from '../../widgets/lib/doctor/index.ts';
import { openHostileHost } from './hostile-host.ts';
import {
  API_ORIGIN,
  COMMUNITY,
  E2E_PORT,
  HOSTED_ORIGIN,
  PAGE_ORIGIN,
  publishableKey,
  widgetManifest,
} from './support.ts';

/**
 * A customer origin no community lists as an embed origin, whatever the port: the demo lists
 * 127.0.0.1 only. A loopback address, so the local-network-access grant applies; the test serves
 * the page itself.
 */
const UNLISTED_ORIGIN = `http://127.0.0.2:${E2E_PORT}`;

/** The page's `[svc]` console lines, of any type. */
function svcConsole(page: Page): { type: string; text: string }[] {
  const lines: { type: string; text: string }[] = [];
  page.on('console', (m) => {
    if (m.text().startsWith('[svc]')) lines.push({ type: m.type(), text: m.text() });
  });
  return lines;
}

/** The one message the doctor should write for `problem`, as the console shows it. */
const message = (problem: Problem, community = COMMUNITY, page = PAGE_ORIGIN) =>
  `[svc] ${explain(problem, { community, api: API_ORIGIN, page })}`;

/** Waits for the first line, then long enough for a second one to show up if there were one. */
async function settled(page: Page, lines: unknown[]): Promise<void> {
  await expect.poll(() => lines.length).toBeGreaterThan(0);
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
}

const loader = (attributes: string) => `<script src="${API_ORIGIN}/widgets/loader.js" ${attributes}></script>`;

test('no data-key on a page that is not the hosted site', async ({ page }) => {
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-no-key',
    '<svc-events></svc-events>',
    {},
    {
      snippetHtml: loader(`data-community="${COMMUNITY}"`),
    },
  );
  await settled(page, lines);
  expect(lines).toEqual([{ type: 'error', text: message({ kind: 'no-key' }) }]);
});

test('an unknown community', async ({ page, request }) => {
  const key = await publishableKey(request);
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-unknown',
    '<svc-footer></svc-footer>',
    {},
    {
      snippetHtml: loader(`data-community="no-such-community" data-key="${key}"`),
    },
  );
  await settled(page, lines);
  expect(lines).toEqual([{ type: 'error', text: message({ kind: 'unknown-community' }, 'no-such-community') }]);
});

test('a page whose origin is not an embed origin: the visitor is told plainly, the console names the origin and the fix', async ({
  page,
}) => {
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-origin',
    '<svc-rsvp event="big-summit-day"></svc-rsvp>',
    {},
    {
      origin: UNLISTED_ORIGIN,
    },
  );
  const w = page.locator('svc-rsvp');
  await w.getByRole('radio', { name: /^Free RSVP\b/ }).check();
  await w.getByLabel('Your name').fill('Ana Lima');
  await w.getByLabel('E-mail').fill('ana@example.com');
  await w.getByLabel('Emergency contact (name and phone)').fill('Sam Lee, +1 206 555 0100');
  const answer = page.waitForResponse((r) => r.url().endsWith(`/api/actions/${COMMUNITY}/events/big-summit-day/rsvp`));
  await w.getByRole('button', { name: 'RSVP' }).click();
  const res = await answer;
  // The preflight passed and the refusal itself was readable (before, the browser hid it).
  expect(res.status()).toBe(403);
  expect(await res.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
  await expect(w.getByRole('alert')).toHaveText("This site isn't set up for this yet, so nothing was sent.");
  await settled(page, lines);
  expect(lines).toEqual([{ type: 'error', text: message({ kind: 'origin-not-allowed' }, COMMUNITY, UNLISTED_ORIGIN) }]);
  expect(lines[0].text).toContain(`${UNLISTED_ORIGIN} is not one of community "demo"'s embed origins`);
});

test('a CSP that keeps the platform out of connect-src', async ({ page }) => {
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-csp',
    '<svc-footer></svc-footer>',
    {},
    {
      headers: { 'Content-Security-Policy': `script-src 'self' ${API_ORIGIN}; connect-src 'self'` },
    },
  );
  await settled(page, lines);
  expect(lines).toEqual([
    {
      type: 'error',
      text: message({ kind: 'csp', directive: 'connect-src', blocked: `${API_ORIGIN}/api/communities/${COMMUNITY}` }),
    },
  ]);
});

test("a CSP that admits loader.js alone: the widgets' code is blocked, and the loader says so itself", async ({
  page,
}) => {
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-csp-scripts',
    '<svc-events></svc-events>',
    {},
    {
      headers: { 'Content-Security-Policy': `script-src ${API_ORIGIN}/widgets/loader.js; connect-src ${API_ORIGIN}` },
    },
  );
  await settled(page, lines);
  expect(lines).toEqual([
    {
      type: 'error',
      text: `[svc] ${API_ORIGIN}/widgets/ is blocked or unreachable: allow it in this page's CSP (script-src).`,
    },
  ]);
});

test("a widget's chunk that does not load (no CSP involved)", async ({ page }) => {
  const chunk = `${API_ORIGIN}/widgets/${widgetManifest().widgets.events.file}`;
  await page.route(chunk, (route) => route.abort('connectionrefused'));
  const lines = svcConsole(page);
  await openHostileHost(page, 'doctor-chunk', '<svc-events></svc-events>');
  await settled(page, lines);
  expect(lines).toEqual([{ type: 'error', text: message({ kind: 'chunk', tag: 'svc-events', url: chunk }) }]);
});

test('a widget tag another script defined first', async ({ page, request }) => {
  const key = await publishableKey(request);
  const lines = svcConsole(page);
  const foreign = `<script>customElements.define('svc-events', class extends HTMLElement {});</script>`;
  await openHostileHost(
    page,
    'doctor-foreign',
    '<svc-events></svc-events>',
    {},
    {
      snippetHtml: foreign + loader(`data-community="${COMMUNITY}" data-key="${key}"`),
    },
  );
  await settled(page, lines);
  expect(lines).toEqual([{ type: 'error', text: message({ kind: 'foreign-tag', tag: 'svc-events' }) }]);
});

test('our own second copy stays silent; two loaders for different communities are named', async ({ page, request }) => {
  const key = await publishableKey(request);
  const demo = loader(`data-community="${COMMUNITY}" data-key="${key}"`);
  const twice = svcConsole(page);
  await openHostileHost(page, 'doctor-twice', '<svc-footer></svc-footer>', {}, { snippetHtml: demo + demo });
  await expect(page.locator('svc-footer footer')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(twice).toEqual([]);

  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-two',
    '<svc-footer></svc-footer>',
    {},
    {
      snippetHtml: demo + loader(`data-community="other" data-key="${key}"`),
    },
  );
  await settled(page, lines);
  // The first tag the second loader finds taken: the loader's tags in their build order.
  const first = `svc-${Object.keys(widgetManifest().widgets)[0]}`;
  expect(lines).toEqual([
    { type: 'error', text: message({ kind: 'other-community', tag: first, other: COMMUNITY }, 'other') },
  ]);
});

test('an attribute value a widget does not take: one message, for the first of two', async ({ page }) => {
  const lines = svcConsole(page);
  await openHostileHost(page, 'doctor-attribute', '<svc-events limit="abc" theme="purple"></svc-events>');
  await settled(page, lines);
  expect(lines).toEqual([
    {
      type: 'error',
      text: message({
        kind: 'attribute',
        tag: 'svc-events',
        name: 'limit',
        value: 'abc',
        pattern: '^([1-9]\\d?|100)$',
      }),
    },
  ]);
});

test('data-debug lists what each widget mounted and fetched, and a page set up right gets no doctor message', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-debug',
    '<svc-events limit="3"></svc-events><svc-footer></svc-footer>',
    {},
    {
      snippetHtml: loader(`data-community="${COMMUNITY}" data-key="${key}" data-debug`),
    },
  );
  await expect(page.locator('svc-events [part~="item"]')).toHaveCount(3);
  await page.waitForLoadState('networkidle');
  const calls = `${API_ORIGIN} with key ${key}`;
  const texts = lines.map((l) => l.text);
  expect(texts).toContain(`[svc] <svc-events limit="3"> mounted: community "demo", calls ${calls}`);
  expect(texts).toContain(`[svc] <svc-footer> mounted: community "demo", calls ${calls}`);
  expect(texts).toContain(`[svc] fetched ${API_ORIGIN}/api/communities/${COMMUNITY} (200)`);
  expect(texts.some((t) => t.startsWith(`[svc] fetched ${API_ORIGIN}/v1/communities/${COMMUNITY}/events?`))).toBe(true);
  expect(texts.some((t) => /^\[svc\] fetched .*\/widgets\/events-[\w-]+\.js \(200\)$/.test(t))).toBe(true);
  expect(lines.filter((l) => l.type !== 'info')).toEqual([]);
});

test('pages set up right hear nothing: a strict CSP that admits the platform, and the hosted site without a key', async ({
  page,
}) => {
  const lines = svcConsole(page);
  await openHostileHost(
    page,
    'doctor-silent',
    '<svc-events limit="2" theme="dark"></svc-events><svc-footer></svc-footer>',
    {
      strictCsp: true,
    },
  );
  await expect(page.locator('svc-events [part~="item"]')).toHaveCount(2);
  await expect(page.locator('svc-footer footer')).toBeVisible();
  await page.goto(`${HOSTED_ORIGIN}/events`);
  await expect(page.locator('svc-header header')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  expect(lines).toEqual([]);
});
