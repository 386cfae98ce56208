// npm run bench, two processes: how users outgrow one process. Two svc processes (server/main.ts,
// workers on, as `npm start` runs them) on one PostgreSQL schema and one Redis, as two instances
// behind a load balancer would be; this process plays the balancer, sending requests to both in
// turn. It checks what only holds if the processes coordinate through the database and Redis:
//   rsvp:        500 concurrent RSVPs to a tier of 200 seats, split across both: exactly 200 are
//                seated (no oversell, no seat lost to a race), the other 300 are refused as sold out.
//   webhooks:    the RSVPs' rsvp.confirmed events plus a backlog emitted straight into the outbox,
//                delivered by both processes' workers to a receiver that counts per delivery id:
//                every event arrives exactly once and every delivery has exactly one attempt.
//   mail:        the tickets' e-mails, sent by both mail workers (each into its own data directory,
//                as on two machines): every message written exactly once.
//   rate limit:  300 requests at once with a fresh publishable key, split across both: of those
//                answered within the 1-s window the burst opened, at most 100 are let through, each
//                with its own X-RateLimit-Remaining (one counter in Redis, not one per process); a
//                burst that fits in the window whole gets exactly 100 answers and 200 x 429.
//   idempotency: the same Idempotency-Key on a create sent to both processes at the same moment:
//                one article, every answer the same 201 (one made, the others replayed).
// A broken invariant is WRONG and the bench exits 1. The processes start together on an empty
// schema, so both run the migrations at once (docs/deploy.md: each start migrates, under a lock).
// Settings: BENCH_PG_URL or DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; the bench works in
// a schema of its own and drops it), BENCH_REDIS_URL or REDIS_URL (redis://127.0.0.1:6379; its own
// rate-limit keys are deleted afterwards), BENCH_TWO_PORTS (4301,4302: the two processes; 4303 the
// receiver).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openDatabase, type Db } from '../../server/db/index.ts';
import { createEndpoint } from '../../server/webhooks/endpoints.ts';
import { loadSecretBox } from '../../server/webhooks/secret-box.ts';
import { makeCommunity, makeEvent, makeKey } from '../api/support/factory.ts';
import { emitMany } from './emit-events.ts';
import { start } from './load.ts';
import { report, type BenchRow } from './report.ts';

const PG_URL = process.env.BENCH_PG_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PORTS = (process.env.BENCH_TWO_PORTS ?? '4301,4302').split(',').map(Number) as [number, number];
const RECEIVER_PORT = Math.max(...PORTS) + 1;
const RSVPS = 500;
const CAPACITY = 200;
const BACKLOG_EVENTS = 2000;
const PUBLISHABLE_PER_SEC = 100;
const BURST = 300;
/** A burst that takes less than this lies inside the one 1-s window its first request opened. */
const BURST_MAX_MS = 950;
const BURST_TRIES = 5;
const IDEMPOTENT_ROUNDS = 30;
/** Requests per process per round: four at once under one key. */
const IDEMPOTENT_PER_PROCESS = 2;
const DRAIN_DEADLINE_MS = 180_000;
/** The client address the bench, as the load balancer, reports in X-Forwarded-For. */
const CLIENT_IP = '198.51.100.23';

const rows: BenchRow[] = [];
const AREA = 'two processes';
const out = (line: string) => process.stdout.write(`${line}\n`);

/** Undo steps, run newest first by cleanup(), on success, failure or Ctrl-C. */
const undo: Array<() => Promise<void> | void> = [];
async function cleanup(): Promise<void> {
  while (undo.length > 0) {
    try {
      await undo.pop()!();
    } catch (err) {
      process.stderr.write(`cleanup: ${(err as Error).message}\n`);
    }
  }
}

function check(measure: string, figure: string, goal: string, ok: boolean, problem?: string): void {
  rows.push({ area: AREA, measure, figure, goal, verdict: ok ? 'met' : 'WRONG' });
  if (!ok) out(`WRONG: ${measure}: ${problem ?? figure}`);
}

