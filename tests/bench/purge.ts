// The purge's batches at volume (docs/maintenance.md): on SQLite and on PostgreSQL, fills the
// purged tables with BENCH_PURGE_ROWS expired rows each (deliveries with 3 attempts each; mail and
// idempotency answers with bodies of realistic size) and as many live rows beside them, purges
// with the default settings, and reports through report.ts, per database and table, the lock each
// batch held (purge.ts's BatchTiming.heldMs: from BEGIN's return to COMMIT's, on SQLite plus a
// checkpoint's catch-up after it, which holds the process's connection) as p50, p99 and max against
// the goal of under 50 ms; on SQLite the checkpoints run between batches in the purge's worker
// thread (no write lock, not this process's connection), and the catch-ups; and the longest the
// event loop stalled meanwhile, which every request of a purging process would wait out. An
// expired row left or a live row deleted is WRONG (exit 1); a batch over 50 ms is NOT met.
// The default 20,000 rows keep it near a minute (`npm run bench`); `npm run bench -- --scale`
// runs it with 100,000 too (tests/bench/all.ts).
// Settings: BENCH_PURGE_ROWS (20000), BENCH_PURGE_DBS (sqlite,postgres), BENCH_PURGE_BATCH
// (SVC_PURGE_BATCH_SIZE's default), BENCH_PURGE_TRACE=1 (print every batch over 20 ms with where
// its time went: pick and delete, commit, this process's CPU time, GC pauses; a batch whose wall
// time is far above its CPU time waited for a core or the disk), BENCH_PG_URL or DATABASE_URL
// (postgres://postgres@127.0.0.1:5432/test; the bench works in a schema of its own and drops it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle, type Db } from '../../server/db/index.ts';
import { parsePurgeConfig, type PurgeConfig } from '../../server/maintenance/config.ts';
import { purgeExpired, type BatchTiming } from '../../server/maintenance/purge.ts';
import { report, type BenchRow } from './report.ts';
import { makeCommunity, makeUser } from '../api/support/factory.ts';

