// Byte budgets of the widget bundle (`npm run size`, after `npm run build`), measured on what the
// server sends: each file is requested through the platform's own handler of /widgets/
// (server/site/widgets-static.ts) with `Accept-Encoding: gzip` and then `br`, and the bytes on the
// wire are counted, so the build's precompressed copies are what is measured (and a file the
// server would send uncompressed counts at its full size). Budgets are gzip figures (the
// encoding every client accepts); brotli, what Chromium, Firefox and Safari get, is printed
// alongside. 1 KB = 1000 bytes. A widget's budget covers everything its first render downloads:
// its entry chunk plus every chunk it imports (the runtime, and the shared chunk for all but
// <svc-events>), on top of loader.js, which every page has anyway and is budgeted alone.
// A built widget with no budget here fails the check: every chunk has a budget.
//   --json <file>  also writes {budgets: [{name, files, gzip, brotli, budget, ok}]} for the CI summary.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { widgetsStatic } from '../server/site/widgets-static.ts';
import type { WidgetManifest } from '../vite.config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST_ROOT = path.join(ROOT, 'dist');
const MANIFEST = path.join(ROOT, 'dist/widgets.manifest.json');

const KB = 1000;
/**
 * What every widget but <svc-events> downloads besides its own chunk: the runtime (preact,
 * nanostores, widgets/lib), the `shared` chunk (preact/hooks, @preact/signals, the session,
 * config links; vite.config.ts) and the link templates it imports. 13.66 KB measured (8.18 +
 * 5.07 + 0.41, gzip copies by Zopfli), about 0.15 KB of room; rows below add each widget's own
 * chunks to it, with about 0.05 KB more.
 */
const RUNTIME = 13.8 * KB;
/** The one table of budgets. Add a row when a widget lands. */
export const BUDGETS = {
  // 1.16 KB measured: 0.36 KB of it is the install doctor's checks, 0.13 KB the page's reserve.
  loader: 1.3 * KB,
  /**
   * loader.js + runtime + <svc-events>, what a page with the most common widget downloads. Issue
   * 20's target is 12 KB (11.63 KB in its first build); 12.42 KB measured, 12.80 KB before link
   * templates left the runtime (<svc-events> imports them only with an `event-href`) and the
   * gzip copies were made by Zopfli (docs/widgets.md, "Byte budgets"). A loader that grows must
   * be paid for here.
   */
  typicalPage: 12.55 * KB,
  widgets: {
    // The runtime alone (8.18 KB) and its own chunk (3.08 KB): neither preact/hooks nor
    // @preact/signals (vite.config.ts). 11.26 KB measured.
    events: 11.4 * KB,
    // The header's own chunk (5.97 KB measured), the footer's (1.40 KB). @floating-ui/dom (the
    // popover chunk) is not in the header's first render: its dropdowns fetch it when first reached.
    header: RUNTIME + 6.05 * KB,
    footer: RUNTIME + 1.45 * KB,
    members: RUNTIME + 3.6 * KB,
    // Its chunk, the form renderer's and the checkout round trip's (8.61 KB measured).
    rsvp: RUNTIME + 8.7 * KB,
    // Its first render; @floating-ui/dom (the popover chunk, shared with the header) loads when a popover first opens.
    // 6.82 KB measured: its chunk and the checkout round trip's (0.59 KB since it puts the return
    // parameters out of the address bar).
    donate: RUNTIME + 6.9 * KB,
    // The form renderer (widgets/lib/forms/, a chunk shared with <svc-rsvp>) and the checkout
    // round trip count here too (9.79 KB measured).
    apply: RUNTIME + 9.85 * KB,
  } as Record<string, number>,
  /**
   * Modules of the build that are not widgets. The console's islands run on the leader console's
   * pages only (never on a customer's page), on top of the widgets' runtime the page has already.
   */
  entries: {
    console: RUNTIME + 1.4 * KB,
    // The install doctor (its messages and data-debug): imports nothing, downloaded only on a page
    // with an install problem or data-debug. 1.43 KB measured.
    doctor: 1.6 * KB,
    // Link templates (widgets/lib/link-template.ts), imported by `shared`, <svc-header> and
    // <svc-members>, and by <svc-events> only when it has an `event-href`. 0.41 KB measured.
    'link-template': 0.55 * KB,
  } as Record<string, number>,
};

export interface Row {
  name: string;
  files: string[];
  gzip: number;
  brotli: number;
  budget: number | null;
}

/** What the server sends for one file: its size as is, and with each coding asked for. */
export interface Served {
  raw: number;
  gzip: number;
  brotli: number;
}

