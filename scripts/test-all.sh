#!/usr/bin/env bash
# `npm test`: every suite on the embedded default. Unit + API tests (vitest, SQLite), the widget
# build and its byte budgets, and the Playwright suite in Chromium. Ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/vitest.json test-results/size.json test-results/e2e.json
failed=0

npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || failed=1
npm run --silent build || failed=1
npx tsx scripts/check-size.ts --json test-results/size.json || failed=1
npx playwright test || failed=1

npx tsx scripts/summarize-tests.ts test-results/vitest.json test-results/size.json test-results/e2e.json || failed=1
exit $failed
