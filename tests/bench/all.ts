// npm run bench: every bench, one after another, each in its own process (so one bench's servers,
// pools and timers cannot skew the next), then one table of every figure with its goal.
//   npm run bench                  the default set
//   npm run bench -- --scale       adds the million-row bench (tests/bench/scale.ts) and the purge
//                                  at 100,000 rows per table (purge-100k)
//   npm run bench -- --only=a,b    only the named benches (names as in BENCHES below)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatTable, readReport } from './report.ts';

/** name → script; `scale` marks the ones only `--scale` runs; `env` is added to the bench's environment. */
const BENCHES: { name: string; script: string; scale?: boolean; env?: Record<string, string> }[] = [
  { name: 'events-list', script: 'tests/bench/events-list.ts' },
  { name: 'hosted-site', script: 'tests/bench/hosted-site.ts' },
  { name: 'chrome-proxy', script: 'tests/bench/chrome-proxy.ts' },
  { name: 'webhooks', script: 'tests/bench/webhooks.ts' },
  { name: 'broadcasts', script: 'tests/bench/broadcasts.ts' },
  { name: 'two-processes', script: 'tests/bench/two-processes.ts' },
  { name: 'widgets-cls', script: 'tests/bench/widgets-cls.ts' },
  // 20,000 expired + 20,000 live rows per table (BENCH_PURGE_ROWS' default), about a minute.
  { name: 'purge', script: 'tests/bench/purge.ts' },
  { name: 'purge-100k', script: 'tests/bench/purge.ts', scale: true, env: { BENCH_PURGE_ROWS: '100000' } },
  { name: 'scale', script: 'tests/bench/scale.ts', scale: true },
];

const args = process.argv.slice(2);
const scale = args.includes('--scale');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',')
  .filter(Boolean);
for (const name of only ?? []) {
  if (!BENCHES.some((b) => b.name === name)) {
    process.stderr.write(`unknown bench ${name}; known: ${BENCHES.map((b) => b.name).join(', ')}\n`);
    process.exit(2);
  }
}
const chosen = BENCHES.filter((b) => (only ? only.includes(b.name) : !b.scale || scale));

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-report-')), 'rows.jsonl');
const failed: string[] = [];
for (const bench of chosen) {
  process.stdout.write(`\n=== ${bench.name} (${bench.script})\n`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', bench.script], {
    stdio: 'inherit',
    env: { ...process.env, ...bench.env, BENCH_REPORT_FILE: file },
  });
  process.stdout.write(`=== ${bench.name}: ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${r.status}\n`);
  if (r.status !== 0) failed.push(bench.name);
}

const rows = readReport(file);
process.stdout.write(
  `\nsvc bench, ${new Date().toISOString().slice(0, 16)} UTC, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}\n`,
);
process.stdout.write(formatTable(rows));
const wrong = rows.filter((r) => r.verdict === 'WRONG').length;
const missed = rows.filter((r) => r.verdict === 'NOT met').length;
process.stdout.write(
  `${rows.length} figures: ${missed} goals not met, ${wrong} WRONG; benches that failed: ${failed.join(', ') || 'none'}\n`,
);
if (wrong > 0 || failed.length > 0) process.exitCode = 1;
