// npm run bench, the chrome proxy (docs/chrome-proxy.md, "Performance"): in one run, on this machine,
// a community whose BLOG is external, its landing site tests/bench/upstream-server.ts (a 100 KB
// blog page), each server in its own process and autocannon in this one:
//   1. cache off (the upstream page is `no-store`, so neither cache may keep it): p50 latency of one
//      visitor at a time through the proxy against fetching the page directly (target at most 5 ms
//      above), and throughput at 50 connections (target at least 0.5x the direct fetch);
//   2. cache on (the page is fresh for an hour): anonymous throughput against the Express
//      hello-world (target at least 0.5x);
//   3. memory: 1,000 visitors at once on a slow upstream page (headers after 2 s, the body over 2
//      more): the proxy's RSS growth (target under 50 MB);
//   4. the rewrite alone: prepareHtml on the 100 KB page, in this process.
// It prints what it measured and whether each target was met; it does not fail the process on a
// missed target (one run on a shared 2-core machine is a measurement, not a gate).
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { prepareHtml } from '../../server/site/proxy/rewrite.ts';
import { benchPort, CONNECTIONS, DURATION, measure, row, start } from './load.ts';
import { judge, report, type BenchRow } from './report.ts';

const TARGETS = { p50AddedMs: 5, ratioDirect: 0.5, ratioHello: 0.5, rssGrowthMb: 50 };
const SVC_PORT = benchPort(22);
const UPSTREAM_PORT = benchPort(21);
const HELLO_PORT = benchPort(11);
const SLOW_MS = 2000;
const VISITORS = 1000;

const verdict = judge;
const out = (line: string) => process.stdout.write(`${line}\n`);
const rows: BenchRow[] = [];
const add = (measure: string, figure: string, goal: string, ok: boolean | null) =>
  rows.push({ area: 'chrome proxy', measure, figure, goal, verdict: ok === null ? 'info' : judge(ok) });

