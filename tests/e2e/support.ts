// Shared by the e2e specs: the two origins, the API as the source of truth, and "customer"
// pages built on the fly. Extra pages are served by Playwright from the page origin
// (127.0.0.1), so they embed the real loader cross-origin exactly like the demo page does.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, type APIRequestContext, type BrowserContext, type Locator, type Page } from '@playwright/test';
import type { Event } from '../../contract/resources.ts';
import type { WidgetManifest } from '../../vite.config.ts';
import { E2E_PORT } from '../playwright-shared.ts';

export { E2E_PORT };
export const PAGE_ORIGIN = `http://127.0.0.1:${E2E_PORT}`;
export const API_ORIGIN = `http://localhost:${E2E_PORT}`;
export const COMMUNITY = 'demo';
export const DEMO_URL = `${PAGE_ORIGIN}/demo/`;
/** The demo community's hosted apex, where widgets act same-origin and keyless. */
export const HOSTED_ORIGIN = `http://demo.localhost:${E2E_PORT}`;

/** An address no earlier run has used, so each test starts with a new person. */
export const uniqueEmail = (what: string) =>
  `${what}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
export const usd = (minor: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(minor / 100);

const run = promisify(execFile);
/** The real CLI against the e2e server's data directory. */
export async function svc(...args: string[]): Promise<string> {
  const { stdout } = await run('node_modules/.bin/tsx', ['server/cli/index.ts', ...args], {
    env: { ...process.env, SVC_DATA_DIR: process.env.SVC_E2E_DATA_DIR, LOG_LEVEL: 'silent' },
  });
  return stdout;
}

/**
 * axe-core's violations on the page, or only inside the elements `include` selects, one line
 * each naming the rule and the nodes, so a failing `toEqual([])` says what is wrong. axe walks
 * open shadow roots, so the widgets' DOM is part of the scan.
 */
export async function axeViolations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  const results = await (include ? builder.include(include) : builder).analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

export async function publishableKey(request: APIRequestContext, community = COMMUNITY): Promise<string> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${community}/publishable-key`);
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { publishableKey: string }).publishableKey;
}

/** One page of the events list straight from the API, as the widget should show it. */
export async function apiEvents(
  request: APIRequestContext,
  key: string,
  query: Record<string, string>,
): Promise<{ events: Event[]; nextCursor: string | null }> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${COMMUNITY}/events`, {
    params: query,
    headers: { 'X-API-Key': key },
  });
  expect(res.status()).toBe(200);
  return { events: (await res.json()) as Event[], nextCursor: res.headers()['x-next-cursor'] ?? null };
}

export function widgetManifest(): WidgetManifest {
  return JSON.parse(fs.readFileSync(path.resolve('dist/widgets.manifest.json'), 'utf8')) as WidgetManifest;
}

export function snippet(key: string, community = COMMUNITY, platform = API_ORIGIN): string {
  return `<script async src="${platform}/widgets/loader.js" data-community="${community}" data-key="${key}"></script>`;
}

/** Serves `html` at <origin>/e2e/<name>.html (the customer's origin by default) and opens it. */
export async function openCustomerPage(
  page: Page,
  name: string,
  body: string,
  head = '',
  headers: Record<string, string> = {},
  origin = PAGE_ORIGIN,
  /** The `<html>` element's attributes. */
  htmlAttributes = 'lang="en"',
  /** A query and fragment to open the page with (`?a=1#x`); the page is served whatever its query. */
  search = '',
): Promise<void> {
  const url = `${origin}/e2e/${name}.html`;
  // A response Playwright fulfils has no server address, so Chromium's Local Network Access
  // treats the page as public and blocks its calls to localhost. A real customer site and the
  // platform are both public; the grant puts this test page back in that situation.
  await page.context().grantPermissions(['local-network-access'], { origin });
  await page.route(`${url}**`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      headers,
      body: `<!doctype html><html ${htmlAttributes}><head><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>`,
    }),
  );
  await page.goto(url + search);
}

/** The event cards of one widget; Playwright's CSS engine pierces the open shadow root. */
export const items = (widget: Locator) => widget.locator('[part~="item"]');
export const names = (widget: Locator) => widget.locator('[part~="name"]');

/** Console errors, uncaught exceptions and failed requests of a page, for "nothing went wrong". */
export function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}

export const isEventsRequest = (url: string) =>
  new RegExp(`^http://(localhost|127\\.0\\.0\\.1):${E2E_PORT}/v1/communities/demo/events\\?`).test(url);

/** A 1x1 PNG: what the test tile server answers for every tile. */
const TILE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The e2e server's map tiles (SVC_MAP_TILES_URL in playwright.config.ts) come from a host that
 * does not exist: every context that opens the atlas serves them itself, and counts them.
 */
export async function serveTiles(context: BrowserContext): Promise<{ requested: string[] }> {
  const requested: string[] = [];
  await context.route('https://tiles.e2e.test/**', (route) => {
    requested.push(route.request().url());
    return route.fulfill({ contentType: 'image/png', body: TILE });
  });
  return { requested };
}

/**
 * Sums every layout shift from the start of the page, before any script of ours runs, until the
 * visitor first touches it (a press or a key): what moves after that is the visitor's doing, such
 * as a form a radio reveals. The layout-shift API's own `hadRecentInput` only covers 500 ms after
 * an input, so on a busy machine, where the next frame can come later than that, a revealed form
 * counted as a shift of the page's own.
 */
export async function watchLayoutShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number; __firstInput: number };
    w.__cls = 0;
    w.__firstInput = Infinity;
    const touched = (e: { timeStamp: number }) => {
      w.__firstInput = Math.min(w.__firstInput, e.timeStamp);
    };
    for (const type of ['pointerdown', 'keydown']) addEventListener(type, touched, { capture: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!entry.hadRecentInput && entry.startTime < w.__firstInput) w.__cls += entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** The layout shifts watchLayoutShifts has summed so far. */
export const cls = (page: Page) => page.evaluate(() => (window as unknown as { __cls: number }).__cls);
