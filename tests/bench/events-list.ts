// The events list against an Express hello-world baseline, in one run: each server in its own
// process, autocannon in this one, the demo community with 1,000 events (tests/bench/events-data.ts).
//   - the list as configured by default (read cache on): at least 0.6x the hello-world's req/s;
//   - the database path, key and read caches off: at least 0.5x, p99 under 25 ms at 50 connections;
//   - the same on PostgreSQL (a database of its own on BENCH_PG_URL, else DATABASE_URL, else
//     postgres://postgres@127.0.0.1:5432/test; dropped afterwards): at least 0.6x SQLite;
//   - the rate limiter, in memory and in Redis (REDIS_URL, else redis://127.0.0.1:6379): one check,
//     measured in this process, adds at most 10 % to the list's latency (one request at a time).
// A members-only event in a public list, or servers that disagree on X-Total-Count, are WRONG.
//   npx tsx tests/bench/events-list.ts      (or npm run bench, with the others)
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/index.ts';
import { createLogger } from '../../server/http/logger.ts';
import { connectRedis, createRateLimits, type RateLimits } from '../../server/http/rate-limit.ts';
import { CONNECTIONS, DURATION, measure, row, start, type Measurement } from './load.ts';
import { judge, report, type BenchRow } from './report.ts';
import { seedEventsBench } from './events-data.ts';

const CACHED_RATIO = 0.6;
const UNCACHED_RATIO = 0.5;
const UNCACHED_P99_MS = 25;
const POSTGRES_RATIO = 0.6;
const LIMITER_SHARE = 0.1;
const EVENTS = 1000;
const LIST = '/v1/communities/demo/events?limit=20';
const AREA = 'events list';
const PG_URL = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const x = (n: number) => `${n.toFixed(2)}x`;
const rps = (m: Measurement) => `${Math.round(m.reqPerSec).toLocaleString('en')} req/s`;

function svcEnv(port: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: port,
    SVC_DATA_DIR: dataDir,
    SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The limiter stays in the path; its budget is raised so it measures the work, not 429s.
    RATE_LIMIT_PUBLISHABLE_PER_SEC: '1000000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    DATABASE_URL: '',
    REDIS_URL: '',
    SVC_SEED_DEMO: 'false',
    // Nothing to deliver here; the workers would only take CPU from the servers being measured.
    SVC_WEBHOOK_WORKER: 'false',
    SVC_MAIL_WORKER: 'false',
    ...extra,
  };
}

async function startSvc(port: string, dataDir: string, extra: Record<string, string> = {}) {
  return start('server/main.ts', svcEnv(port, dataDir, extra), `http://127.0.0.1:${port}/readyz`);
}

async function publishableKey(port: string): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/v1/communities/demo/publishable-key`);
  return ((await r.json()) as { publishableKey: string }).publishableKey;
}

/** One page of the list, to check what the measured runs answered: its total and its slugs. */
async function firstPage(port: string, key: string): Promise<{ total: string | null; slugs: string[] }> {
  const r = await fetch(`http://127.0.0.1:${port}${LIST}`, { headers: { 'X-API-Key': key } });
  const body = (await r.json()) as { slug: string }[];
  return { total: r.headers.get('x-total-count'), slugs: body.map((e) => e.slug) };
}

/** Every 10th bench event is members-only (events-data.ts): a public list must never show one. */
const membersOnly = (slug: string) => /^bench-event-(\d+)$/.test(slug) && Number(slug.split('-').pop()) % 10 === 0;

/** A data directory of its own for one server (its database file, key file and mail). */
function dataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
}

async function seedSqlite(dir: string, port: string): Promise<void> {
  await seedEventsBench({ kind: 'sqlite', file: path.join(dir, 'svc.db') }, `http://127.0.0.1:${port}`, EVENTS);
}

/** A database of its own on the PostgreSQL server, or null (and why) when it cannot be reached. */
async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | { skipped: string }> {
  const name = `bench_events_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
  } catch (err) {
    await admin.end().catch(() => undefined);
    return { skipped: `PostgreSQL at ${PG_URL} unreachable (${(err as Error).message})` };
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * Queries one list request runs with the caches off: the app built in this process on the bench's
 * SQLite data, with every query counted.
 */
async function queriesPerRequest(dataDir: string, key: string): Promise<number> {
  let queries = 0;
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_READ_CACHE_MS: '0',
    SVC_KEY_CACHE_MS: '0',
    SVC_SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
  });
  const database = openDatabase(config.database, { onQuery: () => queries++ });
  const rateLimits = createRateLimits(config.rateLimits, null);
  const server = http.createServer(createApp({ config, database, logger: createLogger('silent'), rateLimits }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}${LIST}`;
    await fetch(url, { headers: { 'X-API-Key': key } });
    queries = 0;
    const r = await fetch(url, { headers: { 'X-API-Key': key } });
    if (!r.ok) throw new Error(`in-process list answered ${r.status}`);
    return queries;
  } finally {
    server.close();
    await rateLimits.close();
    await database.close();
  }
}

