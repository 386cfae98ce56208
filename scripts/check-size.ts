// Byte budgets of the widget bundle (`npm run size`, after `npm run build`). Sizes are gzip at
// level 9, which is what a CDN or the platform serves; 1 KB = 1000 bytes. A widget's budget
// covers everything its first render downloads: its entry chunk plus every chunk it imports
// (the shared runtime), on top of loader.js, which every page has anyway and is budgeted alone.
// A built widget with no budget here fails the check: every chunk has a budget.
//   --json <file>  also writes {budgets: [{name, files, gzip, budget, ok}]} for the CI summary.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { WidgetManifest } from '../vite.config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist/widgets');
const MANIFEST = path.join(ROOT, 'dist/widgets.manifest.json');

const KB = 1000;
/**
 * The shared runtime's share of a widget row (preact, @preact/signals, nanostores, widgets/lib:
 * 12.1 KB in the issue-4 build), for rows whose widget is budgeted "on top of the runtime".
 */
const RUNTIME = 12.5 * KB;
/** The one table of budgets. Add a row when a widget lands. */
export const BUDGETS = {
  loader: 1.5 * KB,
  widgets: {
    events: 16 * KB,
    // The header's own chunk at most 8 KB (with the config-links and link-template chunks since
    // issue 20's site-href), the footer's 3 KB. @floating-ui/dom (the popover chunk) is not in the
    // header's first render: its dropdowns fetch it when first reached, which paid for the
    // hydration path the hosted site added to the runtime (issue 15).
    header: RUNTIME + 8 * KB,
    footer: RUNTIME + 3 * KB,
    members: RUNTIME + 6 * KB,
    rsvp: RUNTIME + 9 * KB,
    // Its first render; @floating-ui/dom (the popover chunk, shared with the header) loads when a popover first opens.
    donate: RUNTIME + 8 * KB,
    // The form renderer (widgets/lib/forms/, a chunk shared with <svc-rsvp>) counts here too.
    apply: RUNTIME + 10 * KB,
  } as Record<string, number>,
  /**
   * Modules of the build that are not widgets. The console's islands run on the leader console's
   * pages only (never on a customer's page), on top of the widgets' runtime the page has already.
   */
  entries: {
    console: RUNTIME + 6 * KB,
  } as Record<string, number>,
};

export interface Row {
  name: string;
  files: string[];
  gzip: number;
  budget: number | null;
}

export function gzipSize(file: string): number {
  return gzipSync(fs.readFileSync(file), { level: 9 }).length;
}

export function measure(manifest: WidgetManifest, sizeOf: (file: string) => number): Row[] {
  const rows: Row[] = [
    { name: 'loader.js', files: [manifest.loader], gzip: sizeOf(manifest.loader), budget: BUDGETS.loader },
  ];
  for (const [name, widget] of Object.entries(manifest.widgets)) {
    const files = [...widget.imports, widget.file];
    rows.push({
      name: `<svc-${name}> + runtime`,
      files,
      gzip: files.reduce((sum, f) => sum + sizeOf(f), 0),
      budget: BUDGETS.widgets[name] ?? null,
    });
  }
  for (const [name, entry] of Object.entries(manifest.entries ?? {})) {
    const files = [...entry.imports, entry.file];
    rows.push({
      name: `${name} + runtime`,
      files,
      gzip: files.reduce((sum, f) => sum + sizeOf(f), 0),
      budget: BUDGETS.entries[name] ?? null,
    });
  }
  return rows;
}

const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;

function writeReport(file: string | undefined, rows: (Row & { ok: boolean })[]): void {
  if (!file) return;
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ budgets: rows }, null, 2)}\n`);
}

function main(argv: string[]): number {
  const jsonIndex = argv.indexOf('--json');
  const jsonFile = jsonIndex >= 0 ? argv[jsonIndex + 1] : undefined;
  if (!fs.existsSync(MANIFEST)) {
    console.error('dist/widgets.manifest.json is missing: run `npm run build` first.');
    writeReport(jsonFile, [{ name: 'widget bundle built', files: [], gzip: 0, budget: null, ok: false }]);
    return 1;
  }
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as WidgetManifest;
  const sizes = new Map<string, number>();
  const sizeOf = (file: string) => {
    if (!sizes.has(file)) sizes.set(file, gzipSize(path.join(DIST, file)));
    return sizes.get(file)!;
  };

  console.log('Files (gzip -9):');
  for (const file of fs.readdirSync(DIST).sort()) {
    const raw = fs.statSync(path.join(DIST, file)).size;
    console.log(`  ${file.padEnd(28)} ${kb(raw).padStart(10)} raw ${kb(sizeOf(file)).padStart(10)} gzip`);
  }

  const rows = measure(manifest, sizeOf).map((row) => ({ ...row, ok: row.budget !== null && row.gzip <= row.budget }));
  writeReport(jsonFile, rows);
  let failed = false;
  console.log('\nBudgets:');
  console.log(`  ${'bundle'.padEnd(30)} ${'gzip'.padStart(10)} ${'budget'.padStart(10)}  result`);
  for (const row of rows) {
    const verdict = row.budget === null ? 'NO BUDGET' : row.ok ? 'ok' : 'OVER';
    if (!row.ok) failed = true;
    const budget = row.budget === null ? '-' : kb(row.budget);
    console.log(`  ${row.name.padEnd(30)} ${kb(row.gzip).padStart(10)} ${budget.padStart(10)}  ${verdict}`);
  }
  if (failed) console.error('\nSize check failed: a bundle is over its budget or has none (scripts/check-size.ts).');
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
