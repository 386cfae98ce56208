// npm run bench, webhook case: the outbox and the delivery worker on one process (this one) to
// a receiver in a child process (webhook-receiver.ts), on SQLite and on PostgreSQL.
//   emit:    N events, each emit()ted in its own transaction() as a request would, to a community
//            with one subscribed endpoint, the worker not running; once with one emitter, once
//            with several concurrent ones. Reports events/s.
//   deliver: a DeliveryWorker started over that backlog (both runs above), timed until no
//            delivery is pending. Every delivery must then be SUCCEEDED with one recorded attempt
//            and the receiver must have counted exactly that many requests; anything else is
//            reported as WRONG and the bench exits 1. Run at a few worker concurrencies, the
//            backlog re-armed in between (and on PostgreSQL vacuumed and analyzed before each
//            run, so every run starts from the same table state). Reports deliveries/s.
// Settings: BENCH_WEBHOOK_EVENTS (5000), BENCH_WEBHOOK_EMITTERS (8), BENCH_WEBHOOK_CONCURRENCY
// (16,64,128), BENCH_WEBHOOK_DBS (sqlite,postgres), BENCH_PG_URL or DATABASE_URL
// (postgres://postgres@127.0.0.1:5432/test; the bench works in a schema of its own and drops it).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../server/config.ts';
import {
  migrate,
  openDatabase,
  transaction,
  type DatabaseHandle,
  type DatabaseTarget,
  type Db,
} from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { emitMany } from './emit-events.ts';
import { judge, report, type BenchRow } from './report.ts';
import { createLogger } from '../../server/http/logger.ts';
import { createEndpoint } from '../../server/webhooks/endpoints.ts';
import { SecretBox } from '../../server/webhooks/secret-box.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
const EMITTERS = Number(process.env.BENCH_WEBHOOK_EMITTERS ?? 8);
const CONCURRENCIES = (process.env.BENCH_WEBHOOK_CONCURRENCY ?? '16,64,128').split(',').map(Number);
const DBS = (process.env.BENCH_WEBHOOK_DBS ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.BENCH_PG_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const TARGET_DELIVERIES_PER_SEC = 1000;
const DELIVER_DEADLINE_MS = 300_000;

interface Row {
  title: string;
  rate: number;
  unit: string;
  note: string;
  problem?: string | null;
}

/** Undo steps, run newest first by cleanup(), on success, failure or Ctrl-C. */
const undo: Array<() => Promise<void> | void> = [];
let interrupted = false;
async function cleanup(): Promise<void> {
  while (undo.length > 0) {
    try {
      await undo.pop()!();
    } catch (err) {
      process.stderr.write(`cleanup: ${(err as Error).message}\n`);
    }
  }
}

interface ReceiverProcess {
  url: string;
  count(): Promise<number>;
  alive(): boolean;
}

async function startReceiver(): Promise<ReceiverProcess> {
  // stdin stays a pipe: the receiver exits when it closes, even if this process is killed.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/webhook-receiver.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  undo.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the webhook receiver did not start')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /ready (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the webhook receiver exited with ${code}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/hooks`,
    count: async () => ((await (await fetch(`${base}/count`)).json()) as { count: number }).count,
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}

/** A temporary SQLite file, or a fresh schema on the PostgreSQL server; null when PostgreSQL is unreachable. */
async function openTarget(kind: string): Promise<DatabaseHandle | null> {
  let target: DatabaseTarget;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-webhooks-'));
    undo.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    target = { kind: 'sqlite', file: path.join(dir, 'svc.db') };
  } else if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_URL });
    try {
      await admin.connect();
    } catch (err) {
      process.stdout.write(`postgres: skipped, cannot connect to ${PG_URL} (${(err as Error).message})\n`);
      return null;
    }
    const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
    await admin.query(`create schema "${schema}"`);
    undo.push(async () => {
      try {
        await admin.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await admin.end();
      }
    });
    target = { kind: 'postgres', url: PG_URL, schema };
  } else {
    throw new Error(`unknown database ${kind} in BENCH_WEBHOOK_DBS (sqlite, postgres)`);
  }
  const database = openDatabase(target);
  undo.push(() => database.close());
  await migrate(database.db);
  return database;
}