/** One connection, one request at a time: what a visitor waits, without queueing behind others. */
async function latency(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, headers, connections: 1, duration: 2 });
  const r = await autocannon({ url, headers, connections: 1, duration: Math.max(3, DURATION / 2) });
  return { p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** `count` visitors at once on `path`, while the server's RSS is sampled: its peak, and how they fared. */
async function concurrentVisitors(pid: number, path: string, count: number) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);
  const statuses = new Map<number, number>();
  const started = Date.now();
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          http
            .get(
              { host: '127.0.0.1', port: SVC_PORT, path, agent, headers: { Host: `bench.localhost:${SVC_PORT}` } },
              (res) => {
                res.resume();
                res.on('end', () => {
                  statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
                  resolve();
                });
              },
            )
            .on('error', () => {
              statuses.set(0, (statuses.get(0) ?? 0) + 1);
              resolve();
            });
        }),
    ),
  );
  clearInterval(sampler);
  return { peak, statuses, seconds: (Date.now() - started) / 1000 };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-proxy-'));
  const children: ChildProcess[] = [];
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_PUBLIC_URL: `http://127.0.0.1:${SVC_PORT}`,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SVC_SEED_DEMO: 'false',
    // The embedded default: this measures the proxy, not a database.
    DATABASE_URL: '',
  };
  try {
    children.push(await start('tests/bench/hello-server.ts', { PORT: HELLO_PORT }, `http://127.0.0.1:${HELLO_PORT}/`));
    children.push(
      await start(
        'tests/bench/upstream-server.ts',
        { PORT: UPSTREAM_PORT, SLOW_MS: String(SLOW_MS) },
        `http://127.0.0.1:${UPSTREAM_PORT}/site/blog/cached`,
      ),
    );
    const svc = await start('server/main.ts', { ...env, PORT: SVC_PORT }, `http://127.0.0.1:${SVC_PORT}/readyz`);
    children.push(svc);
    const fixture = path.join(dataDir, 'bench.json');
    fs.writeFileSync(
      fixture,
      JSON.stringify({
        communities: [
          {
            tag: 'bench',
            name: 'Bench Hikers',
            visibility: 'PUBLIC',
            accessibility: 'OPEN',
            founder: 'bench-founder',
            users: [
              {
                email: 'founder@bench.example',
                name: 'Bench Founder',
                usertag: 'bench-founder',
                password: 'bench-password-1',
              },
            ],
            landingUrl: `http://127.0.0.1:${UPSTREAM_PORT}/site`,
            storefrontConfig: { chromeProxy: { enabled: true, headless: false }, externalPages: ['BLOG'] },
          },
        ],
      }),
    );
    const imported = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/index.ts', 'import', fixture], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`);

    const host = { Host: `bench.localhost:${SVC_PORT}` };
    const direct = `http://127.0.0.1:${UPSTREAM_PORT}/site/blog/nocache`;
    const proxied = `http://127.0.0.1:${SVC_PORT}/blog/nocache`;
    const check = await fetch(direct);
    const upstreamBytes = (await check.text()).length;
    out(
      `\nchrome proxy: a ${(upstreamBytes / 1024).toFixed(0)} KB upstream page; ${os.cpus().length} cores, Node ${process.version}`,
    );

    // 1. Cache off.
    const directLatency = await latency(direct);
    const proxiedLatency = await latency(proxied, host);
    const added = proxiedLatency.p50 - directLatency.p50;
    out(
      `cache off, one visitor at a time: p50 ${proxiedLatency.p50} ms through the proxy, ${directLatency.p50} ms direct ` +
        `(p99 ${proxiedLatency.p99} / ${directLatency.p99}); added ${added.toFixed(1)} ms (target at most ${TARGETS.p50AddedMs}): ` +
        `${verdict(added <= TARGETS.p50AddedMs)}`,
    );
    add(
      'cache off, one visitor: p50 added to the direct fetch',
      `+${added.toFixed(1)} ms (${proxiedLatency.p50} vs ${directLatency.p50})`,
      `≤ ${TARGETS.p50AddedMs} ms`,
      added <= TARGETS.p50AddedMs,
    );
    const directLoad = await measure('direct fetch of the upstream page', direct);
    const proxiedLoad = await measure('GET /blog/nocache through the proxy (cache off)', proxied, host);
    out(`${CONNECTIONS} connections, ${DURATION} s each:`);
    out(row(directLoad));
    out(row(proxiedLoad));
    const ratioDirect = proxiedLoad.reqPerSec / directLoad.reqPerSec;
    out(
      `cache off throughput: ${(ratioDirect * 100).toFixed(1)}% of the direct fetch (target ${TARGETS.ratioDirect * 100}%): ` +
        `${verdict(ratioDirect >= TARGETS.ratioDirect)}`,
    );
    add(
      `cache off, ${CONNECTIONS} conn.: vs the direct fetch`,
      `${proxiedLoad.reqPerSec.toFixed(0)} req/s (${ratioDirect.toFixed(2)}x)`,
      `≥ ${TARGETS.ratioDirect}x direct`,
      ratioDirect >= TARGETS.ratioDirect,
    );

    // 2. Cache on, as a browser asks (the anonymous page is kept gzipped).
    const hello = await measure('express hello-world', `http://127.0.0.1:${HELLO_PORT}/`);
    const cached = await measure(
      'GET /blog/cached through the proxy (cache on)',
      `http://127.0.0.1:${SVC_PORT}/blog/cached`,
      {
        ...host,
        'Accept-Encoding': 'gzip, deflate, br',
      },
    );
    out(row(hello));
    out(row(cached));
    const ratioHello = cached.reqPerSec / hello.reqPerSec;
    out(
      `cache on throughput: ${(ratioHello * 100).toFixed(1)}% of hello-world (target ${TARGETS.ratioHello * 100}%): ` +
        `${verdict(ratioHello >= TARGETS.ratioHello)}`,
    );
    add(
      `cache on, ${CONNECTIONS} conn.: vs hello-world`,
      `${cached.reqPerSec.toFixed(0)} req/s (${ratioHello.toFixed(2)}x)`,
      `≥ ${TARGETS.ratioHello}x hello-world`,
      ratioHello >= TARGETS.ratioHello,
    );

    // 3. Memory under many slow upstream answers.
    const before = rssMb(svc.pid!);
    const slow = await concurrentVisitors(svc.pid!, '/blog/slow', VISITORS);
    const growth = slow.peak - before;
    out(
      `${VISITORS} visitors at once on a slow upstream page (${SLOW_MS} ms to headers, ${SLOW_MS} ms more to the end): ` +
        `RSS ${before.toFixed(0)} MB before, peak ${slow.peak.toFixed(0)} MB, growth ${growth.toFixed(0)} MB ` +
        `(target under ${TARGETS.rssGrowthMb} MB): ${verdict(growth < TARGETS.rssGrowthMb)}; ` +
        `answers ${[...slow.statuses].map(([s, n]) => `${s}x${n}`).join(' ')} in ${slow.seconds.toFixed(1)} s`,
    );
    add(
      `${VISITORS} visitors on a slow upstream: RSS growth`,
      `${growth.toFixed(0)} MB`,
      `< ${TARGETS.rssGrowthMb} MB`,
      growth < TARGETS.rssGrowthMb,
    );

    // 4. The rewrite alone.
    const html = await (await fetch(direct)).text();
    const context = {
      upstreamUrl: new URL(direct),
      landing: new URL(`http://127.0.0.1:${UPSTREAM_PORT}/site`),
      servesPath: (p: string) => p === '/' || p.startsWith('/blog'),
      headless: false,
    };
    for (let i = 0; i < 50; i++) await prepareHtml(html, context);
    const rounds = 200;
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) await prepareHtml(html, context);
    const rewriteMs = (performance.now() - t0) / rounds;
    out(`the rewrite alone: ${rewriteMs.toFixed(2)} ms per 100 KB page (prepareHtml)`);
    add('the rewrite alone (prepareHtml), 100 KB page', `${rewriteMs.toFixed(2)} ms`, '', null);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  report(rows);
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