const ROWS = Number(process.env.BENCH_PURGE_ROWS ?? 20_000);
const TRACE = process.env.BENCH_PURGE_TRACE === '1';
const DBS = (process.env.BENCH_PURGE_DBS ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LIMIT_MS = 50;
const DAY = 86_400_000;
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const uuid = () => crypto.randomUUID();
const body = (n: number) => crypto.randomBytes(n).toString('base64').slice(0, n);

function config(): PurgeConfig {
  const c = parsePurgeConfig({}, true);
  if (Array.isArray(c)) throw new Error(c.join('\n'));
  if (process.env.BENCH_PURGE_BATCH) c.batchSize = Number(process.env.BENCH_PURGE_BATCH);
  return c;
}

async function insertChunks(db: Db, table: string, rows: Record<string, unknown>[]): Promise<void> {
  // PostgreSQL allows 65,535 parameters per statement.
  const perChunk = Math.max(1, Math.floor(30_000 / Object.keys(rows[0]).length));
  for (let i = 0; i < rows.length; i += perChunk) {
    await (db as any)
      .insertInto(table)
      .values(rows.slice(i, i + perChunk))
      .execute();
  }
}

/** `ROWS` expired and `ROWS` live rows in each purged table; returns the live ids to check. */
async function fill(db: Db): Promise<void> {
  // The factory's rows, as the purge test makes them: the bench needs a community and a user only
  // for the foreign keys of the rows it fills.
  const { id: communityId } = await makeCommunity(db, 'bench');
  const { id: userId } = await makeUser(db, 'bench');
  const endpointId = uuid();
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: endpointId,
      community_id: communityId,
      url: 'https://example.com/h',
      description: null,
      events: '["*"]',
      status: 'ENABLED',
      disabled_reason: null,
      secret_ciphertext: null,
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
      created_at: iso(now),
      updated_at: iso(now),
    })
    .execute();
  const CHUNK = 10_000;
  for (let start = 0; start < ROWS; start += CHUNK) {
    const n = Math.min(CHUNK, ROWS - start);
    // Expired rows: spread over the year before the retention; live ones: the last days.
    const old = (i: number) => now - 31 * DAY - ((start + i) % 300) * DAY - i;
    const recent = (i: number) => now - ((start + i) % 5) * DAY - i;
    const events = Array.from({ length: n }, (_, i) => ({
      id: `ev_${uuid()}`,
      community_id: communityId,
      community_tag: 'bench',
      name: 'article.published',
      data: body(300),
      created_at: iso(old(i)),
    }));
    const liveEvents = Array.from({ length: n }, (_, i) => ({
      ...events[i],
      id: `ev_${uuid()}`,
      created_at: iso(recent(i)),
    }));
    await insertChunks(db, 'webhook_events', [...events, ...liveEvents]);
    const deliveries = events.map((e, i) => ({
      id: `del_${uuid()}`,
      event_id: e.id,
      endpoint_id: endpointId,
      community_id: communityId,
      status: i % 10 === 0 ? 'PERMANENTLY_FAILED' : 'SUCCEEDED',
      next_attempt_at: null,
      lease_token: null,
      previous_lease_token: null,
      last_attempt_at: e.created_at,
      last_status_code: 200,
      last_error: null,
      created_at: e.created_at,
      updated_at: e.created_at,
    }));
    const liveDeliveries = liveEvents.map((e, i) => ({
      ...deliveries[i],
      id: `del_${uuid()}`,
      event_id: e.id,
      status: i % 2 ? 'PENDING' : 'SUCCEEDED',
      next_attempt_at: i % 2 ? iso(now) : null,
      created_at: e.created_at,
      updated_at: e.created_at,
    }));
    // A pending delivery of an old event: the event must stay.
    await insertChunks(db, 'webhook_deliveries', [...deliveries, ...liveDeliveries]);
    const attempts = [...deliveries, ...liveDeliveries].flatMap((d) =>
      [1, 2, 3].map((number) => ({
        id: uuid(),
        delivery_id: d.id,
        number,
        round: 1,
        outcome: number === 3 ? 'SUCCEEDED' : 'FAILED',
        started_at: d.created_at,
        duration_ms: 40,
        status_code: number === 3 ? 200 : 500,
        response_body: body(200),
        error: null,
      })),
    );
    await insertChunks(db, 'webhook_attempts', attempts);
    const mail = (i: number, at: number, sent: boolean) => ({
      id: uuid(),
      to_address: `m${start + i}@example.com`,
      subject: 'Your ticket',
      text_body: body(1500),
      html_body: body(4000),
      created_at: iso(at - 1000),
      sent_at: sent ? iso(at) : null,
      next_attempt_at: sent ? null : iso(now),
      attempts: 1,
    });
    await insertChunks(db, 'mail_outbox', [
      ...Array.from({ length: n }, (_, i) => mail(i, old(i), true)),
      ...Array.from({ length: n }, (_, i) => mail(i, i % 2 ? recent(i) : old(i), i % 2 === 1)),
    ]);
    const key = (i: number, expires: number) => ({
      owner: `key:${i % 50}`,
      idem_key: uuid(),
      request_hash: body(64),
      state: 'done',
      response_status: 201,
      response_body: body(800),
      response_headers: null,
      created_at: iso(expires - DAY),
      expires_at: iso(expires),
      locked_until: iso(expires - DAY),
      lock_token: uuid(),
    });
    await insertChunks(db, 'idempotency_keys', [
      ...Array.from({ length: n }, (_, i) => key(i, now - (i % 1000) * 60_000 - 1000)),
      // Live for a day and more: the fill itself takes minutes.
      ...Array.from({ length: n }, (_, i) => key(i, now + 86_400_000 + (i % 1000) * 60_000)),
    ]);
    await insertChunks(db, 'sms_outbox', [
      ...Array.from({ length: n }, (_, i) => ({
        id: uuid(),
        to_number: '+14155550123',
        text_body: body(120),
        created_at: iso(old(i)),
        sent_at: null,
      })),
      ...Array.from({ length: n }, (_, i) => ({
        id: uuid(),
        to_number: '+14155550123',
        text_body: body(120),
        created_at: iso(recent(i)),
        sent_at: null,
      })),
    ]);
    const code = (i: number, expires: number) => ({
      id: uuid(),
      phone: `+1${String(start + i).padStart(10, '0')}`,
      user_id: userId,
      code_hash: body(43),
      created_at: iso(expires - 600_000),
      expires_at: iso(expires),
      used_at: iso(expires - 500_000),
      superseded_at: null,
    });
    await insertChunks(db, 'sms_codes', [
      ...Array.from({ length: n }, (_, i) => code(i, old(i))),
      ...Array.from({ length: n }, (_, i) => code(i, now + 600_000)),
    ]);
    const revoked = (i: number, expires: number) => ({ session_id: uuid(), user_id: userId, expires_at: iso(expires) });
    await insertChunks(db, 'revoked_tokens', [
      ...Array.from({ length: n }, (_, i) => revoked(i, old(i))),
      ...Array.from({ length: n }, (_, i) => revoked(i, now + i * 1000)),
    ]);
  }
}

