// The process as `npm start` runs it: config -> database -> migrations -> seed -> listen, and a
// graceful stop on SIGTERM.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rawExchange, rawRequest } from './support/raw-http.ts';
import { runServer as run, waitFor } from './support/server-process.ts';

describe('server process: happy path', () => {
  it('starts on an empty data dir, seeds the demo, prints the demo URLs and stops cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proc-'));
    const port = String(3700 + Math.floor(Math.random() * 200));
    const p = run({ PORT: port, SVC_DATA_DIR: dir });
    try {
      await waitFor(`http://127.0.0.1:${port}/readyz`);
      expect(fs.existsSync(path.join(dir, 'svc.db'))).toBe(true);
      const key = await (await fetch(`http://127.0.0.1:${port}/v1/communities/demo/publishable-key`)).json();
      const events = await fetch(`http://127.0.0.1:${port}/v1/communities/demo/events?upcoming=true`, {
        headers: { 'X-API-Key': key.publishableKey },
      });
      expect(events.status).toBe(200);
      expect((await events.json()).length).toBeGreaterThan(0);
      expect(p.output()).toContain(`http://127.0.0.1:${port}/demo/`);
      expect(p.output()).toContain(`http://demo.localhost:${port}/\n`);
      // What it prints is the demo's site (fetch would not send that Host).
      const site = await rawRequest(port, 'GET', '/', { Host: `demo.localhost:${port}` });
      expect(site.status).toBe(200);
      expect(site.text).toContain('Demo Hikers');
      // The process runs the server of server/http/http-server.ts: Node's own refusals come as the envelope.
      const tooLarge = await rawExchange(port, [
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
      ]);
      expect(tooLarge.status).toBe(431);
      expect(tooLarge.body).toEqual({
        error: expect.any(String),
        code: 'HEADERS_TOO_LARGE',
        requestId: tooLarge.headers['x-request-id'],
      });
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
    expect(p.output()).toContain(
      'set the number of proxies in front of svc (e.g. 1 for one load balancer) or their addresses',
    );
    expect(p.output()).not.toContain('svc is running');
  });
});
