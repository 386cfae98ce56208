// The process as `npm start` runs it: config -> database -> migrations -> seed -> listen, and a
// graceful stop on SIGTERM.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function waitFor(url: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try { if ((await fetch(url)).ok) return; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} never became ready`);
}

describe('server process: happy path', () => {
  it('starts on an empty data dir, seeds the demo, prints the demo URLs and stops cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proc-'));
    const port = String(3700 + Math.floor(Math.random() * 200));
    const p = run({ PORT: port, SVC_DATA_DIR: dir });
    try {
      await waitFor(`http://127.0.0.1:${port}/readyz`);
      expect(fs.existsSync(path.join(dir, 'svc.db'))).toBe(true);
      const key = await (await fetch(`http://127.0.0.1:${port}/v1/communities/demo/publishable-key`)).json();
      const events = await fetch(`http://127.0.0.1:${port}/v1/communities/demo/events?upcoming=true`, { headers: { 'X-API-Key': key.publishableKey } });
      expect(events.status).toBe(200);
      expect((await events.json()).length).toBeGreaterThan(0);
      expect(p.output()).toContain(`http://127.0.0.1:${port}/demo/`);
    } finally {
      p.child.kill('SIGTERM');
    }
    expect(await p.exited).toBe(0);
  });
});

describe('server process: errors', () => {
  it('refuses to start on bad configuration and names the variable', async () => {
    const p = run({ PORT: 'eighty' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/PORT:/);
    expect(p.output()).not.toMatch(/at .*\.ts:\d+/);
  });

  it('refuses SVC_TRUST_PROXY=true (every client could pick its IP) and says what to set instead', async () => {
    const p = run({ SVC_TRUST_PROXY: 'true' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('SVC_TRUST_PROXY: true would believe the X-Forwarded-For of every client');
    expect(p.output()).toContain('set the number of proxies in front of svc (e.g. 1 for one load balancer) or their addresses');
    expect(p.output()).not.toContain('svc is running');
  });
});
