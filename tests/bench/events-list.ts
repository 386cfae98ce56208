// npm run bench: the events list against an Express hello-world baseline, in one run, each
// server in its own process and autocannon in this one. Prints req/s, p99 and the ratio. The
// target compares the server as configured by default (read cache on); a second svc process
// with the key and read caches off shows what the database path costs on its own.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, measure, row, start } from './load.ts';

const TARGET_RATIO = 0.6;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const uncachedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const svcPort = '3902';
  const uncachedPort = '3903';
  const children: ChildProcess[] = [];
  try {
    children.push(await start('tests/bench/hello-server.ts', { PORT: '3901' }, 'http://127.0.0.1:3901/'));
    children.push(
      await start(
        'server/main.ts',
        {
          PORT: svcPort,
          SVC_DATA_DIR: dataDir,
          SVC_PUBLIC_URL: `http://127.0.0.1:${svcPort}`,
          // The limiter stays in the path; its budget is raised so it measures the work, not 429s.
          RATE_LIMIT_PUBLISHABLE_PER_SEC: '1000000',
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
          DATABASE_URL: process.env.DATABASE_URL ?? '',
        },
        `http://127.0.0.1:${svcPort}/readyz`,
      ),
    );
    children.push(
      await start(
        'server/main.ts',
        {
          PORT: uncachedPort,
          SVC_DATA_DIR: uncachedDir,
          SVC_PUBLIC_URL: `http://127.0.0.1:${uncachedPort}`,
          RATE_LIMIT_PUBLISHABLE_PER_SEC: '1000000',
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
          SVC_READ_CACHE_MS: '0',
          SVC_KEY_CACHE_MS: '0',
          DATABASE_URL: process.env.DATABASE_URL ?? '',
        },
        `http://127.0.0.1:${uncachedPort}/readyz`,
      ),
    );
    const keyOf = async (port: string) =>
      (await (await fetch(`http://127.0.0.1:${port}/v1/communities/demo/publishable-key`)).json())
        .publishableKey as string;
    const pk = await keyOf(svcPort);
    const uncachedPk = await keyOf(uncachedPort);

    const baseline = await measure('express hello-world', 'http://127.0.0.1:3901/');
    const events = await measure(
      'GET /v1/communities/demo/events?limit=20 (pk key)',
      `http://127.0.0.1:${svcPort}/v1/communities/demo/events?limit=20`,
      { 'X-API-Key': pk },
    );
    const uncached = await measure(
      '  same, key and read caches off',
      `http://127.0.0.1:${uncachedPort}/v1/communities/demo/events?limit=20`,
      { 'X-API-Key': uncachedPk },
    );

    const ratio = events.reqPerSec / baseline.reqPerSec;
    process.stdout.write(
      `\n${CONNECTIONS} connections, ${DURATION} s each, ${os.cpus().length} cores, Node ${process.version}\n`,
    );
    process.stdout.write(`${row(baseline)}\n${row(events)}\n${row(uncached)}\n`);
    process.stdout.write(
      `ratio: ${(ratio * 100).toFixed(1)}% of baseline (target ${TARGET_RATIO * 100}%): ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}\n`,
    );
    if (events.non2xx > 0) process.stdout.write('warning: the events run had non-2xx responses\n');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    for (const dir of [dataDir, uncachedDir]) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
