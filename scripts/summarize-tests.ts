// Sums vitest, size-budget and Playwright JSON reports into one `tests: N passed, M failed` line.
// A report that is missing counts as one failure: a suite that did not run did not pass.
import fs from 'node:fs';

let passed = Number(process.env.CHECKS_PASSED ?? 0);
let failed = Number(process.env.CHECKS_FAILED ?? 0);
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    process.stderr.write(`missing test report ${file}\n`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof r.numPassedTests === 'number') {
    // vitest
    passed += r.numPassedTests;
    // A file that failed to load has no test results of its own; count it as one failure.
    const brokenFiles = (r.testResults ?? []).filter(
      (t: { status: string; assertionResults: unknown[] }) => t.status === 'failed' && t.assertionResults.length === 0,
    ).length;
    failed += r.numFailedTests + brokenFiles;
  } else if (r.stats && typeof r.stats.expected === 'number') {
    // Playwright
    passed += r.stats.expected + (r.stats.flaky ?? 0);
    failed += r.stats.unexpected;
  } else if (Array.isArray(r.budgets)) {
    // scripts/check-size.ts
    for (const b of r.budgets) {
      if (b.ok) passed += 1;
      else failed += 1;
    }
  } else {
    process.stderr.write(`unrecognised test report ${file}\n`);
    failed += 1;
  }
}
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