async function setUp(db: Db, receiverUrl: string) {
  const id = newId();
  const tag = 'bench';
  await db
    .insertInto('communities')
    .values({
      id,
      tag,
      name: 'Bench',
      visibility: 'PUBLIC',
      accessibility: 'OPEN',
      page_settings: '[]',
      storefront_config: '{}',
      theme_config: '{}',
      features: '[]',
      landing_url: null,
      embed_origins: '[]',
      rules_version: 1,
      founder_user_id: null,
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
  const secrets = new SecretBox(crypto.randomBytes(32));
  await createEndpoint(
    db,
    secrets,
    { allowPrivate: true, lookup: async () => [] },
    { communityId: id, url: receiverUrl, events: ['*'] },
  );
  return { community: { id, tag }, secrets };
}

async function countWhere(db: Db, table: 'webhook_deliveries' | 'webhook_attempts', status?: string): Promise<number> {
  let q = db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (status) q = q.where('status' as any, '=', status);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/**
 * Starts a worker over the pending backlog and times it until nothing is pending. Returns
 * deliveries/s, and what went wrong if any delivery did not end SUCCEEDED after exactly one
 * request and one recorded attempt (a lost or a duplicated delivery).
 */
async function deliverAll(
  database: DatabaseHandle,
  secrets: SecretBox,
  receiver: ReceiverProcess,
  concurrency: number,
): Promise<{ rate: number; problem: string | null }> {
  const { db } = database;
  const total = await countWhere(db, 'webhook_deliveries', 'PENDING');
  if (database.dialect === 'postgres') await sql`vacuum analyze webhook_deliveries, webhook_attempts`.execute(db);
  const seenBefore = await receiver.count();
  const worker = new DeliveryWorker({
    db,
    dialect: database.dialect,
    secrets,
    logger: createLogger(process.env.BENCH_LOG_LEVEL ?? 'warn'),
    // The server's defaults (retry schedule and all) but for the receiver on 127.0.0.1 and the concurrency under test.
    config: { ...loadConfig({}).webhooks, allowPrivate: true, timeoutMs: 10_000, concurrency, pollMs: 50 },
  });
  const stopWorker = () => worker.stop();
  undo.push(stopWorker);
  const started = performance.now();
  worker.start();
  let elapsed: number;
  try {
    for (;;) {
      if ((await countWhere(db, 'webhook_deliveries', 'PENDING')) === 0) break;
      if (!receiver.alive()) throw new Error('the webhook receiver exited during the run');
      if (performance.now() - started > DELIVER_DEADLINE_MS)
        throw new Error(`deliveries still pending after ${DELIVER_DEADLINE_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 25));
    }
    elapsed = performance.now() - started;
  } finally {
    undo.splice(undo.indexOf(stopWorker), 1);
    await worker.stop();
  }
  const succeeded = await countWhere(db, 'webhook_deliveries', 'SUCCEEDED');
  const attempts = await countWhere(db, 'webhook_attempts');
  const seen = (await receiver.count()) - seenBefore;
  const problem =
    succeeded !== total || attempts !== total || seen !== total
      ? `${total} deliveries: ${succeeded} SUCCEEDED, ${attempts} attempts recorded, the receiver saw ${seen} requests`
      : null;
  return { rate: total / (elapsed / 1000), problem };
}

/** Makes every delivery due again, as if just emitted, so the next run has the same backlog. */
async function rearm(database: DatabaseHandle): Promise<void> {
  const now = nowIso();
  await transaction(database.db, async (trx) => {
    await trx.deleteFrom('webhook_attempts').execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'PENDING',
        attempts: 0,
        total_attempts: 0,
        round: 1,
        lease_token: null,
        previous_lease_token: null,
        next_attempt_at: now,
        last_attempt_at: null,
        last_status_code: null,
        last_error: null,
        updated_at: now,
      })
      .execute();
  });
}

async function benchDatabase(kind: string, receiver: ReceiverProcess): Promise<Row[]> {
  const database = await openTarget(kind);
  if (!database) return [];
  const { db } = database;
  const { community, secrets } = await setUp(db, receiver.url);
  const rows: Row[] = [];
  const one = await emitMany(db, community, EVENTS, 1);
  rows.push({
    title: `${kind}: emit, 1 emitter`,
    rate: one,
    unit: 'events/s',
    note: `${EVENTS} events, 1 delivery each`,
  });
  const many = await emitMany(db, community, EVENTS, EMITTERS);
  rows.push({
    title: `${kind}: emit, ${EMITTERS} concurrent emitters`,
    rate: many,
    unit: 'events/s',
    note: `${EVENTS} events, 1 delivery each`,
  });
  const backlog = 2 * EVENTS;
  for (const [i, concurrency] of CONCURRENCIES.entries()) {
    if (i > 0) await rearm(database);
    const { rate, problem } = await deliverAll(database, secrets, receiver, concurrency);
    rows.push({
      title: `${kind}: deliver, worker concurrency ${concurrency}`,
      rate,
      unit: 'deliveries/s',
      note: problem ? `WRONG: ${problem}` : `${backlog} deliveries, each sent and recorded once`,
      problem,
    });
  }
  return rows;
}

async function main() {
  const receiver = await startReceiver();
  const rows: Row[] = [];
  for (const kind of DBS) rows.push(...(await benchDatabase(kind, receiver)));
  process.stdout.write(
    `\nwebhooks: one worker process to a receiver process, ${os.cpus().length} cores, Node ${process.version}\n`,
  );
  for (const r of rows) {
    process.stdout.write(`${r.title.padEnd(52)} ${r.rate.toFixed(0).padStart(8)} ${r.unit.padEnd(12)} ${r.note}\n`);
  }
  // The shared table: every run as info, a lost or doubled delivery as WRONG, and the goal.
  const table: BenchRow[] = rows.map((r) => ({
    area: 'webhooks',
    measure: r.title,
    figure: `${r.rate.toFixed(0)} ${r.unit}`,
    goal: r.problem ? 'each delivery once' : '',
    verdict: r.problem ? 'WRONG' : 'info',
  }));
  const pgRuns = rows.filter((r) => r.title.startsWith('postgres: deliver') && !r.problem);
  if (pgRuns.length > 0) {
    const best = Math.max(...pgRuns.map((r) => r.rate));
    process.stdout.write(
      `postgres deliveries: best ${best.toFixed(0)}/s (target ${TARGET_DELIVERIES_PER_SEC}/s): ${best >= TARGET_DELIVERIES_PER_SEC ? 'met' : 'NOT met'}\n`,
    );
    table.push({
      area: 'webhooks',
      measure: 'postgres: deliver, best worker concurrency',
      figure: `${best.toFixed(0)} deliveries/s`,
      goal: `≥ ${TARGET_DELIVERIES_PER_SEC}/s`,
      verdict: judge(best >= TARGET_DELIVERIES_PER_SEC),
    });
  }
  report(table);
  if (rows.some((r) => r.problem)) {
    process.stdout.write(
      'error: some deliveries were lost or sent more than once (see WRONG above; the worker log says why)\n',
    );
    process.exitCode = 1;
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`${signal}: cleaning up\n`);
    cleanup().finally(() => process.exit(130));
  });
}

main()
  .then(cleanup)
  .catch(async (err) => {
    // After Ctrl-C the run fails on the database closed under it; that is not news.
    if (interrupted) return;
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    await cleanup();
    process.exit(1);
  });
