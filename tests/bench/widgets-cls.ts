// npm run bench, the widgets' layout shift (docs/widgets.md, "Reserved space"): Chromium at 4x CPU
// throttling, a cold load of a customer page per widget (the widget between two paragraphs, with
// its no-JS fallback link inside, as the snippet docs show it) and of the demo page with every
// widget, a few runs each. CLS is every layout shift of the load, read from the browser's own
// timeline over CDP, summed (the page is not touched, so none of it is the visitor's doing).
// Goals: at most 0.01 per widget and 0.02 for the demo page. It prints the worst and the median
// run against the goal, and with BENCH_VERBOSE=1 which nodes moved; it does not fail the process
// on a missed goal (runs on a shared 2-core machine are a measurement, not a gate).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../playwright-shared.ts';
import { benchPort, start } from './load.ts';
import { judge, report, type BenchRow } from './report.ts';

const GOALS = { widget: 0.01, page: 0.02 };
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const PORT = process.env.BENCH_PORT ?? benchPort(13);
/** The customer pages are on another origin than the platform, as on a real site. */
const PAGE_ORIGIN = `http://127.0.0.1:${PORT}`;
const PLATFORM = `http://localhost:${PORT}`;

/** Each widget as the docs' snippets place it, with its fallback link. */
const WIDGETS: Record<string, string> = {
  header: '<svc-header><a href="/">Demo Hikers</a> · <a href="/events">Events</a></svc-header>',
  events: '<svc-events limit="6"><a href="/events">See all our events</a></svc-events>',
  members: '<svc-members limit="6"><a href="/members">Meet our members</a></svc-members>',
  rsvp: '<svc-rsvp event="big-summit-day"><a href="/events/big-summit-day">Book on our site</a></svc-rsvp>',
  donate: '<svc-donate sku="trail-fund"><a href="/">Give on our site</a></svc-donate>',
  'donate button': '<svc-donate sku="trail-fund" mode="button"><a href="/">Give</a></svc-donate>',
  apply: '<svc-apply><a href="/join">Apply on our site</a></svc-apply>',
  footer: '<svc-footer><a href="/">Demo Hikers</a></svc-footer>',
};

const PARAGRAPH =
  '<p>Acme Hikers is a volunteer-run club for people who like their weekends outdoors. We organise day hikes in ' +
  'the Cascades, evening walks around town, skills clinics and the occasional overnight trip.</p>';

/** The page around one widget; `reserve` is the page's own rule for the box before the script comes. */
function customerPage(widget: string, key: string, reserve = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CLS</title><link rel="icon" href="data:,">' +
    `<style>body{margin:0 auto;max-width:760px;padding:1rem;font:17px/1.7 Georgia,serif}${reserve}</style></head><body>` +
    // A footer is the page's last thing; every other widget sits in the flow of the text.
    (widget.startsWith('<svc-footer')
      ? `<h1>Walk with us</h1>${PARAGRAPH.repeat(7)}${widget}`
      : `<h1>Walk with us</h1>${PARAGRAPH}${widget}${PARAGRAPH.repeat(6)}`) +
    `<script async src="${PLATFORM}/widgets/loader.js" data-community="demo" data-key="${key}"></script></body></html>`
  );
}

interface Shift {
  value: number;
  nodes: string[];
}

/** One cold load in a fresh context, 4x throttled; the shifts until the page has settled. */
async function load(browser: Browser, url: string, html?: string): Promise<Shift[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // A page Playwright fulfils has no server address, so Chromium's Local Network Access takes it
  // for a public page and blocks its calls to localhost; both are public on a real site.
  await context.grantPermissions(['local-network-access'], { origin: PAGE_ORIGIN });
  const page = await context.newPage();
  if (html) await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const shifts: Shift[] = [];
  const pending: Promise<void>[] = [];
  cdp.on('PerformanceTimeline.timelineEventAdded', ({ event }) => {
    const details = event.layoutShiftDetails;
    if (event.type !== 'layout-shift' || !details || details.hadRecentInput) return;
    const shift: Shift = { value: details.value, nodes: [] };
    shifts.push(shift);
    if (VERBOSE)
      pending.push(
        (async () => {
          for (const source of details.sources) {
            if (!source.nodeId) continue;
            const { node } = await cdp.send('DOM.describeNode', { backendNodeId: source.nodeId }).catch(() => ({
              node: { localName: '?', attributes: [] as string[] },
            }));
            shift.nodes.push(`${node.localName}${node.attributes?.length ? `[${node.attributes.join(' ')}]` : ''}`);
          }
        })(),
      );
  });
  await cdp.send('PerformanceTimeline.enable', { eventTypes: ['layout-shift'] });
  await page.goto(url, { waitUntil: 'load' });
  // Settled: the widgets' data has come and been drawn (the slowest, the demo page's seven
  // widgets at 4x, take about a second after load on this machine).
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(1500);
  await Promise.all(pending);
  await context.close();
  return shifts;
}

