// Sums vitest, size-budget and Playwright JSON reports into one `tests: N passed, M failed` line.
// A report that is missing counts as one failure: a suite that did not run did not pass.
// Before that line: each suite's duration, and one line per failed test. CI hands back only the
// tail of its log, so the names of the failures must be at the very end, next to the count.
import fs from 'node:fs';
import path from 'node:path';

export interface Failure {
  /** Where it was reported: the report file's base name (vitest-postgres, e2e, ...). */
  suite: string;
  file: string;
  title: string;
  /** The first line of the error, or what stands for it. */
  error: string;
}

export interface Tally {
  suite: string;
  passed: number;
  failed: number;
  failures: Failure[];
  /** Wall time of the suite; null when its report does not say. */
  durationMs: number | null;
}

const firstLine = (text: string | undefined): string =>
  // Playwright and vitest colour their messages; the log is read as plain text.
  (text ?? '')
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n')[0] ?? '';

interface VitestAssertion {
  fullName?: string;
  ancestorTitles?: string[];
  title: string;
  status: string;
  failureMessages?: string[];
}
interface VitestFile {
  name: string;
  status: string;
  message?: string;
  startTime?: number;
  endTime?: number;
  assertionResults: VitestAssertion[];
}

function tallyVitest(suite: string, r: any): Tally {
  const files: VitestFile[] = r.testResults ?? [];
  const failures: Failure[] = [];
  for (const f of files) {
    const file = path.relative(process.cwd(), f.name);
    for (const a of f.assertionResults) {
      if (a.status !== 'failed') continue;
      const title = a.fullName ?? [...(a.ancestorTitles ?? []), a.title].join(' > ');
      failures.push({ suite, file, title, error: firstLine(a.failureMessages?.[0]) });
    }
    // A file that failed to load has no test results of its own; it counts as one failure.
    if (f.status === 'failed' && f.assertionResults.length === 0)
      failures.push({ suite, file, title: '(file did not run)', error: firstLine(f.message) });
  }
  const ends = files.map((f) => f.endTime).filter((t): t is number => typeof t === 'number');
  const durationMs = typeof r.startTime === 'number' && ends.length > 0 ? Math.max(...ends) - r.startTime : null;
  const brokenFiles = files.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  return { suite, passed: r.numPassedTests, failed: r.numFailedTests + brokenFiles, failures, durationMs };
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: {
    title: string;
    file: string;
    tests: { status: string; projectName?: string; results: { status: string; error?: { message?: string } }[] }[];
  }[];
  suites?: PlaywrightSuite[];
}

function tallyPlaywright(suite: string, r: any): Tally {
  const failures: Failure[] = [];
  // Spec files are named relative to the test directory; the log names them from the repository.
  const rootDir: string | undefined = r.config?.rootDir;
  const fileOf = (name: string) => (rootDir ? path.relative(process.cwd(), path.join(rootDir, name)) : name);
  // Titles nest as describe blocks; the file's own suite is named after the file, left out.
  const walk = (s: PlaywrightSuite, titles: string[]) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        if (t.status !== 'unexpected') continue;
        const last = t.results[t.results.length - 1];
        failures.push({
          suite,
          file: fileOf(spec.file),
          title: [...titles, spec.title].join(' > '),
          error: firstLine(last?.error?.message ?? last?.status),
        });
      }
    }
    for (const child of s.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const fileSuite of r.suites ?? []) walk(fileSuite, []);
  // An error outside any test (the web server did not start, a spec did not load) fails the run
  // without failing a test; it must not read as a pass.
  for (const e of r.errors ?? [])
    failures.push({ suite, file: e.location?.file ?? '', title: '(outside any test)', error: firstLine(e.message) });
  return {
    suite,
    passed: r.stats.expected + (r.stats.flaky ?? 0),
    failed: r.stats.unexpected + (r.errors?.length ?? 0),
    failures,
    durationMs: typeof r.stats.duration === 'number' ? r.stats.duration : null,
  };
}

function tallySize(suite: string, r: any): Tally {
  const budgets: { name: string; gzip: number; budget: number | null; ok: boolean }[] = r.budgets;
  const failures = budgets
    .filter((b) => !b.ok)
    .map((b) => ({
      suite,
      file: 'scripts/check-size.ts',
      title: b.name,
      error: b.budget === null ? 'no budget' : `${b.gzip} B gzip over its budget of ${b.budget} B`,
    }));
  return { suite, passed: budgets.length - failures.length, failed: failures.length, failures, durationMs: null };
}

/** What one report says; `report` is its parsed JSON, or undefined when the file is missing. */
export function tally(file: string, report: unknown): Tally {
  const suite = path.basename(file, '.json');
  const missing = (error: string): Tally => ({
    suite,
    passed: 0,
    failed: 1,
    failures: [{ suite, file, title: '(report)', error }],
    durationMs: null,
  });
  if (report === undefined) return missing(`missing test report ${file}`);
  const r = report as any;
  if (typeof r?.numPassedTests === 'number') return tallyVitest(suite, r);
  if (typeof r?.stats?.expected === 'number') return tallyPlaywright(suite, r);
  if (Array.isArray(r?.budgets)) return tallySize(suite, r);
  return missing(`unrecognised test report ${file}`);
}

/** The closing lines: durations, failures, then the count (with typecheck/lint/format as `checks`). */
export function summary(tallies: Tally[], checks = { passed: 0, failed: 0 }): string[] {
  const lines: string[] = [];
  for (const t of tallies) {
    const took = t.durationMs === null ? '' : `, ${(t.durationMs / 1000).toFixed(1)} s`;
    lines.push(`suite ${t.suite}: ${t.passed} passed, ${t.failed} failed${took}`);
  }
  for (const t of tallies)
    for (const f of t.failures) lines.push(`FAILED [${f.suite}] ${f.file} :: ${f.title} :: ${f.error}`);
  const passed = checks.passed + tallies.reduce((n, t) => n + t.passed, 0);
  const failed = checks.failed + tallies.reduce((n, t) => n + t.failed, 0);
  lines.push(`tests: ${passed} passed, ${failed} failed`);
  return lines;
}

function main(): void {
  const tallies = process.argv.slice(2).map((file) => {
    if (!fs.existsSync(file)) return tally(file, undefined);
    try {
      return tally(file, JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch (e) {
      return tally(file, { unreadable: String(e) });
    }
  });
  const checks = { passed: Number(process.env.CHECKS_PASSED ?? 0), failed: Number(process.env.CHECKS_FAILED ?? 0) };
  process.stdout.write(`${summary(tallies, checks).join('\n')}\n`);
  process.exit(checks.failed + tallies.reduce((n, t) => n + t.failed, 0) > 0 ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