/**
 * The mean latency of `url`, one request at a time on a kept-alive connection, timed here to the
 * microsecond (autocannon's latencies are whole milliseconds).
 */
async function sequentialLatencyMs(url: string, key: string, seconds = 3): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers: { 'X-API-Key': key } }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`one-at-a-time run answered ${res.statusCode}`));
          res.resume().once('end', resolve);
        })
        .once('error', reject);
    });
  for (let i = 0; i < 200; i++) await once();
  let n = 0;
  const started = process.hrtime.bigint();
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    await once();
    n++;
  }
  agent.destroy();
  return Number(process.hrtime.bigint() - started) / 1e6 / n;
}

/**
 * The mean time of one limiter check as the API makes it (`consume` on the publishable bucket,
 * with its headers set on a real response), one at a time: what it adds to each request's latency.
 */
async function limiterCheckMs(rateLimits: RateLimits): Promise<number> {
  const res = new http.ServerResponse(new http.IncomingMessage(new net.Socket()));
  const key = `bench:${crypto.randomUUID()}`;
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) await rateLimits.consume('publishable', key, res as never);
  };
  await run(500);
  const n = 5000;
  const started = process.hrtime.bigint();
  await run(n);
  return Number(process.hrtime.bigint() - started) / 1e6 / n;
}