/** The widget's height once drawn (unthrottled): what a page measures to reserve it. */
async function finalHeight(browser: Browser, url: string, html: string, tag: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['local-network-access'], { origin: PAGE_ORIGIN });
  const page = await context.newPage();
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  await page.goto(url);
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(1500);
  const height = await page.locator(tag).evaluate((el) => Math.round(el.getBoundingClientRect().height));
  await context.close();
  return height;
}

const sum = (shifts: Shift[]) => shifts.reduce((total, s) => total + s.value, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const verdict = judge;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-cls-'));
  const out = (line: string) => process.stdout.write(`${line}\n`);
  let server: ChildProcess | undefined;
  const rows: BenchRow[] = [];
  try {
    server = await start(
      'server/main.ts',
      { PORT, SVC_DATA_DIR: dataDir, SVC_PUBLIC_URL: PLATFORM, LOG_LEVEL: 'warn', DATABASE_URL: '' },
      `${PAGE_ORIGIN}/readyz`,
    );
    const keyRes = await fetch(`${PLATFORM}/v1/communities/demo/publishable-key`);
    const { publishableKey } = (await keyRes.json()) as { publishableKey: string };
    const browser = await chromium.launch(CHROMIUM_LAUNCH);
    out(`\nwidgets CLS: Chromium at 4x CPU throttling, ${RUNS} cold loads each, ${os.cpus().length} cores`);
    try {
      const measureCls = async (title: string, url: string, goal: number, html?: string, label = title) => {
        const runs: number[] = [];
        const worst: Shift[][] = [];
        for (let i = 0; i < RUNS; i++) {
          const shifts = await load(browser, url, html);
          runs.push(sum(shifts));
          worst.push(shifts);
        }
        const max = Math.max(...runs);
        out(
          `${title.padEnd(22)} CLS median ${median(runs).toFixed(4)}, worst ${max.toFixed(4)} ` +
            `(goal at most ${goal}): ${verdict(max <= goal)}`,
        );
        if (VERBOSE) for (const s of worst[runs.indexOf(max)]) out(`    ${s.value.toFixed(4)} ${s.nodes.join(' | ')}`);
        rows.push({
          area: 'widgets CLS',
          measure: `${label}, worst of ${RUNS} (4x CPU throttle)`,
          figure: `${max.toFixed(4)} (median ${median(runs).toFixed(4)})`,
          goal: `≤ ${goal}`,
          verdict: verdict(max <= goal),
        });
      };
      for (const [name, markup] of Object.entries(WIDGETS)) {
        const url = `${PAGE_ORIGIN}/bench/${encodeURIComponent(name)}.html`;
        await measureCls(`<svc-${name}>`, url, GOALS.widget, customerPage(markup, publishableKey));
        // As docs/widgets.md ("Layout shift") tells a page: reserve the height the widget has.
        const tag = /^<(svc-[a-z]+)/.exec(markup)![1];
        const height = await finalHeight(browser, url, customerPage(markup, publishableKey), tag);
        const reserve = `${tag}:not(:defined){display:block;min-height:${height}px}`;
        await measureCls(
          `  page reserves ${height}px`,
          url,
          GOALS.widget,
          customerPage(markup, publishableKey, reserve),
          `<svc-${name}>, page reserves ${height}px`,
        );
      }
      await measureCls('demo page', `${PAGE_ORIGIN}/demo/`, GOALS.page);
    } finally {
      await browser.close();
    }
  } finally {
    server?.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  report(rows);
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