const bases = PORTS.map((p) => `http://127.0.0.1:${p}`);
/** The i-th request's process: in turn, as a round-robin balancer sends them. */
const baseFor = (i: number) => bases[i % bases.length]!;

interface Answer {
  process: number;
  status: number;
  body: any;
  replayed: boolean;
  /** X-RateLimit-Remaining, when the answer carries it. */
  remaining: number | null;
  /** When the answer's headers arrived, on performance.now()'s clock. */
  at: number;
}

async function send(i: number, pathName: string, init: RequestInit & { json?: unknown }): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set('X-Forwarded-For', CLIENT_IP);
  if (init.json !== undefined) headers.set('Content-Type', 'application/json');
  const res = await fetch(`${baseFor(i)}${pathName}`, {
    ...init,
    headers,
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  const at = performance.now();
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: kept as text for the report */
  }
  return {
    process: i % bases.length,
    status: res.status,
    body,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    remaining: res.headers.has('x-ratelimit-remaining') ? Number(res.headers.get('x-ratelimit-remaining')) : null,
    at,
  };
}

const tally = (answers: Answer[]) => {
  const t = new Map<number, number>();
  for (const a of answers) t.set(a.status, (t.get(a.status) ?? 0) + 1);
  return [...t.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${n}x${s}`)
    .join(' ');
};
const perProcess = (answers: Answer[], status: number) =>
  bases.map((_, p) => answers.filter((a) => a.process === p && a.status === status).length).join('+');

async function startReceiver(): Promise<{ base: string; child: ChildProcess }> {
  // stdin stays a pipe: the receiver exits when it closes, even if this process is killed.
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/webhook-receiver.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, PORT: String(RECEIVER_PORT) },
  });
  undo.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the webhook receiver did not start')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/ready \d+/.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the webhook receiver exited with ${code}`));
    });
  });
  return { base: `http://127.0.0.1:${RECEIVER_PORT}`, child };
}

const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await q.executeTakeFirstOrThrow()).n);

// --- 1. RSVPs ---------------------------------------------------------------------------------

async function rsvps(db: Db, tag: string, salesKey: string): Promise<void> {
  const community = await db.selectFrom('communities').select('id').where('tag', '=', tag).executeTakeFirstOrThrow();
  const event = await makeEvent(db, community.id, {
    slug: 'two-process-rsvp',
    tiers: [{ name: 'Free', priceCents: 0, capacity: CAPACITY }],
  });
  const tierId = event.tierIds[0]!;
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: RSVPS }, (_, i) =>
      send(i, `/v1/communities/${tag}/events/${event.slug}/rsvp`, {
        method: 'POST',
        headers: { 'X-API-Key': salesKey },
        json: { tierId, email: `guest${i}@bench.test`, name: `Guest ${i}` },
      }),
    ),
  );
  const ms = performance.now() - started;
  const seated = answers.filter((a) => a.status === 200).length;
  const soldOut = answers.filter((a) => a.status === 422 && a.body?.code === 'UNPROCESSABLE').length;
  const tickets = await count(
    db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tier_id', '=', tierId),
  );
  const tier = await db.selectFrom('tiers').select(['sold', 'held']).where('id', '=', tierId).executeTakeFirstOrThrow();
  const distinct = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.rsvpId)).size;
  out(
    `rsvp: ${RSVPS} in ${(ms / 1000).toFixed(1)} s: ${tally(answers)}; seated per process ${perProcess(answers, 200)}; ` +
      `tickets ${tickets}, tier sold ${tier.sold} held ${tier.held}`,
  );
  const other = answers.find((a) => a.status !== 200 && !(a.status === 422 && a.body?.code === 'UNPROCESSABLE'));
  check(
    `${RSVPS} concurrent RSVPs, ${CAPACITY} seats, split across both`,
    `${seated} seated, ${soldOut} sold out, ${tickets} tickets, sold ${tier.sold}`,
    `exactly ${CAPACITY} seated, ${RSVPS - CAPACITY} sold out`,
    seated === CAPACITY &&
      soldOut === RSVPS - CAPACITY &&
      tickets === CAPACITY &&
      Number(tier.sold) === CAPACITY &&
      Number(tier.held) === 0 &&
      distinct === CAPACITY,
    other ? `${tally(answers)}; e.g. ${other.status} ${JSON.stringify(other.body).slice(0, 300)}` : undefined,
  );
}