/** One request through the handler, the body's bytes counted as they arrive (never decoded). */
function fetchSize(port: number, file: string, acceptEncoding: string): Promise<{ bytes: number; coding: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: `/widgets/${file}`, headers: { 'Accept-Encoding': acceptEncoding } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`/widgets/${file}: ${res.statusCode}`));
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ bytes, coding: res.headers['content-encoding'] ?? 'identity' }));
      },
    );
    req.on('error', reject);
  });
}

/** Serves `distDir` as the platform does, on a free local port, and measures every file in it. */
export async function measureServed(distDir: string): Promise<Map<string, Served>> {
  const app = express();
  app.use('/widgets', ...widgetsStatic(distDir));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const sizes = new Map<string, Served>();
    for (const file of fs.readdirSync(path.join(distDir, 'widgets')).sort()) {
      const raw = await fetchSize(port, file, 'identity');
      const gzip = await fetchSize(port, file, 'gzip');
      const brotli = await fetchSize(port, file, 'br');
      sizes.set(file, { raw: raw.bytes, gzip: gzip.bytes, brotli: brotli.bytes });
    }
    return sizes;
  } finally {
    server.close();
  }
}

export function measure(manifest: WidgetManifest, sizeOf: (file: string) => Served): Row[] {
  const row = (name: string, files: string[], budget: number | null): Row => ({
    name,
    files,
    gzip: files.reduce((sum, f) => sum + sizeOf(f).gzip, 0),
    brotli: files.reduce((sum, f) => sum + sizeOf(f).brotli, 0),
    budget,
  });
  const rows: Row[] = [row('loader.js', [manifest.loader], BUDGETS.loader)];
  const events = manifest.widgets.events;
  if (events)
    rows.push(
      row('loader.js + <svc-events> + runtime', [manifest.loader, ...events.imports, events.file], BUDGETS.typicalPage),
    );
  for (const [name, widget] of Object.entries(manifest.widgets))
    rows.push(row(`<svc-${name}> + runtime`, [...widget.imports, widget.file], BUDGETS.widgets[name] ?? null));
  for (const [name, entry] of Object.entries(manifest.entries ?? {}))
    rows.push(row(`${name} + runtime`, [...entry.imports, entry.file], BUDGETS.entries[name] ?? null));
  return rows;
}

const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;

function writeReport(file: string | undefined, rows: (Row & { ok: boolean })[]): void {
  if (!file) return;
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ budgets: rows }, null, 2)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const jsonIndex = argv.indexOf('--json');
  const jsonFile = jsonIndex >= 0 ? argv[jsonIndex + 1] : undefined;
  if (!fs.existsSync(MANIFEST)) {
    console.error('dist/widgets.manifest.json is missing: run `npm run build` first.');
    writeReport(jsonFile, [{ name: 'widget bundle built', files: [], gzip: 0, brotli: 0, budget: null, ok: false }]);
    return 1;
  }
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as WidgetManifest;
  const sizes = await measureServed(DIST_ROOT);
  const sizeOf = (file: string) => {
    const size = sizes.get(file);
    if (!size) throw new Error(`${file} is in the manifest but not in dist/widgets: run \`npm run build\` again.`);
    return size;
  };

  console.log('Files, as the server sends them:');
  console.log(`  ${'file'.padEnd(28)} ${'raw'.padStart(10)} ${'gzip'.padStart(10)} ${'brotli'.padStart(10)}`);
  for (const [file, size] of sizes)
    console.log(
      `  ${file.padEnd(28)} ${kb(size.raw).padStart(10)} ${kb(size.gzip).padStart(10)} ${kb(size.brotli).padStart(10)}`,
    );

  const rows = measure(manifest, sizeOf).map((row) => ({ ...row, ok: row.budget !== null && row.gzip <= row.budget }));
  writeReport(jsonFile, rows);
  let failed = false;
  console.log('\nBudgets (gzip):');
  console.log(
    `  ${'bundle'.padEnd(36)} ${'gzip'.padStart(10)} ${'budget'.padStart(10)}  result ${'brotli'.padStart(10)}`,
  );
  for (const row of rows) {
    const verdict = row.budget === null ? 'NO BUDGET' : row.ok ? 'ok' : 'OVER';
    if (!row.ok) failed = true;
    const budget = row.budget === null ? '-' : kb(row.budget);
    console.log(
      `  ${row.name.padEnd(36)} ${kb(row.gzip).padStart(10)} ${budget.padStart(10)}  ${verdict.padEnd(6)} ${kb(row.brotli).padStart(10)}`,
    );
  }
  if (failed) console.error('\nSize check failed: a bundle is over its budget or has none (scripts/check-size.ts).');
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
