// End-to-end: the real server (fresh data directory per run, so it seeds the demo community)
// and Debian's Chromium. Pages are opened on http://127.0.0.1:3100 while the API and widget
// bundle are http://localhost:3100: a genuine cross-origin embed, as on a customer's site.
import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH, E2E_PORT, e2eDataDir, svcWebServer } from './tests/playwright-shared.ts';

export default defineConfig({
  testDir: 'tests/e2e',
  // Not test-results/ itself: Playwright empties its outputDir, and other suites report there.
  outputDir: 'test-results/e2e-artifacts',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  globalTeardown: './tests/e2e/global-teardown.ts',
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    browserName: 'chromium',
    trace: 'retain-on-failure',
    launchOptions: CHROMIUM_LAUNCH,
  },
  webServer: svcWebServer(e2eDataDir('svc-e2e-'), {
    // The atlas draws its map from these; the specs serve them (tests/e2e/support.ts, serveTiles).
    SVC_MAP_TILES_URL: 'https://tiles.e2e.test/{z}/{x}/{y}.png',
    SVC_MAP_TILES_ATTRIBUTION: '© E2E tiles',
    // The console's webhook spec posts to a receiver it runs on 127.0.0.1 (the SSRF guard refuses
    // private addresses when this is false, as in production); the delivery worker runs in the
    // server by default (SVC_WEBHOOK_WORKER).
    SVC_ALLOW_PRIVATE_WEBHOOKS: 'true',
  }),
});
