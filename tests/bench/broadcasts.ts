// npm run bench, broadcasts (issue 17, "Performance"; docs in README.md, "Benchmark"): in one run,
// on SQLite and on PostgreSQL,
//   smtp:  N plain messages in the mail outbox, a MailDeliveryWorker in this process sending them
//          over its pooled SMTP transport to tests/bench/smtp-sink.ts (smtp-server in a child
//          process, accepting everything); timed from start until every message is recorded sent.
//          Target: at least 200 messages/s. Every row must then be sent after one attempt and the
//          sink must have received exactly one message per recipient, else an error (exit 1).
//          Works on the mail worker alone, before the broadcasts API exists.
//   queue: a community with 50,000 ACCEPTED members (written with multi-row inserts), the server
//          (server/main.ts) in a child process on that database, and one
//          POST /v1/communities/{tag}/broadcasts with a secret key holding WRITE_BROADCASTS.
//          Measures the POST's latency and the time from sending it until the dispatcher has
//          expanded the broadcast (broadcasts.expanded_at set; every outbox row written), and the
//          server process's RSS growth meanwhile (VmRSS sampled every 20 ms, against the
//          level just before the POST). Targets: at most 5 s and under 100 MB, on each database.
//          The dispatcher runs where the mail worker does, so the worker is on; by default its
//          SMTP server is a local port that accepts connections and never greets, so it holds
//          its first 5 messages until the greeting timeout and sends nothing while the queue
//          is measured (BENCH_BROADCAST_MAIL=eml writes .eml files alongside instead). There is
//          no `off`: SVC_MAIL_WORKER=false switches the dispatcher off too.
//   send:  the same server on a community of 5,000 members, its SMTP_URL the sink: one broadcast
//          from the POST until every message is sent (rendered by the mail worker, counted on
//          the broadcast). Target: at least 200 messages/s; the broadcast must end SENT with
//          5,000 sent, and the sink must have received one message per member, each with
//          List-Unsubscribe, else an error.
// It prints what it measured and whether each target was met; a missed target does not fail the
// process (one run on a shared 2-core machine is a measurement, not a gate). A lost or duplicated
// message, a broadcast never expanded, or a missing route does (exit 1).
// Settings: BENCH_BROADCAST_PARTS (smtp,queue,send), BENCH_BROADCAST_DBS (sqlite,postgres),
// BENCH_BROADCAST_SMTP_MESSAGES (5000), BENCH_BROADCAST_RECIPIENTS (50000),
// BENCH_BROADCAST_SEND_RECIPIENTS (5000), BENCH_BROADCAST_MAIL (stalled, eml), BENCH_PG_URL
// or DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; the bench works in a schema of its own
// and drops it).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
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
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { createLogger } from '../../server/http/logger.ts';
import { OutboxMailer } from '../../server/mail/mailer.ts';
import { smtpTransport } from '../../server/mail/smtp.ts';
import { MailDeliveryWorker } from '../../server/mail/worker.ts';
import { makeAcceptedMembers } from '../api/support/factory.ts';
import { OutboxSeal } from '../../server/outbox-seal.ts';
import { report, type BenchRow } from './report.ts';

const PARTS = (process.env.BENCH_BROADCAST_PARTS ?? 'smtp,queue,send').split(',');
const DBS = (process.env.BENCH_BROADCAST_DBS ?? 'sqlite,postgres').split(',');
const SMTP_MESSAGES = Number(process.env.BENCH_BROADCAST_SMTP_MESSAGES ?? 5000);
const RECIPIENTS = Number(process.env.BENCH_BROADCAST_RECIPIENTS ?? 50_000);
const SEND_RECIPIENTS = Number(process.env.BENCH_BROADCAST_SEND_RECIPIENTS ?? 5000);
const MAIL_MODE = process.env.BENCH_BROADCAST_MAIL ?? 'stalled';
const PG_URL = process.env.BENCH_PG_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const TARGETS = { smtpPerSec: 200, queueSeconds: 5, rssGrowthMb: 100 };
/** How long the bench waits for an outcome before calling it a failure (not a slow result). */
const SEND_DEADLINE_MS = 300_000;
const EXPAND_DEADLINE_MS = 120_000;
const FROM = 'Bench <no-reply@bench.test>';