async function main() {
  const rows: BenchRow[] = [];
  const cachedDir = dataDir();
  const uncachedDir = dataDir();
  const postgresDir = dataDir();
  const children: ChildProcess[] = [];
  let postgres: Awaited<ReturnType<typeof postgresDatabase>> | null = null;
  try {
    await seedSqlite(cachedDir, '3902');
    await seedSqlite(uncachedDir, '3903');
    children.push(await start('tests/bench/hello-server.ts', { PORT: '3901' }, 'http://127.0.0.1:3901/'));
    const cached = await startSvc('3902', cachedDir);
    children.push(cached);
    children.push(await startSvc('3903', uncachedDir, { SVC_READ_CACHE_MS: '0', SVC_KEY_CACHE_MS: '0' }));
    const cachedKey = await publishableKey('3902');
    const uncachedKey = await publishableKey('3903');

    const baseline = await measure('express hello-world', 'http://127.0.0.1:3901/');
    const events = await measure(`GET ${LIST} (pk key)`, `http://127.0.0.1:3902${LIST}`, { 'X-API-Key': cachedKey });
    const uncached = await measure('  same, key and read caches off', `http://127.0.0.1:3903${LIST}`, {
      'X-API-Key': uncachedKey,
    });
    // One request at a time: the latency a limiter check is compared with.
    const singleMs = await sequentialLatencyMs(`http://127.0.0.1:3903${LIST}`, uncachedKey);
    const pages = [await firstPage('3902', cachedKey), await firstPage('3903', uncachedKey)];

    // PostgreSQL next, on the port the cached server had (the bench owns 3901-3903).
    cached.kill('SIGTERM');
    await new Promise((resolve) => cached.once('exit', resolve));
    postgres = await postgresDatabase();
    let onPostgres: Measurement | null = null;
    if ('url' in postgres) {
      await seedEventsBench({ kind: 'postgres', url: postgres.url }, 'http://127.0.0.1:3902', EVENTS);
      const child = await startSvc('3902', postgresDir, {
        DATABASE_URL: postgres.url,
        SVC_READ_CACHE_MS: '0',
        SVC_KEY_CACHE_MS: '0',
      });
      children.push(child);
      const pgKey = await publishableKey('3902');
      onPostgres = await measure('  same, caches off, PostgreSQL', `http://127.0.0.1:3902${LIST}`, {
        'X-API-Key': pgKey,
      });
      pages.push(await firstPage('3902', pgKey));
    }

    const queries = await queriesPerRequest(uncachedDir, uncachedKey);
    const memoryMs = await limiterCheckMs(createRateLimits({ ...limits }, null));
    let redisMs: number | string;
    const redis = connectRedis(REDIS_URL);
    try {
      await new Promise<void>((resolve, reject) => {
        redis.once('ready', () => resolve());
        redis.once('error', reject);
      });
      redisMs = await limiterCheckMs(createRateLimits({ ...limits }, redis, `svc:bench:${crypto.randomUUID()}`));
    } catch (err) {
      redisMs = `Redis at ${REDIS_URL} unreachable (${(err as Error).message})`;
    } finally {
      redis.disconnect();
    }

    process.stdout.write(
      `\n${CONNECTIONS} connections, ${DURATION} s each, ${os.cpus().length} cores, Node ${process.version}, ${EVENTS} events\n`,
    );
    for (const m of [baseline, events, uncached, onPostgres]) if (m) process.stdout.write(`${row(m)}\n`);
    process.stdout.write(`  same, caches off, one request at a time: mean ${singleMs.toFixed(3)} ms\n`);

    const ratio = events.reqPerSec / baseline.reqPerSec;
    // Figures short enough for the table's column (report.ts); the lines above have the rest.
    rows.push({
      area: AREA,
      measure: 'express hello-world (the baseline of this run)',
      figure: `${rps(baseline)}, p99 ${baseline.p99} ms`,
      goal: '',
      verdict: 'info',
    });
    rows.push({
      area: AREA,
      measure: `GET ${LIST}, ${EVENTS} events, read cache on`,
      figure: `${rps(events)} = ${x(ratio)}, p99 ${events.p99} ms`,
      goal: `≥ ${CACHED_RATIO}x hello-world`,
      verdict: judge(ratio >= CACHED_RATIO),
    });
    const uncachedRatio = uncached.reqPerSec / baseline.reqPerSec;
    rows.push({
      area: AREA,
      measure: 'same, SVC_READ_CACHE_MS=0 SVC_KEY_CACHE_MS=0',
      figure: `${rps(uncached)} = ${x(uncachedRatio)}, p99 ${uncached.p99} ms`,
      goal: `≥ ${UNCACHED_RATIO}x hello-world, p99 < ${UNCACHED_P99_MS} ms at ${CONNECTIONS} conn.`,
      verdict: judge(uncachedRatio >= UNCACHED_RATIO && uncached.p99 < UNCACHED_P99_MS),
    });
    if (onPostgres) {
      const pgRatio = onPostgres.reqPerSec / uncached.reqPerSec;
      rows.push({
        area: AREA,
        measure: 'same, caches off, PostgreSQL vs SQLite',
        figure: `${rps(onPostgres)} = ${x(pgRatio)}, p99 ${onPostgres.p99} ms`,
        goal: `≥ ${POSTGRES_RATIO}x SQLite`,
        verdict: judge(pgRatio >= POSTGRES_RATIO),
      });
    } else {
      rows.push({
        area: AREA,
        measure: 'same, caches off, PostgreSQL',
        figure: (postgres as { skipped: string }).skipped,
        goal: '',
        verdict: 'info',
      });
    }
    rows.push({
      area: AREA,
      measure: 'queries per list request, caches off (SQLite)',
      figure: String(queries),
      goal: '',
      verdict: 'info',
    });
    for (const [kind, ms] of [
      ['in memory', memoryMs],
      ['in Redis', redisMs],
    ] as const) {
      if (typeof ms === 'string') {
        rows.push({ area: AREA, measure: `rate limiter ${kind}`, figure: ms, goal: '', verdict: 'info' });
        continue;
      }
      const share = ms / singleMs;
      rows.push({
        area: AREA,
        measure: `rate limiter ${kind}: one check vs the list's ${singleMs.toFixed(2)} ms (1 conn.)`,
        // Judged against one request at a time, the strictest reading; at 50 connections (printed
        // after it) the same check is a far smaller share of a request's latency.
        figure: `${(ms * 1000).toFixed(0)} µs: ${(share * 100).toFixed(1)} % (${((100 * ms) / uncached.mean).toFixed(1)} % at ${CONNECTIONS})`,
        goal: `≤ ${LIMITER_SHARE * 100} % of the list's latency`,
        verdict: judge(share <= LIMITER_SHARE),
      });
    }

    const failures = [baseline, events, uncached, onPostgres].reduce((n, m) => n + (m?.non2xx ?? 0), 0);
    const shown = pages.flatMap((p) => p.slugs).filter(membersOnly);
    const totals = [...new Set(pages.map((p) => p.total))];
    rows.push({
      area: AREA,
      measure: 'answers: all 2xx, no members-only event, one X-Total-Count',
      figure: `${failures} failed, ${shown.length} hidden shown, total ${totals.join('/')}`,
      goal: '0, 0, the same on every server',
      verdict: failures === 0 && shown.length === 0 && totals.length === 1 && totals[0] !== null ? 'met' : 'WRONG',
    });
  } finally {
    for (const c of children) c.kill('SIGTERM');
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(running.map((c) => new Promise((resolve) => c.once('exit', resolve))));
    if (postgres && 'drop' in postgres) await postgres.drop();
    for (const dir of [cachedDir, uncachedDir, postgresDir]) fs.rmSync(dir, { recursive: true, force: true });
  }
  report(rows);
}

/** The limiter's budgets in the bench's checks: high enough that no check is refused. */
const limits = {
  publishablePerSec: 1_000_000,
  secretPerSec: 1_000_000,
  anonymousPerSec: 1_000_000,
  authFailuresPerMin: 1_000_000,
};

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
