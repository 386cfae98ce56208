// The purge's batches at volume (docs/maintenance.md): on SQLite and on PostgreSQL, fills the
// purged tables with BENCH_PURGE_ROWS (100,000) expired rows each (deliveries with 3 attempts
// each; mail and idempotency answers with bodies of realistic size) and as many live rows beside
// them, then purges with the default batch size and reports each table's batches: count, median
// and slowest transaction. A batch over 50 ms, a live row deleted or an expired row left is
// printed as WRONG and the bench exits 1. The plan of each batch's select is printed too (SQLite's
// EXPLAIN QUERY PLAN), so a full scan is seen.
// Settings: BENCH_PURGE_ROWS (100000), BENCH_PURGE_DBS (sqlite,postgres), BENCH_PURGE_BATCH
// (SVC_PURGE_BATCH_SIZE's default), BENCH_PG_URL or DATABASE_URL (postgres://postgres@127.0.0.1:5432/test;
// the bench works in a schema of its own and drops it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle, type Db } from '../../server/db/index.ts';
import { parsePurgeConfig, type PurgeConfig } from '../../server/maintenance/config.ts';
import { purgeExpired } from '../../server/maintenance/purge.ts';

const ROWS = Number(process.env.BENCH_PURGE_ROWS ?? 100_000);
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
  const communityId = uuid();
  const userId = uuid();
  await db
    .insertInto('users')
    .values({
      id: userId,
      email: 'bench@example.com',
      name: 'B',
      usertag: 'bench',
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: null,
      created_at: iso(now),
    })
    .execute();
  await db
    .insertInto('communities')
    .values({
      id: communityId,
      tag: 'bench',
      name: 'Bench',
      visibility: 'PUBLIC',
      accessibility: 'OPEN',
      page_settings: '[]',
      storefront_config: '{}',
      theme_config: '{}',
      features: '[]',
      landing_url: null,
      embed_origins: '[]',
      rules_version: 0,
      founder_user_id: null,
      created_at: iso(now),
      updated_at: iso(now),
    })
    .execute();
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

async function benchOne(kind: string): Promise<boolean> {
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
  let ok = true;
  try {
    await migrate(handle.db);
    const t0 = performance.now();
    await fill(handle.db);
    if (kind === 'postgres') await sql`analyze`.execute(handle.db);
    process.stdout.write(
      `\n${kind}: filled ${ROWS} expired + ${ROWS} live rows per table in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const before = await counts(handle.db);
    const times: Record<string, number[]> = {};
    const cfg = config();
    const t1 = performance.now();
    const report = await purgeExpired(handle.db, handle.dialect, cfg, {
      onBatch: (job, ms) => (times[job] ??= []).push(ms),
    });
    const total = (performance.now() - t1) / 1000;
    const after = await counts(handle.db);
    process.stdout.write(
      `batch size ${cfg.batchSize}; the whole purge ${total.toFixed(1)} s (with the pauses between batches)\n`,
    );
    process.stdout.write(
      `${'job'.padEnd(24)}${'batches'.padStart(8)}${'p50 ms'.padStart(9)}${'max ms'.padStart(9)}  goal\n`,
    );
    for (const [job, ms] of Object.entries(times)) {
      const sorted = [...ms].sort((a, b) => a - b);
      const p50 = sorted[Math.floor(sorted.length / 2)];
      const max = sorted[sorted.length - 1];
      const wrong = max >= LIMIT_MS;
      if (wrong) ok = false;
      process.stdout.write(
        `${job.padEnd(24)}${String(ms.length).padStart(8)}${p50.toFixed(1).padStart(9)}${max.toFixed(1).padStart(9)}  < ${LIMIT_MS}${wrong ? '  WRONG' : ''}\n`,
      );
    }
    for (const t of TABLES) {
      if (after[t] !== LIVE_LEFT[t]) {
        ok = false;
        process.stdout.write(
          `WRONG: ${t} has ${after[t]} rows left of ${before[t]}; expected the ${LIVE_LEFT[t]} live ones\n`,
        );
      }
    }
    process.stdout.write(`deleted: ${JSON.stringify(report.deleted)}\n`);
  } finally {
    await cleanup();
  }
  return ok;
}

let ok = true;
for (const kind of DBS) ok = (await benchOne(kind)) && ok;
process.exitCode = ok ? 0 : 1;
