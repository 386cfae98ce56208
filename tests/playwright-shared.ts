// What both Playwright configs (playwright.config.ts, playwright.wordpress.config.ts) share: Debian's
// Chromium and its switches, the svc server's port and data directory, and how it is started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Debian's Chromium (Playwright's own download does not work here): no sandbox (root in CI), no
 * GPU, nothing that reaches out to the network on its own. */
export const CHROMIUM_LAUNCH = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/**
 * 3100 unless SVC_E2E_PORT says otherwise (two runs on one machine). The demo's embed origins
 * name 127.0.0.1:3100, so the cross-origin embed specs need the default; the hosted-site specs
 * (same-origin on demo.localhost) run on any port.
 */
export const E2E_PORT = Number(process.env.SVC_E2E_PORT ?? 3100);

/**
 * A fresh data directory per run (so the server seeds the demo community). A config is evaluated
 * by the runner and again by every worker; workers inherit the runner's environment, so the
 * directory is created once per run.
 */
export function e2eDataDir(prefix: string): string {
  process.env.SVC_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return process.env.SVC_E2E_DATA_DIR;
}

/** The svc server on E2E_PORT, the platform at http://localhost:<port>, with extra environment. */
export function svcWebServer(dataDir: string, env: Record<string, string> = {}) {
  return {
    command: 'node_modules/.bin/tsx server/main.ts',
    url: `http://127.0.0.1:${E2E_PORT}/readyz`,
    env: {
      PORT: String(E2E_PORT),
      SVC_PUBLIC_URL: `http://localhost:${E2E_PORT}`,
      SVC_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...env,
    },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  };
}