const out = (line: string) => process.stdout.write(`${line}\n`);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

interface Line {
  title: string;
  value: string;
  target: string;
  /** null: nothing to judge (an informative line). */
  met: boolean | null;
}
const lines: Line[] = [];
/** What went wrong beyond a slow result: printed at the end, and the bench exits 1. */
const errors: string[] = [];

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

interface Opened {
  database: DatabaseHandle;
  /** The data directory (SQLite's file is svc.db in it; the server's key file goes there too). */
  dataDir: string;
  /** DATABASE_URL for a server process on the same data ('' for SQLite). */
  databaseUrl: string;
}

/** A temporary SQLite file, or a fresh schema on the PostgreSQL server; null when PostgreSQL is unreachable. */
async function openTarget(kind: string): Promise<Opened | null> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-broadcasts-'));
  undo.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let target: DatabaseTarget;
  let databaseUrl = '';
  if (kind === 'sqlite') {
    target = { kind: 'sqlite', file: path.join(dataDir, 'svc.db') };
  } else if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_URL });
    try {
      await admin.connect();
    } catch (err) {
      out(`postgres: skipped, cannot connect to ${PG_URL} (${(err as Error).message})`);
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
    // A server process reaches the same schema through the connection's search_path.
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  } else {
    throw new Error(`unknown database ${kind} in BENCH_BROADCAST_DBS (sqlite, postgres)`);
  }
  const database = openDatabase(target);
  undo.push(() => database.close());
  await migrate(database.db);
  return { database, dataDir, databaseUrl };
}

/** Starts `script` with stdin a pipe it exits on, and resolves with its first stdout line matching `ready`. */
function startChild(script: string, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  undo.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const m = ready.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}`));
    });
  });
}

const BODY_HTML =
  '<h1>News from the trail, {{name}}</h1>' +
  '<p>We walked the ridge on Saturday: frost on the grass at seven, the view open to the lakes by nine. ' +
  'Thanks to everyone who came, and to the volunteers who marked the route.</p>'.repeat(6) +
  '<ul><li>Next walk: the coast path, 14 km</li><li>Bring water and a layer</li><li>Dogs on leads</li></ul>' +
  '<p><a href="https://example.com/events/coast">Sign up for the coast walk</a></p>';
const BODY_TEXT = BODY_HTML.replace(/<[^>]+>/g, '\n').replace(/\n+/g, '\n');

// --- smtp --------------------------------------------------------------------------------------

async function smtpThroughput(kind: string, sink: Sink): Promise<void> {
  const opened = await openTarget(kind);
  if (!opened) return;
  const { db, dialect } = opened.database;
  const tag = crypto.randomBytes(4).toString('hex');
  // Written as the app writes mail (the outbox, in transactions), 500 per transaction.
  for (let i = 0; i < SMTP_MESSAGES; i += 500) {
    await transaction(db, async (trx) => {
      const mailer = new OutboxMailer(trx);
      for (let j = i; j < Math.min(i + 500, SMTP_MESSAGES); j++)
        await mailer.send({ to: `m${j}.${tag}@example.com`, subject: `News ${j}`, text: BODY_TEXT, html: BODY_HTML });
    });
  }
  if (dialect === 'postgres') await sql`vacuum analyze mail_outbox`.execute(db);
  const config = loadConfig({
    SVC_DATA_DIR: opened.dataDir,
    SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    SVC_MAIL_FROM: FROM,
    SVC_MAIL_POLL_MS: '50',
  });
  const before = await sink.count();
  const worker = new MailDeliveryWorker({
    db,
    dialect,
    config: config.mail,
    transport: smtpTransport(config.mail.smtp!),
    logger: createLogger(process.env.BENCH_LOG_LEVEL ?? 'warn'),
    seal: new OutboxSeal(crypto.randomBytes(32)),
  });
  const stopWorker = () => worker.stop();
  undo.push(stopWorker);
  const pending = async () =>
    Number(
      (
        await db
          .selectFrom('mail_outbox')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('sent_at', 'is', null)
          .where('failed_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const started = performance.now();
  worker.start();
  let elapsed: number;
  try {
    for (;;) {
      if ((await pending()) === 0) break;
      if (performance.now() - started > SEND_DEADLINE_MS)
        throw new Error(`${kind}: messages still unsent after ${SEND_DEADLINE_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 25));
    }
    elapsed = performance.now() - started;
  } finally {
    undo.splice(undo.indexOf(stopWorker), 1);
    await worker.stop();
  }
  const rows = await db.selectFrom('mail_outbox').select(['sent_at', 'attempts']).execute();
  const sentOnce = rows.filter((r) => r.sent_at !== null && Number(r.attempts) === 1).length;
  const after = await sink.count();
  const received = after.messages - before.messages;
  const distinct = after.recipients - before.recipients;
  const rate = SMTP_MESSAGES / (elapsed / 1000);
  const problem =
    sentOnce !== SMTP_MESSAGES || received !== SMTP_MESSAGES || distinct !== SMTP_MESSAGES
      ? `${SMTP_MESSAGES} messages: ${sentOnce} recorded sent after one attempt, the SMTP server received ${received} for ${distinct} recipients`
      : null;
  if (problem) errors.push(`${kind} smtp: ${problem}`);
  lines.push({
    title: `${kind}: SMTP send, ${SMTP_MESSAGES} messages, pooled`,
    value: `${rate.toFixed(0)} messages/s (${(elapsed / 1000).toFixed(2)} s)`,
    target: `>= ${TARGETS.smtpPerSec}/s`,
    met: problem ? false : rate >= TARGETS.smtpPerSec,
  });
}

