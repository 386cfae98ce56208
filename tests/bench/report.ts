// One table for the whole of `npm run bench`. Each bench runs in its own process (tests/bench/all.ts
// starts them one after another) and hands its figures back through `report()`: the lines are
// printed by the bench itself and, when the runner set BENCH_REPORT_FILE, appended to that file as
// JSON lines so the runner can print every figure in one table, the goal next to each.
import fs from 'node:fs';

/**
 * `met`/`NOT met` judge a figure against its goal; `WRONG` is a broken invariant (a lost or
 * doubled delivery, a count that is off), which makes the run exit non-zero; `info` has no goal.
 */
export type Verdict = 'met' | 'NOT met' | 'WRONG' | 'info';

export interface BenchRow {
  /** The bench that measured it, e.g. `events list`, `scale`, `two processes`. */
  area: string;
  /** What was measured, e.g. `GET /v1/communities/demo/events?limit=20, caches off`. */
  measure: string;
  /** The figure as printed, e.g. `3,210 req/s (0.58x), p99 21 ms`. */
  figure: string;
  /** The goal as printed, e.g. `≥ 0.5x hello-world, p99 < 25 ms`; empty for `info`. */
  goal: string;
  verdict: Verdict;
}

export const judge = (ok: boolean): Verdict => (ok ? 'met' : 'NOT met');

const widths = [18, 58, 34, 30] as const;

function cell(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

/** The rows as a fixed-width table (area, measure, figure, goal, verdict). */
export function formatTable(rows: readonly BenchRow[]): string {
  const head = ['area', 'measure', 'figure', 'goal'].map((h, i) => cell(h, widths[i]!)).join(' ') + ' verdict';
  const body = rows.map(
    (r) => [r.area, r.measure, r.figure, r.goal].map((t, i) => cell(t, widths[i]!)).join(' ') + ` ${r.verdict}`,
  );
  return [head, '-'.repeat(head.length), ...body].join('\n') + '\n';
}

/**
 * Prints this bench's rows and hands them to the runner. A `WRONG` row sets a non-zero exit code;
 * `NOT met` does not (a missed goal is a figure to read, not a broken build).
 */
export function report(rows: readonly BenchRow[]): void {
  process.stdout.write(`\n${formatTable(rows)}`);
  const file = process.env.BENCH_REPORT_FILE;
  if (file) fs.appendFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
  if (rows.some((r) => r.verdict === 'WRONG')) process.exitCode = 1;
}

/** Reads back what the benches of one run reported. */
export function readReport(file: string): BenchRow[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BenchRow);
}
