// The WordPress plugin against a real WordPress (issue 19): Debian's WordPress 6.1 served by
// `php -S` (integrations/wordpress/test-site/, set up by `npm run test:wordpress` before this runs)
// with the plugin of this worktree, and the svc server as in playwright.config.ts. Pages are opened
// on the WordPress origin (http://127.0.0.1:<wp port>); the widgets call the platform on
// http://localhost:<svc port>, a cross-origin embed as on a customer's site.
import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH, e2eDataDir, svcWebServer } from './tests/playwright-shared.ts';

export const WP_PORT = Number(process.env.SVC_WP_PORT ?? 8100);

export default defineConfig({
  testDir: 'tests/wordpress',
  outputDir: 'test-results/e2e-wordpress-artifacts',
  // One WordPress. Tests that keep to their own post (a role per user, each its own post) run two
  // at a time; the ones tagged @site-wide (SITE_WIDE in tests/wordpress/support.ts: a theme switch,
  // template parts, Settings → svc, the DISALLOW_UNFILTERED_HTML flag) one at a time, after them.
  workers: 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // wp-admin on `php -S` is slow to first paint (the block editor loads ~100 scripts).
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e-wordpress.json' }]],
  projects: [
    // Imports the community and configures the plugin through Settings → svc (the Administrator's
    // real login), and saves each role's signed-in cookies (auth.setup.ts); everything else needs
    // both.
    { name: 'setup', testMatch: /\.setup\.ts/, fullyParallel: true },
    {
      name: 'own-post',
      testMatch: /\.spec\.ts/,
      grepInvert: /@site-wide/,
      fullyParallel: true,
      dependencies: ['setup'],
    },
    {
      name: 'site-wide',
      testMatch: /\.spec\.ts/,
      grep: /@site-wide/,
      workers: 1,
      dependencies: ['own-post'],
    },
  ],
  use: {
    baseURL: `http://127.0.0.1:${WP_PORT}`,
    browserName: 'chromium',
    locale: 'en-US',
    timezoneId: 'UTC',
    actionTimeout: 20_000,
    trace: 'retain-on-failure',
    launchOptions: CHROMIUM_LAUNCH,
  },
  webServer: [
    svcWebServer(e2eDataDir('svc-e2e-wp-')),
    {
      command: 'bash integrations/wordpress/test-site/serve.sh',
      url: `http://127.0.0.1:${WP_PORT}/wp-login.php`,
      // Two block editors at once, each sending requests in parallel: more than serve.sh's four.
      env: { SVC_WP_PORT: String(WP_PORT), PHP_CLI_SERVER_WORKERS: '8' },
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
