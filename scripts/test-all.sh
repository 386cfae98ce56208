#!/usr/bin/env bash
# `npm test`: every suite on the embedded default. Unit + API tests (vitest, SQLite), the widget
# build and its byte budgets, the Playwright suite in Chromium, then the WordPress plugin's suite
# on a real WordPress (integrations/wordpress/test-site/). Ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/vitest.json test-results/size.json test-results/e2e.json test-results/e2e-wordpress.json
failed=0

npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || failed=1
npm run --silent build || failed=1
npx tsx scripts/check-size.ts --json test-results/size.json || failed=1
npx playwright test || failed=1
# After the main suite, not alongside it: each starts its own svc server, and 2 cores are shared.
{ bash integrations/wordpress/test-site/setup.sh && npx playwright test -c playwright.wordpress.config.ts; } || failed=1

npx tsx scripts/summarize-tests.ts test-results/vitest.json test-results/size.json test-results/e2e.json \
  test-results/e2e-wordpress.json || failed=1
exit $failed