interface Sunk {
  messages: number;
  recipients: number;
  /** Messages whose header carried List-Unsubscribe. */
  listUnsubscribe: number;
}

interface Sink {
  port: number;
  count(): Promise<Sunk>;
}

async function startSink(): Promise<Sink> {
  const { match } = await startChild('tests/bench/smtp-sink.ts', /ready (\d+) (\d+)/);
  const side = `http://127.0.0.1:${match[2]}`;
  return {
    port: Number(match[1]),
    count: async () => (await (await fetch(`${side}/count`)).json()) as Sunk,
  };
}

// --- queue -------------------------------------------------------------------------------------

const CHUNK = 1000;

/** The community, its members (multi-row inserts, 1,000 rows each, in one transaction) and a secret key. */
async function seedCommunity(db: Db, members: number): Promise<{ tag: string; key: string }> {
  const communityId = newId();
  const tag = 'bench';
  // Addresses of their own per run: the SMTP sink counts distinct recipients across runs.
  const run = crypto.randomBytes(4).toString('hex');
  const now = nowIso();
  await transaction(db, async (trx) => {
    await trx
      .insertInto('communities')
      .values({
        id: communityId,
        tag,
        name: 'Bench',
        visibility: 'PUBLIC',
        accessibility: 'OPEN',
        page_settings: '[]',
        storefront_config: '{}',
        theme_config: '{}',
        features: JSON.stringify(['broadcasts']),
        landing_url: null,
        embed_origins: '[]',
        rules_version: 1,
        founder_user_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await makeAcceptedMembers(trx, communityId, members, `m${run}x`, CHUNK);
  });
  const { key } = await createSecretKey(db, communityId, ['WRITE_BROADCASTS'], 'bench');
  return { tag, key };
}

/** A TCP port that accepts SMTP connections and never greets: a mail worker pointed at it sends nothing. */
async function stalledSmtpPort(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  undo.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function mailEnv(): Promise<Record<string, string>> {
  if (MAIL_MODE === 'eml') return { SVC_MAIL_WORKER: 'true', SMTP_URL: '' };
  if (MAIL_MODE === 'stalled')
    return {
      SVC_MAIL_WORKER: 'true',
      SMTP_URL: `smtp://127.0.0.1:${await stalledSmtpPort()}`,
      SVC_MAIL_FROM: FROM,
      SVC_MAIL_RETRY_DELAYS: '1h',
    };
  throw new Error(`unknown BENCH_BROADCAST_MAIL ${MAIL_MODE} (stalled, eml)`);
}

/** server/main.ts in a child process on the bench's database, up once /readyz answers. */
async function startServer(
  opened: Opened,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: opened.dataDir,
      SVC_PUBLIC_URL: base,
      SVC_SEED_DEMO: 'false',
      DATABASE_URL: opened.databaseUrl,
      REDIS_URL: '',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    // Its log (stdout) only when asked for: BENCH_LOG_LEVEL=info shows each message the worker sends.
    stdio: ['ignore', process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  undo.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server/main.ts exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) return { child, base };
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('server/main.ts did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface BroadcastServer {
  kind: string;
  db: Db;
  child: ChildProcess;
  /** POSTs the bench's broadcast: its latency, and the answer (null, with the error recorded, unless 202). */
  post(): Promise<{ ms: number; answer: { id: string; status: string; recipients: number } | null }>;
}

/**
 * A database of `kind` with a community of `members` ACCEPTED members and a WRITE_BROADCASTS key,
 * and server/main.ts on it with `env`, warmed up. Null when the database is unreachable.
 */
async function broadcastServer(
  kind: string,
  part: string,
  members: number,
  env: Record<string, string>,
): Promise<BroadcastServer | null> {
  const opened = await openTarget(kind);
  if (!opened) return null;
  const { db, dialect } = opened.database;
  const seedStarted = performance.now();
  const { tag, key } = await seedCommunity(db, members);
  // The planner's statistics as they would be on a database that has been running for a while.
  if (dialect === 'postgres') await sql`analyze`.execute(db);
  lines.push({
    title: `${kind}: seed ${members} members (bench setup)`,
    value: `${((performance.now() - seedStarted) / 1000).toFixed(2)} s`,
    target: '',
    met: null,
  });
  const { child, base } = await startServer(opened, env);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const broadcasts = `${base}/v1/communities/${tag}/broadcasts`;
  // The server must see the bench's data (the same SQLite file, or the schema through search_path).
  const community = await fetch(`${base}/api/communities/${tag}`);
  await community.arrayBuffer();
  if (community.status !== 200)
    throw new Error(
      `${kind}: the server does not see the bench's community (GET /api/communities/${tag} answered ${community.status})`,
    );
  // Warm-up: the route, the key's lookup and the process's first allocations, before any baseline.
  // (Its answer does not matter here: the POST says whether the route exists.)
  await (await fetch(`${broadcasts}?limit=1`, { headers })).arrayBuffer();
  await new Promise((r) => setTimeout(r, 500));
  return {
    kind,
    db,
    child,
    async post() {
      const started = performance.now();
      const res = await fetch(broadcasts, {
        method: 'POST',
        headers,
        body: JSON.stringify({ subject: 'News from the trail, {{name}}', html: BODY_HTML }),
      });
      const text = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 202) {
        const why =
          res.status === 404
            ? 'the route POST /v1/communities/{tag}/broadcasts is missing (issue 17, slice A, not in this build)'
            : 'expected 202';
        errors.push(
          `${kind} ${part}: POST ${new URL(broadcasts).pathname} answered ${res.status} (${why}): ${text.slice(0, 300)}`,
        );
        return { ms, answer: null };
      }
      const answer = JSON.parse(text);
      if (answer.recipients !== members)
        errors.push(`${kind} ${part}: the POST answered recipients ${answer.recipients}, not ${members}`);
      return { ms, answer };
    },
  };
}

/** Fails with what the broadcast looks like when `deadline` has passed or the server has exited. */
async function checkProgress(server: BroadcastServer, id: string, started: number, deadlineMs: number, what: string) {
  if (server.child.exitCode !== null)
    throw new Error(`${server.kind}: the server exited while ${what} (code ${server.child.exitCode})`);
  if (performance.now() - started <= deadlineMs) return;
  const row = await server.db
    .selectFrom('broadcasts')
    .select(['status', 'expanded_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  const written = await outboxRows(server.db, id);
  const hint = !row?.expanded_at
    ? 'is the dispatcher (server/broadcasts/dispatcher.ts) started in server/main.ts?'
    : 'the mail worker has not sent every message (its log: BENCH_LOG_LEVEL=info)';
  throw new Error(
    `${server.kind}: broadcast ${id} still ${what} after ${deadlineMs / 1000} s (status ${row?.status}, ` +
      `expanded_at ${row?.expanded_at ?? 'null'}, ${written} outbox rows): ${hint}`,
  );
}

async function queueRecipients(kind: string): Promise<void> {
  const server = await broadcastServer(kind, 'queue', RECIPIENTS, await mailEnv());
  if (!server) return;
  const { db, child } = server;
  const pid = child.pid!;
  const baseline = rssMb(pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      /* the process is gone; checkProgress reports it */
    }
  }, 20);
  const started = performance.now();
  let expandedMs: number;
  let postMs: number;
  let id: string;
  try {
    const { ms, answer } = await server.post();
    if (!answer) return;
    postMs = ms;
    id = answer.id;
    for (;;) {
      const row = await db.selectFrom('broadcasts').select('expanded_at').where('id', '=', id).executeTakeFirst();
      if (row?.expanded_at) break;
      await checkProgress(server, id, started, EXPAND_DEADLINE_MS, 'expanding');
      await new Promise((r) => setTimeout(r, 20));
    }
    expandedMs = performance.now() - started;
  } finally {
    clearInterval(sampler);
  }
  const written = await outboxRows(db, id);
  // What sending took meanwhile: the first 5 with the stalled SMTP port, the worker's pace with .eml files.
  const attempted = await outboxRows(db, id, true);
  if (written !== RECIPIENTS) errors.push(`${kind} queue: ${written} outbox rows for ${RECIPIENTS} recipients`);
  const growth = peak - baseline;
  lines.push(
    { title: `${kind}: POST /broadcasts latency`, value: `${postMs.toFixed(0)} ms`, target: '', met: null },
    {
      title: `${kind}: queue ${RECIPIENTS} recipients (POST to expanded)`,
      value: `${(expandedMs / 1000).toFixed(2)} s, ${written} outbox rows`,
      target: `<= ${TARGETS.queueSeconds} s`,
      met: written === RECIPIENTS && expandedMs / 1000 <= TARGETS.queueSeconds,
    },
    {
      title: `${kind}:   of which the mail worker claimed meanwhile`,
      value: `${attempted} (mail worker: ${MAIL_MODE})`,
      target: '',
      met: null,
    },
    {
      title: `${kind}: server RSS growth while queueing`,
      value: `${growth.toFixed(1)} MB (${baseline.toFixed(0)} -> peak ${peak.toFixed(0)} MB)`,
      target: `< ${TARGETS.rssGrowthMb} MB`,
      met: growth < TARGETS.rssGrowthMb,
    },
  );
}

/**
 * A whole broadcast through the server over SMTP: the POST, the dispatcher, and the mail worker
 * rendering each message and recording it on the broadcast, to the sink. Timed from the POST until
 * no message of it is left to send; then it must be SENT with every message counted, and the
 * sink must have received one message per recipient, each with List-Unsubscribe.
 */
async function sendBroadcast(kind: string, sink: Sink): Promise<void> {
  const server = await broadcastServer(kind, 'send', SEND_RECIPIENTS, {
    SVC_MAIL_WORKER: 'true',
    SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    SVC_MAIL_FROM: FROM,
    SVC_MAIL_POLL_MS: '50',
  });
  if (!server) return;
  const { db } = server;
  const before = await sink.count();
  const started = performance.now();
  const { answer } = await server.post();
  if (!answer) return;
  const { id } = answer;
  for (;;) {
    const pending = await db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('broadcast_id', '=', id)
      .where('sent_at', 'is', null)
      .where('failed_at', 'is', null)
      .executeTakeFirstOrThrow();
    const row = await db.selectFrom('broadcasts').select('expanded_at').where('id', '=', id).executeTakeFirstOrThrow();
    if (row.expanded_at && Number(pending.n) === 0) break;
    await checkProgress(server, id, started, SEND_DEADLINE_MS, 'sending');
    await new Promise((r) => setTimeout(r, 25));
  }
  const elapsed = performance.now() - started;
  // The completion is recorded with the last message; a moment for the row to say so.
  let row = await broadcastRow(db, id);
  for (let i = 0; i < 40 && row.status !== 'SENT'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    row = await broadcastRow(db, id);
  }
  const after = await sink.count();
  const received = after.messages - before.messages;
  const distinct = after.recipients - before.recipients;
  const unsubscribable = after.listUnsubscribe - before.listUnsubscribe;
  const n = SEND_RECIPIENTS;
  const problem =
    row.status !== 'SENT' || Number(row.sent_count) !== n || Number(row.failed_count) !== 0 || received !== n
      ? `broadcast ${row.status}, sent_count ${row.sent_count}, failed_count ${row.failed_count}; the SMTP server received ${received} messages for ${distinct} recipients`
      : distinct !== n || unsubscribable !== n
        ? `the SMTP server received ${received} messages for ${distinct} recipients, ${unsubscribable} with List-Unsubscribe`
        : null;
  if (problem) errors.push(`${kind} send: ${problem}`);
  const rate = n / (elapsed / 1000);
  lines.push({
    title: `${kind}: broadcast to ${n} over SMTP (POST to all sent)`,
    value: `${rate.toFixed(0)} messages/s (${(elapsed / 1000).toFixed(2)} s)`,
    target: `>= ${TARGETS.smtpPerSec}/s`,
    met: problem ? false : rate >= TARGETS.smtpPerSec,
  });
}

const broadcastRow = (db: Db, id: string) =>
  db
    .selectFrom('broadcasts')
    .select(['status', 'sent_count', 'failed_count'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/** The broadcast's outbox rows; with `attempted`, only those a mail worker has claimed at least once. */
async function outboxRows(db: Db, broadcastId: string, attempted = false): Promise<number> {
  let q = db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('broadcast_id', '=', broadcastId);
  if (attempted) q = q.where('attempts', '>', 0);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

// --- report ------------------------------------------------------------------------------------

/** Runs one part on one database, then undoes what it set up (its server, its database), whatever happened. */
async function scoped(run: () => Promise<void>): Promise<void> {
  const mark = undo.length;
  try {
    await run();
  } catch (err) {
    if (interrupted) throw err;
    errors.push((err as Error).message);
  } finally {
    while (undo.length > mark) {
      try {
        await undo.pop()!();
      } catch (err) {
        process.stderr.write(`cleanup: ${(err as Error).message}\n`);
      }
    }
  }
}

async function main() {
  for (const part of PARTS)
    if (!['smtp', 'queue', 'send'].includes(part))
      throw new Error(`unknown part ${part} in BENCH_BROADCAST_PARTS (smtp, queue, send)`);
  const sink = PARTS.includes('smtp') || PARTS.includes('send') ? await startSink() : null;
  if (PARTS.includes('smtp')) for (const kind of DBS) await scoped(() => smtpThroughput(kind, sink!));
  if (PARTS.includes('queue')) for (const kind of DBS) await scoped(() => queueRecipients(kind));
  if (PARTS.includes('send')) for (const kind of DBS) await scoped(() => sendBroadcast(kind, sink!));
  out(`\nbroadcasts: ${os.cpus().length} cores, Node ${process.version}, mail worker during the queue: ${MAIL_MODE}`);
  for (const l of lines) {
    const judged = l.met === null ? '' : `(target ${l.target}): ${verdict(l.met)}`;
    out(`${l.title.padEnd(58)} ${l.value.padEnd(40)} ${judged}`);
  }
  const missed = lines.filter((l) => l.met === false);
  if (missed.length > 0) out(`NOT met: ${missed.map((l) => l.title).join('; ')}`);
  for (const e of errors) out(`error: ${e}`);
  if (errors.length > 0) process.exitCode = 1;
  // The shared table: each line with its target; each error (a lost or doubled message, a
  // broadcast never expanded) as a WRONG row.
  const rows: BenchRow[] = lines.map((l) => ({
    area: 'broadcasts',
    measure: l.title.replace(/ {2,}/g, ' '),
    figure: l.value,
    goal: l.met === null ? '' : l.target,
    verdict: l.met === null ? 'info' : l.met ? 'met' : 'NOT met',
  }));
  for (const e of errors) rows.push({ area: 'broadcasts', measure: 'error', figure: e, goal: '', verdict: 'WRONG' });
  report(rows);
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
    if (interrupted) return;
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    await cleanup();
    process.exit(1);
  });