const TABLES = [
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'mail_outbox',
  'idempotency_keys',
  'sms_outbox',
  'sms_codes',
  'revoked_tokens',
];
const LIVE_LEFT: Record<string, number> = {
  webhook_events: ROWS,
  webhook_deliveries: ROWS,
  webhook_attempts: 3 * ROWS,
  // The live half: queued (old and recent alike) and recently sent.
  mail_outbox: ROWS,
  idempotency_keys: ROWS,
  sms_outbox: ROWS,
  sms_codes: ROWS,
  revoked_tokens: ROWS,
};

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) {
    const r = await (db as any)
      .selectFrom(t)
      .select((eb: any) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

/** GC pauses of this process, as [start, end] in performance.now() time. */
const gcPauses: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });

const num = (n: number) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const ms = (n: number) => `${num(n)} ms`;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function benchOne(kind: string): Promise<BenchRow[]> {
  let handle: DatabaseHandle;
  let cleanup: () => Promise<void>;
  const schema = `bench_purge_${crypto.randomBytes(4).toString('hex')}`;
  if (kind === 'postgres') {
    const admin = openDatabase({ kind: 'postgres', url: PG_URL });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    handle = openDatabase({ kind: 'postgres', url: PG_URL, schema });
    cleanup = async () => {
      await handle.close();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-purge-'));
    handle = openDatabase({ kind: 'sqlite', file: path.join(dir, 'svc.db') });
    cleanup = async () => {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  const rows: BenchRow[] = [];
  const area = `purge (${kind})`;
  try {
    await migrate(handle.db);
    const t0 = performance.now();
    await fill(handle.db);
    // As a server that has been running would be: statistics gathered, the WAL checkpointed.
    if (kind === 'postgres') await sql`analyze`.execute(handle.db);
    else await sql`pragma wal_checkpoint(TRUNCATE)`.execute(handle.db);
    process.stdout.write(
      `\n${kind}: filled ${ROWS} expired + ${ROWS} live rows per table in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const before = await counts(handle.db);
    const held: Record<string, number[]> = {};
    // Batches over the goal, and of those the ones that spent under a quarter of it on this
    // process's CPU: on SQLite, where all the work is this process's, they waited (for a core or
    // the disk) rather than worked. On PostgreSQL the work is the server's, so it tells nothing.
    let over = 0;
    let waited = 0;
    const checkpoints: number[] = [];
    // The WAL each checkpoint found (frames), and whether it copied all of it.
    const wal: { frames: number; complete: boolean }[] = [];
    const catchUps: number[] = [];
    const cfg = config();
    let cpu = process.cpuUsage();
    let mark = performance.now();
    const onBatch = (job: string, timing: BatchTiming) => {
      (held[job] ??= []).push(timing.heldMs);
      if (timing.heldMs >= LIMIT_MS) {
        over += 1;
        if (timing.cpuMs < timing.heldMs / 4) waited += 1;
      }
      const end = performance.now();
      if (TRACE && timing.heldMs > 20) {
        // CPU and GC since the previous batch ended: this batch, the pause and checkpoint before it.
        const used = process.cpuUsage(cpu);
        const gc = gcPauses.filter(([a, b]) => b > end - timing.heldMs && a < end).map(([a, b]) => ms(b - a));
        process.stdout.write(
          `  ${job}: held ${ms(timing.heldMs)} = work ${ms(timing.workMs)} + commit ${ms(timing.commitMs)}` +
            (timing.catchUpMs ? ` + checkpoint catch-up ${ms(timing.catchUpMs)}` : '') +
            '; ' +
            `CPU ${ms(timing.cpuMs)} in it, ${ms((used.user + used.system) / 1000)} in the last ${ms(end - mark)}; ` +
            `GC ${gc.join(', ') || 'none'}\n`,
        );
      }
      cpu = process.cpuUsage();
      mark = end;
    };
    // Sampled every millisecond: a stall shorter than that is not one a request would notice.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const t1 = performance.now();
    const result = await purgeExpired(handle.db, handle.dialect, cfg, {
      onBatch,
      onCheckpoint: (c) => {
        checkpoints.push(c.endedAt - c.startedAt);
        wal.push({ frames: c.walFrames, complete: !c.busy && c.checkpointedFrames === c.walFrames });
        if (!c.caughtUp) catchUps.push(c.catchUpMs);
      },
      onCheckpointFailed: (err) => process.stdout.write(`checkpoint failed: ${err.message}\n`),
    });
    const total = (performance.now() - t1) / 1000;
    loop.disable();
    const after = await counts(handle.db);
    process.stdout.write(
      `batch size ≤ ${cfg.batchSize}; the whole purge ${total.toFixed(1)} s (with the pauses between batches); ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}\n`,
    );
    for (const [job, list] of Object.entries(held)) {
      const sorted = [...list].sort((a, b) => a - b);
      const max = sorted[sorted.length - 1]!;
      const slow = sorted.filter((m) => m >= LIMIT_MS).length;
      rows.push({
        area,
        measure: `${job}: lock per batch (${sorted.length}, ${slow} ≥ ${LIMIT_MS} ms)`,
        figure: `p50 ${num(pct(sorted, 50))}, p99 ${num(pct(sorted, 99))}, max ${ms(max)}`,
        goal: `every batch < ${LIMIT_MS} ms`,
        verdict: max < LIMIT_MS ? 'met' : 'NOT met',
      });
    }
    rows.push({
      area,
      measure:
        kind === 'sqlite'
          ? `batches over ${LIMIT_MS} ms, and of those waiting (CPU < 1/4 of it)`
          : `batches over ${LIMIT_MS} ms`,
      figure:
        `${over} of ${Object.values(held).reduce((n, l) => n + l.length, 0)}` +
        (kind === 'sqlite' ? `, ${waited} waiting` : ''),
      goal: '',
      verdict: 'info',
    });
    if (checkpoints.length) {
      const sorted = [...checkpoints].sort((a, b) => a - b);
      rows.push({
        area,
        measure: `checkpoint between batches (worker thread; not in the held time), ${sorted.length}`,
        figure: `p50 ${num(pct(sorted, 50))}, p99 ${num(pct(sorted, 99))}, max ${ms(sorted[sorted.length - 1]!)}`,
        goal: '',
        verdict: 'info',
      });
      rows.push({
        area,
        measure: 'WAL at the checkpoints: largest; copied all of it; caught up on this connection',
        figure:
          `${Math.max(...wal.map((w) => w.frames))} pages; ${wal.filter((w) => w.complete).length} of ${wal.length}; ` +
          `${catchUps.length}` +
          (catchUps.length ? `, max ${ms(Math.max(...catchUps))}` : ''),
        goal: '',
        verdict: 'info',
      });
    }
    rows.push({
      area,
      measure: 'event loop stalled during the purge (every request waits it out)',
      // The histogram is in nanoseconds, and counts the 1 ms sampling interval itself.
      figure: `p99 ${num(loop.percentile(99) / 1e6)}, max ${ms(loop.max / 1e6)}`,
      goal: '',
      verdict: 'info',
    });
    const wrong = TABLES.filter((t) => after[t] !== LIVE_LEFT[t]);
    for (const t of wrong) {
      process.stdout.write(
        `WRONG: ${t} has ${after[t]} rows left of ${before[t]}; expected the ${LIVE_LEFT[t]} live ones\n`,
      );
    }
    rows.push({
      area,
      measure: `${ROWS.toLocaleString('en')} expired + ${ROWS.toLocaleString('en')} live rows per table, ${TABLES.length} tables`,
      figure: wrong.length ? `wrong: ${wrong.join(', ')}` : `counts right; purge took ${total.toFixed(0)} s`,
      goal: 'expired gone, live kept',
      verdict: wrong.length ? 'WRONG' : 'met',
    });
    process.stdout.write(`deleted: ${JSON.stringify(result.deleted)}\n`);
  } finally {
    await cleanup();
  }
  return rows;
}

const rows: BenchRow[] = [];
for (const kind of DBS) rows.push(...(await benchOne(kind)));
report(rows);
