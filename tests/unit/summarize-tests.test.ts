// The CI summary names every failed test just above its closing count (CI hands back only the
// log's tail): vitest, Playwright and size reports as those tools write them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { summary, tally } from '../../scripts/summarize-tests.ts';

const vitestReport = {
  numPassedTests: 2,
  numFailedTests: 1,
  startTime: 1_000,
  testResults: [
    {
      name: path.resolve('tests/api/events.test.ts'),
      status: 'failed',
      endTime: 61_000,
      assertionResults: [
        { title: 'lists', fullName: 'events > lists', status: 'passed', failureMessages: [] },
        {
          title: 'pages',
          fullName: 'events > pages',
          status: 'failed',
          failureMessages: ['AssertionError: expected 500 to be 200\n    at events.test.ts:12'],
        },
      ],
    },
    {
      name: path.resolve('tests/api/broken.test.ts'),
      status: 'failed',
      message: 'SyntaxError: x',
      assertionResults: [],
    },
  ],
};

const playwrightReport = {
  stats: { expected: 3, unexpected: 1, flaky: 0, skipped: 0, duration: 90_500 },
  errors: [],
  config: { rootDir: path.resolve('tests/e2e') },
  suites: [
    {
      title: 'hosted-site.spec.ts',
      file: 'hosted-site.spec.ts',
      specs: [],
      suites: [
        {
          title: 'hydration',
          file: 'hosted-site.spec.ts',
          specs: [
            {
              title: 'hydrate in place',
              file: 'hosted-site.spec.ts',
              tests: [
                {
                  status: 'unexpected',
                  results: [
                    { status: 'failed', error: { message: '\x1b[31mError: expect(received).toBe(0)\x1b[39m\nmore' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
  ],
};

describe('summarize-tests', () => {
  it('names each failure, with its suite, file, title and first error line, above the count', () => {
    const lines = summary(
      [
        tally('test-results/vitest.json', vitestReport),
        tally('test-results/size.json', { budgets: [{ name: 'loader', gzip: 600, budget: 550, ok: false }] }),
        tally('test-results/e2e.json', playwrightReport),
        tally('test-results/vitest-postgres.json', undefined),
      ],
      { passed: 3, failed: 0 },
    );
    expect(lines).toEqual([
      'suite vitest: 2 passed, 2 failed, 60.0 s',
      'suite size: 0 passed, 1 failed',
      'suite e2e: 3 passed, 1 failed, 90.5 s',
      'suite vitest-postgres: 0 passed, 1 failed',
      'FAILED [vitest] tests/api/events.test.ts :: events > pages :: AssertionError: expected 500 to be 200',
      'FAILED [vitest] tests/api/broken.test.ts :: (file did not run) :: SyntaxError: x',
      'FAILED [size] scripts/check-size.ts :: loader :: 600 B gzip over its budget of 550 B',
      'FAILED [e2e] tests/e2e/hosted-site.spec.ts :: hydration > hydrate in place :: Error: expect(received).toBe(0)',
      'FAILED [vitest-postgres] test-results/vitest-postgres.json :: (report) :: missing test report test-results/vitest-postgres.json',
      'tests: 8 passed, 5 failed',
    ]);
  });

  it('counts an error outside any test (a web server that never started) as a failure', () => {
    const t = tally('e2e.json', {
      stats: { expected: 0, unexpected: 0, flaky: 0, skipped: 0, duration: 60_000 },
      errors: [{ message: 'Error: Timed out waiting 60000ms from config.webServer.' }],
      suites: [],
    });
    expect(t.failed).toBe(1);
    expect(t.failures[0].error).toBe('Error: Timed out waiting 60000ms from config.webServer.');
  });
});