// --- 4. Idempotency ---------------------------------------------------------------------------

async function idempotency(db: Db, tag: string, adminKey: string): Promise<void> {
  const community = await db.selectFrom('communities').select('id').where('tag', '=', tag).executeTakeFirstOrThrow();
  const problems: string[] = [];
  let replays = 0;
  for (let round = 0; round < IDEMPOTENT_ROUNDS; round++) {
    const key = crypto.randomUUID();
    const title = `Idempotent ${round} ${key.slice(0, 8)}`;
    const answers = await Promise.all(
      Array.from({ length: bases.length * IDEMPOTENT_PER_PROCESS }, (_, i) =>
        send(i, `/v1/communities/${tag}/articles`, {
          method: 'POST',
          headers: { 'X-API-Key': adminKey, 'Idempotency-Key': key },
          json: { title, content: '<p>Once.</p>' },
        }),
      ),
    );
    const made = await count(
      db
        .selectFrom('articles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('community_id', '=', community.id)
        .where('title', '=', title),
    );
    const ids = new Set(answers.map((a) => (a.status === 201 ? a.body.id : `status ${a.status}`)));
    const firsts = answers.filter((a) => a.status === 201 && !a.replayed).length;
    replays += answers.filter((a) => a.replayed).length;
    if (made !== 1 || ids.size !== 1 || answers.some((a) => a.status !== 201) || firsts !== 1) {
      const odd = answers.find((a) => a.status !== 201);
      problems.push(
        `round ${round}: ${made} articles, answers ${tally(answers)}, ${ids.size} distinct ids, ${firsts} not replayed` +
          (odd ? `; e.g. ${odd.status} ${JSON.stringify(odd.body).slice(0, 200)}` : ''),
      );
    }
  }
  out(
    `idempotency: ${IDEMPOTENT_ROUNDS} rounds of ${bases.length * IDEMPOTENT_PER_PROCESS} at once, ${replays} replays`,
  );
  for (const p of problems) out(`  ${p}`);
  check(
    `same Idempotency-Key on both at once (${IDEMPOTENT_ROUNDS} rounds of ${bases.length * IDEMPOTENT_PER_PROCESS})`,
    problems.length === 0 ? `1 article and one answer per key` : `${problems.length} rounds wrong`,
    'one state change, same 201 to all',
    problems.length === 0,
    problems[0],
  );
}

// --- 3. Rate limit ----------------------------------------------------------------------------

/**
 * 300 requests at once with a fresh publishable key, split across both. Two ways to judge, neither
 * fooled by a slow machine:
 * - every request answered within 1 s of the burst's start was counted in the window the burst's
 *   first request opened (it cannot have been counted before that one, nor 1 s after it); one
 *   budget in Redis answers at most 100 of those, each with its own X-RateLimit-Remaining (one
 *   counter, incremented once per request). Budgets per process would answer up to 200, and the
 *   two processes would repeat each other's Remaining values.
 * - when the whole burst took under BURST_MAX_MS it lay in that one window: exactly 100 answered.
 * A try is judged once both processes answered a request in the first second (else a duplicate
 * could not show); up to BURST_TRIES tries.
 */
async function rateLimit(db: Db, redisKeys: string[]): Promise<void> {
  for (let attempt = 1; attempt <= BURST_TRIES; attempt++) {
    // A community (and so a publishable key) of its own per try: its budget starts untouched.
    const { id, tag, pk } = await makeCommunity(db, `rl${crypto.randomBytes(4).toString('hex')}`);
    const key = await db
      .selectFrom('api_keys')
      .select('id')
      .where('community_id', '=', id)
      .where('kind', '=', 'publishable')
      .executeTakeFirstOrThrow();
    redisKeys.push(key.id);
    const url = `/v1/communities/${tag}/events?limit=1`;
    // Each process looks the key up (and caches it) first, so the burst measures the limiter,
    // then the window those two requests opened runs out.
    for (let p = 0; p < bases.length; p++) await send(p, url, { headers: { 'X-API-Key': pk } });
    // A kept-alive connection per request of the burst, opened beforehand on a route without a
    // limit: the burst then does not wait for 300 handshakes (and fits in the window sooner).
    await Promise.all(Array.from({ length: BURST }, (_, i) => fetch(`${baseFor(i)}/healthz`).then((r) => r.text())));
    await new Promise((r) => setTimeout(r, 1500));
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => send(i, url, { headers: { 'X-API-Key': pk } })),
    );
    const ms = performance.now() - started;
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429).length;
    const firstWindow = ok.filter((a) => a.at - started < 1000);
    const remaining = firstWindow.map((a) => a.remaining);
    const repeated = remaining.length - new Set(remaining).size;
    const odd = answers.filter((a) => a.status !== 200 && a.status !== 429);
    out(
      `rate limit, try ${attempt}: ${BURST} requests in ${ms.toFixed(0)} ms: ${tally(answers)}; ` +
        `200 per process ${perProcess(answers, 200)}; in the first second ${firstWindow.length} answered ` +
        `(${perProcess(firstWindow, 200)}), ${repeated} repeated Remaining`,
    );
    const judgeable = bases.every((_, p) => firstWindow.some((a) => a.process === p));
    if (!judgeable && odd.length === 0) {
      if (attempt < BURST_TRIES) continue;
      rows.push({
        area: AREA,
        measure: `publishable key, ${BURST} requests across both`,
        figure: `no try had both answer in its first second`,
        goal: `≤ ${PUBLISHABLE_PER_SEC} a second, one counter`,
        verdict: 'NOT met',
      });
      return;
    }
    const whole = ms < BURST_MAX_MS;
    check(
      whole
        ? `publishable key, ${BURST} requests in ${ms.toFixed(0)} ms across both`
        : `publishable key, ${BURST} requests across both, first second`,
      whole
        ? `${ok.length} answered (${perProcess(ok, 200)}), ${limited} x 429`
        : `${firstWindow.length} answered (${perProcess(firstWindow, 200)}), ${repeated} repeats`,
      whole ? `exactly ${PUBLISHABLE_PER_SEC} answered, the rest 429` : `≤ ${PUBLISHABLE_PER_SEC}, one counter`,
      odd.length === 0 &&
        repeated === 0 &&
        firstWindow.length <= PUBLISHABLE_PER_SEC &&
        (!whole || (ok.length === PUBLISHABLE_PER_SEC && limited === BURST - PUBLISHABLE_PER_SEC)),
      `${tally(answers)} in ${ms.toFixed(0)} ms; in the first second ${firstWindow.length} answered, ` +
        `${repeated} X-RateLimit-Remaining values repeated`,
    );
    return;
  }
}

// --- 2. Webhooks and mail ---------------------------------------------------------------------

async function backlog(db: Db, community: { id: string; tag: string }): Promise<void> {
  // Written as requests write them (one transaction each), but from this process: neither server is
  // woken, both workers find them by polling and race for the same rows.
  await emitMany(db, community, BACKLOG_EVENTS, 8);
}

async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DRAIN_DEADLINE_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} not done within ${DRAIN_DEADLINE_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function webhooks(db: Db, communityId: string, receiver: string): Promise<void> {
  const started = performance.now();
  await waitFor('webhook deliveries', async () => {
    const pending = await count(
      db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('community_id', '=', communityId)
        .where('status', '=', 'PENDING'),
    );
    return pending === 0;
  });
  const drained = performance.now() - started;
  const deliveries = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
    .select((eb) => ['d.id', 'd.event_id', 'd.status', eb.fn.count<number>('a.id').as('attempts')])
    .where('d.community_id', '=', communityId)
    .groupBy(['d.id', 'd.event_id', 'd.status'])
    .execute();
  const events = await count(
    db
      .selectFrom('webhook_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('community_id', '=', communityId),
  );
  const received = (await (await fetch(`${receiver}/deliveries`)).json()) as Record<string, number>;
  const total = ((await (await fetch(`${receiver}/count`)).json()) as { count: number }).count;
  const perEvent = new Map<string, number>();
  for (const d of deliveries) perEvent.set(d.event_id, (perEvent.get(d.event_id) ?? 0) + (received[d.id] ?? 0));
  const twice = [...perEvent.values()].filter((n) => n > 1).length;
  const never = [...perEvent.values()].filter((n) => n === 0).length;
  const notSucceeded = deliveries.filter((d) => d.status !== 'SUCCEEDED').length;
  const notOneAttempt = deliveries.filter((d) => Number(d.attempts) !== 1).length;
  out(
    `webhooks: ${events} events, ${deliveries.length} deliveries, ${total} requests received; ` +
      `${twice} events twice, ${never} never, ${notSucceeded} not SUCCEEDED, ${notOneAttempt} not one attempt; ` +
      `drained ${(drained / 1000).toFixed(1)} s after the last write`,
  );
  check(
    `every webhook exactly once, both workers on (${events} events)`,
    `${total} received, ${twice} twice, ${never} never`,
    'each event received once',
    events === CAPACITY + BACKLOG_EVENTS &&
      deliveries.length === events &&
      perEvent.size === events &&
      twice === 0 &&
      never === 0 &&
      total === events &&
      notSucceeded === 0 &&
      notOneAttempt === 0,
    `${events} events (expected ${CAPACITY + BACKLOG_EVENTS}), ${deliveries.length} deliveries, ${total} requests, ` +
      `${twice} twice, ${never} never, ${notSucceeded} not SUCCEEDED, ${notOneAttempt} without exactly one attempt`,
  );
}

async function mail(db: Db, dataDirs: string[]): Promise<void> {
  const GUESTS = 'guest%@bench.test';
  await waitFor('ticket e-mails', async () => {
    const queued = await count(
      db
        .selectFrom('mail_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('to_address', 'like', GUESTS)
        .where('next_attempt_at', 'is not', null),
    );
    return queued === 0;
  });
  const rowsSent = await db
    .selectFrom('mail_outbox')
    .select(['id', 'attempts', 'sent_at'])
    .where('to_address', 'like', GUESTS)
    .execute();
  const files = dataDirs.map((dir) => {
    const mailDir = path.join(dir, 'mail');
    return fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml')) : [];
  });
  const written = new Map<string, number>();
  for (const f of files.flat()) {
    const id = rowsSent.find((r) => f.endsWith(`-${r.id.replace(/[^\w-]/g, '_')}.eml`))?.id ?? f;
    written.set(id, (written.get(id) ?? 0) + 1);
  }
  const twice = [...written.values()].filter((n) => n > 1).length;
  const never = rowsSent.filter((r) => !written.has(r.id)).length;
  out(
    `mail: ${rowsSent.length} ticket e-mails, files per process ${files.map((f) => f.length).join('+')}, ` +
      `${twice} twice, ${never} never`,
  );
  check(
    `every ticket e-mail sent once, both mail workers on`,
    `${rowsSent.length} mails, files ${files.map((f) => f.length).join('+')}`,
    'one file per e-mail',
    rowsSent.length === CAPACITY &&
      twice === 0 &&
      never === 0 &&
      written.size === CAPACITY &&
      rowsSent.every((r) => r.sent_at !== null && Number(r.attempts) === 1),
    `${rowsSent.length} mails (expected ${CAPACITY}), ${written.size} written, ${twice} twice, ${never} never`,
  );
}

// --- the run ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (err) {
    out(`two processes: skipped, cannot connect to PostgreSQL at ${PG_URL} (${(err as Error).message})`);
    rows.push({ area: AREA, measure: 'PostgreSQL unreachable', figure: 'skipped', goal: '', verdict: 'info' });
    return;
  }
  undo.push(() => admin.end());
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
  } catch (err) {
    out(`two processes: skipped, cannot connect to Redis at ${REDIS_URL} (${(err as Error).message})`);
    rows.push({ area: AREA, measure: 'Redis unreachable', figure: 'skipped', goal: '', verdict: 'info' });
    return;
  }
  undo.push(() => void redis.disconnect());

  const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
  await admin.query(`create schema "${schema}"`);
  undo.push(() => admin.query(`drop schema if exists "${schema}" cascade`).then(() => undefined));
  // The server processes reach the schema through the connection's search_path.
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);

  // Rate-limit keys are `svc:rl:<bucket>:<key id>[:<ip>]`: the bench's keys are its own, made
  // in this run; they are deleted at the end rather than the whole Redis flushed.
  const redisKeys: string[] = [];
  undo.push(async () => {
    let deleted = 0;
    for (const id of redisKeys) {
      for (const pattern of [`svc:rl:*:${id}`, `svc:rl:*:${id}:*`]) {
        let cursor = '0';
        do {
          const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = nextCursor;
          if (keys.length > 0) deleted += await redis.del(...keys);
        } while (cursor !== '0');
      }
    }
    out(`redis: deleted ${deleted} rate-limit keys of this run (the others had expired)`);
  });

  const receiver = await startReceiver();
  // One master key for both, as docs/deploy.md says: webhook secrets sealed by one must open in the other.
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  const dataDirs = PORTS.map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-two-')));
  undo.push(() => {
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = (port: number, dataDir: string): Record<string, string> => ({
    PORT: String(port),
    SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    REDIS_URL,
    SVC_ENCRYPTION_KEY: encryptionKey,
    // Behind a load balancer on this machine: X-Forwarded-For from loopback names the client.
    SVC_TRUST_PROXY: 'loopback',
    SVC_SEED_DEMO: 'false',
    // Secret keys: the RSVPs and creates test coordination, not the 50/s budget of one key.
    RATE_LIMIT_SECRET_PER_SEC: '100000',
    RATE_LIMIT_PUBLISHABLE_PER_SEC: String(PUBLISHABLE_PER_SEC),
    SVC_WEBHOOK_WORKER: 'true',
    SVC_MAIL_WORKER: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  // Both at once on the empty schema: both run the migrations, one waits for the other's lock.
  const started = performance.now();
  const children = await Promise.all(
    PORTS.map((port, i) => start('server/main.ts', env(port, dataDirs[i]!), `http://127.0.0.1:${port}/readyz`)),
  );
  for (const child of children)
    undo.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    });
  out(
    `two processes on ${PORTS.join(', ')} up (both migrating at once) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const database = openDatabase({ kind: 'postgres', url: PG_URL, schema });
  undo.push(() => database.close());
  const { db } = database;
  const community = await makeCommunity(db, 'two');
  const salesKey = await makeKey(db, community.id, ['WRITE_SALES']);
  const adminKey = await makeKey(db, community.id, ['ADMIN']);
  for (const row of await db.selectFrom('api_keys').select('id').where('community_id', '=', community.id).execute())
    redisKeys.push(row.id);
  await createEndpoint(
    db,
    loadSecretBox({ encryptionKey: Buffer.from(encryptionKey, 'base64'), dataDir: dataDirs[0]! }),
    { allowPrivate: true, lookup: async () => [] },
    { communityId: community.id, url: `${receiver.base}/hooks`, events: ['*'] },
  );

  await rsvps(db, community.tag, salesKey);
  await idempotency(db, community.tag, adminKey);
  await rateLimit(db, redisKeys);
  await backlog(db, community);
  await webhooks(db, community.id, receiver.base);
  await mail(db, dataDirs);
  for (const [i, child] of children.entries())
    if (child.exitCode !== null) check(`process ${i + 1} still up`, `exited ${child.exitCode}`, 'up', false);
}

let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  void cleanup().then(() => process.exit(130));
});

main()
  .catch((err: Error) => {
    out(`error: ${err.message}`);
    rows.push({
      area: AREA,
      measure: 'the bench ran to the end',
      figure: err.message.slice(0, 60),
      goal: '',
      verdict: 'WRONG',
    });
  })
  .finally(async () => {
    await cleanup();
    report(rows);
  });
