// The purge (server/maintenance/purge.ts) on a real database, SQLite or PostgreSQL (DATABASE_URL):
// per table, rows past their retention go and live rows stay, at the boundaries; it works in
// batches; two runs at once delete each row once without an error; the scheduler runs it and
// stops; `svc maintenance purge` prints the counts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import SQLite from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle, type Db } from '../../server/db/index.ts';
import { CATCH_UP_ROUNDS } from '../../server/db/sqlite-checkpointer.ts';
import { parsePurgeConfig, type PurgeConfig } from '../../server/maintenance/config.ts';
import {
  purgeExpired,
  type BatchTiming,
  type PurgeCheckpoint,
  type PurgeReport,
} from '../../server/maintenance/purge.ts';
import { PurgeScheduler } from '../../server/maintenance/scheduler.ts';
import { closeSharedDatabase, onPostgres, openSharedDatabase, runSvc, schemaUrl } from './support/cli.ts';
import { makeCommunity, makeUser } from './support/factory.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-06-15T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const id = () => crypto.randomUUID();

const schema = `purge_${crypto.randomBytes(6).toString('hex')}`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-purge-'));
const dataDir = path.join(tmp, 'data');
let database: DatabaseHandle;
let db: Db;

function config(overrides: Partial<PurgeConfig> = {}): PurgeConfig {
  const parsed = parsePurgeConfig({}, true);
  if (Array.isArray(parsed)) throw new Error(parsed.join('\n'));
  return { ...parsed, ...overrides };
}
// The defaults: idempotency keys 24 h, deliveries and mail 30 d, SMS 7 d, codes 1 d past expiry.
const DELIVERIES_BEFORE = NOW - 30 * DAY;
const MAIL_BEFORE = NOW - 30 * DAY;
const SMS_BEFORE = NOW - 7 * DAY;
const CODES_BEFORE = NOW - DAY;

let communityId: string;
let userId: string;
const endpointId = id();

beforeAll(async () => {
  database = await openSharedDatabase(schema, dataDir);
  db = database.db;
  // The rows the purged ones point at (foreign keys); their own dates do not matter.
  ({ id: communityId } = await makeCommunity(db, 'purge'));
  ({ id: userId } = await makeUser(db, 'p'));
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: endpointId,
      community_id: communityId,
      url: 'https://example.com/hook',
      description: null,
      events: '["*"]',
      status: 'ENABLED',
      disabled_reason: null,
      secret_ciphertext: null,
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
      created_at: iso(NOW),
      updated_at: iso(NOW),
    })
    .execute();
});

afterAll(async () => {
  await closeSharedDatabase(database, schema);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const TABLES = [
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_events',
  'idempotency_keys',
  'mail_outbox',
  'broadcasts',
  'sms_outbox',
  'sms_codes',
  'password_resets',
  'oauth_handoffs',
  'revoked_tokens',
] as const;

beforeEach(async () => {
  for (const t of TABLES) await db.deleteFrom(t).execute();
});

async function idsOf(table: (typeof TABLES)[number], column = 'id'): Promise<string[]> {
  const rows = await (db as any).selectFrom(table).select(column).execute();
  return rows.map((r: Record<string, string>) => r[column]).sort();
}

// ---------------------------------------------------------------------------------------------
// Rows, each named for what the purge must do with it.

async function idempotencyKey(
  name: string,
  expiresAt: number,
  state: 'done' | 'in_progress',
  lockedUntil = expiresAt - DAY,
) {
  await db
    .insertInto('idempotency_keys')
    .values({
      owner: 'key:test',
      idem_key: name,
      request_hash: 'h',
      state,
      response_status: state === 'done' ? 201 : null,
      response_body: state === 'done' ? '{}' : null,
      response_headers: null,
      created_at: iso(expiresAt - DAY),
      expires_at: iso(expiresAt),
      locked_until: iso(lockedUntil),
      lock_token: id(),
    })
    .execute();
}

async function event(name: string, createdAt: number): Promise<string> {
  await db
    .insertInto('webhook_events')
    .values({
      id: name,
      community_id: communityId,
      community_tag: 'purge',
      name: 'article.published',
      data: '{}',
      created_at: iso(createdAt),
    })
    .execute();
  return name;
}

async function delivery(
  name: string,
  eventId: string,
  status: 'PENDING' | 'SUCCEEDED' | 'PERMANENTLY_FAILED' | 'CANCELLED',
  updatedAt: number,
  attempts = 2,
) {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: name,
      event_id: eventId,
      endpoint_id: endpointId,
      community_id: communityId,
      status,
      next_attempt_at: status === 'PENDING' ? iso(NOW) : null,
      lease_token: null,
      previous_lease_token: null,
      last_attempt_at: null,
      last_status_code: null,
      last_error: null,
      created_at: iso(updatedAt - HOUR),
      updated_at: iso(updatedAt),
    })
    .execute();
  for (let n = 1; n <= attempts; n += 1) {
    await db
      .insertInto('webhook_attempts')
      .values({
        id: `${name}-a${n}`,
        delivery_id: name,
        number: n,
        round: 1,
        outcome: 'FAILED',
        started_at: iso(updatedAt - HOUR),
        duration_ms: 5,
        status_code: 500,
        response_body: null,
        error: null,
      })
      .execute();
  }
}

async function mail(name: string, fields: { sent?: number; failed?: number; queued?: boolean; broadcastId?: string }) {
  await db
    .insertInto('mail_outbox')
    .values({
      id: name,
      to_address: 'a@example.com',
      subject: 's',
      text_body: 't',
      html_body: null,
      created_at: iso((fields.sent ?? fields.failed ?? NOW) - HOUR),
      sent_at: fields.sent === undefined ? null : iso(fields.sent),
      failed_at: fields.failed === undefined ? null : iso(fields.failed),
      next_attempt_at: fields.queued ? iso(NOW) : null,
      attempts: 1,
      broadcast_id: fields.broadcastId ?? null,
    })
    .execute();
}

async function broadcast(name: string, expandedAt: number | null) {
  await db
    .insertInto('broadcasts')
    .values({
      id: name,
      community_id: communityId,
      subject: 's',
      text: 't',
      status: expandedAt === null ? 'SENDING' : 'SENT',
      send_at: iso(NOW - 60 * DAY),
      recipients: 1,
      expanded_at: expandedAt === null ? null : iso(expandedAt),
      created_at: iso(NOW - 60 * DAY),
    } as any)
    .execute();
}

async function sms(name: string, createdAt: number) {
  await db
    .insertInto('sms_outbox')
    .values({ id: name, to_number: '+14155550123', text_body: 'x', created_at: iso(createdAt), sent_at: null })
    .execute();
}

async function signInSecrets(name: string, expiresAt: number) {
  await db
    .insertInto('sms_codes')
    .values({
      id: name,
      phone: `+1415555${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}`,
      user_id: userId,
      code_hash: 'h',
      created_at: iso(expiresAt - HOUR),
      expires_at: iso(expiresAt),
      used_at: iso(expiresAt - HOUR),
      superseded_at: null,
    })
    .execute();
  await db
    .insertInto('password_resets')
    .values({
      id: name,
      user_id: userId,
      token_hash: `th-${name}`,
      created_at: iso(expiresAt - HOUR),
      expires_at: iso(expiresAt),
      used_at: null,
    })
    .execute();
  await db
    .insertInto('oauth_handoffs')
    .values({
      code_hash: name,
      origin: 'https://x.example',
      bind_hash: 'b',
      return_to: '/',
      provider: 'google',
      subject: 's',
      email: null,
      email_verified: 0,
      name: null,
      link_user_id: null,
      created_at: iso(expiresAt - HOUR),
      expires_at: iso(expiresAt),
    })
    .execute();
  await db
    .insertInto('revoked_tokens')
    .values({ session_id: name, user_id: userId, expires_at: iso(expiresAt) })
    .execute();
}

/** The CLI's environment: the same database as this file's. */
const cliEnv = () => ({ SVC_DATA_DIR: dataDir, DATABASE_URL: onPostgres ? schemaUrl(schema) : '', REDIS_URL: '' });

const run = (overrides: Partial<PurgeConfig> = {}, on: Db = db): Promise<PurgeReport> =>
  // Batches of exactly the configured size, so they can be counted.
  purgeExpired(on, onPostgres ? 'postgres' : 'sqlite', config(overrides), { now: NOW, pauseMs: 0, adaptive: false });

describe('purge: expired rows go, live rows stay', () => {
  it('idempotency keys: past the 24 h window go; inside it, or held by a running request, stay', async () => {
    await idempotencyKey('expired', NOW - 1, 'done');
    await idempotencyKey('at-the-boundary', NOW, 'done');
    await idempotencyKey('live', NOW + HOUR, 'done');
    await idempotencyKey('expired-but-held', NOW - HOUR, 'in_progress', NOW + 10_000);
    await idempotencyKey('expired-abandoned', NOW - HOUR, 'in_progress', NOW - 5_000);
    const report = await run();
    expect(report.deleted.idempotency_keys).toBe(2);
    expect(await idsOf('idempotency_keys', 'idem_key')).toEqual(['at-the-boundary', 'expired-but-held', 'live']);
  });

  it('idempotency keys: a longer retention keeps them longer (counted from when the key was made)', async () => {
    await idempotencyKey('made-47h-ago', NOW - 23 * HOUR, 'done');
    await idempotencyKey('made-49h-ago', NOW - 25 * HOUR, 'done');
    const report = await run({ retention: { ...config().retention, idempotencyKeysMs: 48 * HOUR } });
    expect(report.deleted.idempotency_keys).toBe(1);
    expect(await idsOf('idempotency_keys', 'idem_key')).toEqual(['made-47h-ago']);
  });

  it('webhooks: finished deliveries past the retention go with their attempts; pending ones, recent ones and the events they need stay', async () => {
    const old = await event('e-old', DELIVERIES_BEFORE - DAY);
    await delivery('d-succeeded-old', old, 'SUCCEEDED', DELIVERIES_BEFORE - 1);
    await delivery('d-failed-old', old, 'PERMANENTLY_FAILED', DELIVERIES_BEFORE - DAY, 6);
    await delivery('d-cancelled-old', old, 'CANCELLED', DELIVERIES_BEFORE - DAY, 0);
    const held = await event('e-held-by-pending', DELIVERIES_BEFORE - 2 * DAY);
    await delivery('d-pending-old', held, 'PENDING', DELIVERIES_BEFORE - DAY);
    const recent = await event('e-held-by-recent', DELIVERIES_BEFORE - DAY);
    await delivery('d-succeeded-at-boundary', recent, 'SUCCEEDED', DELIVERIES_BEFORE);
    await event('e-unreferenced-old', DELIVERIES_BEFORE - 1);
    await event('e-unreferenced-recent', DELIVERIES_BEFORE);
    const report = await run();
    expect(report.deleted).toMatchObject({ webhook_deliveries: 3, webhook_attempts: 8, webhook_events: 2 });
    expect(await idsOf('webhook_deliveries')).toEqual(['d-pending-old', 'd-succeeded-at-boundary']);
    expect(await idsOf('webhook_attempts')).toEqual([
      'd-pending-old-a1',
      'd-pending-old-a2',
      'd-succeeded-at-boundary-a1',
      'd-succeeded-at-boundary-a2',
    ]);
    expect(await idsOf('webhook_events')).toEqual(['e-held-by-pending', 'e-held-by-recent', 'e-unreferenced-recent']);
  });

  it('mail: sent and failed mail past the retention goes; queued mail, recent mail and a broadcast still being written stay', async () => {
    await broadcast('b-expanding', null);
    await broadcast('b-expanded', MAIL_BEFORE - 2 * DAY);
    await mail('m-sent-old', { sent: MAIL_BEFORE - 1 });
    await mail('m-sent-at-boundary', { sent: MAIL_BEFORE });
    await mail('m-failed-old', { failed: MAIL_BEFORE - DAY });
    await mail('m-failed-recent', { failed: NOW - DAY });
    await mail('m-queued-old', { queued: true });
    await mail('m-failed-old-requeued', { failed: MAIL_BEFORE - DAY, queued: true });
    await mail('m-sent-old-of-expanding-broadcast', { sent: MAIL_BEFORE - DAY, broadcastId: 'b-expanding' });
    await mail('m-sent-old-of-expanded-broadcast', { sent: MAIL_BEFORE - DAY, broadcastId: 'b-expanded' });
    const report = await run();
    expect(report.deleted.mail_outbox).toBe(3);
    expect(await idsOf('mail_outbox')).toEqual([
      'm-failed-old-requeued',
      'm-failed-recent',
      'm-queued-old',
      'm-sent-at-boundary',
      'm-sent-old-of-expanding-broadcast',
    ]);
  });

  it('the SMS outbox: messages older than the retention go', async () => {
    await sms('s-old', SMS_BEFORE - 1);
    await sms('s-at-boundary', SMS_BEFORE);
    await sms('s-new', NOW);
    const report = await run();
    expect(report.deleted.sms_outbox).toBe(1);
    expect(await idsOf('sms_outbox')).toEqual(['s-at-boundary', 's-new']);
  });

  it('sign-in secrets (SMS codes, reset tokens, OAuth handoffs, revoked sessions): past expiry plus the retention they go; live ones stay', async () => {
    await signInSecrets('c-long-expired', CODES_BEFORE - 1);
    await signInSecrets('c-at-boundary', CODES_BEFORE);
    await signInSecrets('c-just-expired', NOW - 1);
    await signInSecrets('c-live', NOW + 10 * 60 * 1000);
    const report = await run();
    expect(report.deleted).toMatchObject({ sms_codes: 1, password_resets: 1, oauth_handoffs: 1, revoked_tokens: 1 });
    const left = ['c-at-boundary', 'c-just-expired', 'c-live'];
    expect(await idsOf('sms_codes')).toEqual(left);
    expect(await idsOf('password_resets')).toEqual(left);
    expect(await idsOf('oauth_handoffs', 'code_hash')).toEqual(left);
    expect(await idsOf('revoked_tokens', 'session_id')).toEqual(left);
    // A retention of 0 purges everything that has expired, and still nothing live.
    await run({ retention: { ...config().retention, signInCodesMs: 0 } });
    expect(await idsOf('sms_codes')).toEqual(['c-live']);
    expect(await idsOf('revoked_tokens', 'session_id')).toEqual(['c-live']);
  });
});

describe('purge: batches', { timeout: 60_000 }, () => {
  it('deletes in batches of the configured size: 5 rows in batches of 2 is 3 batches', async () => {
    for (let i = 0; i < 5; i += 1) await sms(`s-${i}`, SMS_BEFORE - DAY - i);
    await sms('s-live', NOW);
    const report = await run({ batchSize: 2 });
    expect(report.batches).toBe(3);
    expect(report.deleted.sms_outbox).toBe(5);
    expect(report.complete).toBe(true);
    expect(await idsOf('sms_outbox')).toEqual(['s-live']);
    // Nothing left to do: a second run deletes nothing.
    const again = await run({ batchSize: 2 });
    expect(again.batches).toBe(0);
    expect(Object.values(again.deleted).every((n) => n === 0)).toBe(true);
  });

  it('by default starts each table with a batch of 50 and never exceeds the configured size', async () => {
    for (let i = 0; i < 300; i += 1) await sms(`s-${String(i).padStart(3, '0')}`, SMS_BEFORE - DAY - i);
    const sizes: number[] = [];
    const report = await purgeExpired(db, onPostgres ? 'postgres' : 'sqlite', config({ batchSize: 120 }), {
      now: NOW,
      pauseMs: 0,
      onBatch: (job, _ms, deleted) => {
        if (job === 'sms_outbox') sizes.push(deleted.sms_outbox ?? 0);
      },
    });
    expect(report.deleted.sms_outbox).toBe(300);
    expect(sizes[0]).toBe(50);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(120);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(300);
  });

  it('reports the lock each batch held, and on SQLite checkpoints between batches in a worker and restores wal_autocheckpoint', async () => {
    for (let i = 0; i < 40; i += 1) await sms(`s-${String(i).padStart(2, '0')}`, SMS_BEFORE - DAY - i);
    const timings: BatchTiming[] = [];
    const checkpoints: PurgeCheckpoint[] = [];
    const failures: Error[] = [];
    const report = await purgeExpired(db, onPostgres ? 'postgres' : 'sqlite', config({ batchSize: 2 }), {
      now: NOW,
      pauseMs: 0,
      adaptive: false,
      onBatch: (_job, timing) => timings.push(timing),
      onCheckpoint: (c) => checkpoints.push(c),
      onCheckpointFailed: (err) => failures.push(err),
    });
    expect(report.batches).toBe(20);
    for (const t of timings) {
      expect(t.heldMs).toBeGreaterThanOrEqual(t.workMs);
      // The worker's checkpoints hold neither the lock nor this process's connection: only a
      // catch-up on the connection counts, and nothing was written here to need one.
      expect(t.catchUpMs).toBe(0);
      expect(t.heldMs).toBeCloseTo(t.workMs + t.commitMs, 6);
    }
    expect(report.slowestBatchMs).toBe(Math.max(...timings.map((t) => t.heldMs)));
    expect(failures).toEqual([]);
    if (onPostgres) {
      expect(checkpoints).toHaveLength(0);
      return;
    }
    // Every 8 batches and once at the end; each copied the whole WAL (no reader held any of it),
    // and nothing was written while it ran, so no catch-up.
    expect(checkpoints).toHaveLength(3);
    for (const c of checkpoints) {
      expect(c.busy).toBe(false);
      expect(c.walFrames).toBeGreaterThan(0);
      expect(c.checkpointedFrames).toBe(c.walFrames);
      expect(c.caughtUp).toBe(true);
      expect(c.catchUpMs).toBe(0);
    }
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(Number(rows[0]!.wal_autocheckpoint)).toBe(1000);
  });

  it.skipIf(onPostgres)(
    'SQLite: the purging process reads and writes while a checkpoint runs (in the worker), and the WAL still starts over',
    async () => {
      // About 8 MB of expired mail left in the WAL (automatic checkpoints off while it is written),
      // so the purge's first checkpoint copies it: tens of milliseconds, long enough to watch.
      await sql`pragma wal_autocheckpoint = 0`.execute(db);
      try {
        for (let i = 0; i < 40; i += 1) {
          await db
            .insertInto('mail_outbox')
            .values(
              Array.from({ length: 50 }, (_, j) => ({
                id: `m-${i}-${j}`,
                to_address: 'a@example.com',
                subject: 's',
                text_body: 'x'.repeat(4000),
                html_body: null,
                created_at: iso(MAIL_BEFORE - 2 * DAY),
                sent_at: iso(MAIL_BEFORE - DAY),
                failed_at: null,
                next_attempt_at: null,
                attempts: 1,
                broadcast_id: null,
              })),
            )
            .execute();
        }
      } finally {
        await sql`pragma wal_autocheckpoint = 1000`.execute(db);
      }
      // This process's requests, as it were: a write and a read on the same connection, about every
      // millisecond, from the purge's first batch (automatic checkpoints are off by then, so the
      // mail above stays in the WAL) to its end.
      const answered: number[] = [];
      let running = true;
      let requests: Promise<void> | null = null;
      const startRequests = async () => {
        while (running) {
          await sms(`s-live-${answered.length}`, NOW);
          await idsOf('webhook_events');
          answered.push(performance.timeOrigin + performance.now());
          await new Promise((r) => setTimeout(r, 1));
        }
      };
      const checkpoints: PurgeCheckpoint[] = [];
      try {
        const report = await purgeExpired(db, 'sqlite', config({ batchSize: 50 }), {
          now: NOW,
          pauseMs: 0,
          adaptive: false,
          onBatch: () => void (requests ??= startRequests()),
          onCheckpoint: (c) => checkpoints.push(c),
        });
        expect(report.deleted.mail_outbox).toBe(2000);
      } finally {
        running = false;
        await requests;
      }
      expect(answered.length).toBeGreaterThan(0);
      // The first one copied the mail written above (the requests' last writes may be left to the
      // catch-up), and requests were answered while it ran.
      const [first, ...later] = checkpoints;
      expect(first!.checkpointedFrames).toBeGreaterThan(2000);
      expect(answered.filter((t) => t > first!.startedAt && t < first!.endedAt).length).toBeGreaterThan(0);
      // What the requests wrote meanwhile did not keep the WAL from starting over (the worker's
      // rounds, or the catch-up after them): each later checkpoint found only what came after the
      // one before, far less than the first.
      expect(later.length).toBeGreaterThanOrEqual(4);
      for (const c of later) expect(c.walFrames).toBeLessThan(first!.walFrames / 2);
    },
  );

  it.skipIf(onPostgres)(
    'SQLite: when the worker cannot copy all of the WAL, the catch-up runs on the connection and counts as held',
    async () => {
      for (let i = 0; i < 40; i += 1) await sms(`s-${String(i).padStart(2, '0')}`, SMS_BEFORE - DAY - i);
      // A reader in another connection keeps its snapshot from before the purge: no checkpoint may
      // copy what was written after it, so the worker's rounds never get to the end of the WAL.
      const reader = new SQLite(path.join(dataDir, 'svc.db'));
      try {
        reader.prepare('begin').run();
        reader.prepare('select count(*) from sms_outbox').get();
        const timings: BatchTiming[] = [];
        const checkpoints: PurgeCheckpoint[] = [];
        const report = await purgeExpired(db, 'sqlite', config({ batchSize: 2 }), {
          now: NOW,
          pauseMs: 0,
          adaptive: false,
          onBatch: (_job, timing) => timings.push(timing),
          onCheckpoint: (c) => checkpoints.push(c),
        });
        expect(report.deleted.sms_outbox).toBe(40);
        // Every 8 batches and at the end: not caught up, each after its last round.
        expect(checkpoints.map((c) => [c.caughtUp, c.rounds])).toEqual([
          [false, CATCH_UP_ROUNDS],
          [false, CATCH_UP_ROUNDS],
          [false, CATCH_UP_ROUNDS],
        ]);
        for (const c of checkpoints) {
          expect(c.checkpointedFrames).toBeLessThan(c.walFrames);
          expect(c.catchUpMs).toBeGreaterThan(0);
        }
        // The catch-ups held this process's connection: in the held time of batches 8 and 16, and
        // the final one in the slowest.
        expect(timings.map((t, i) => (t.catchUpMs > 0 ? i + 1 : 0)).filter(Boolean)).toEqual([8, 16]);
        expect(timings.filter((t) => t.catchUpMs > 0).map((t) => t.catchUpMs)).toEqual(
          checkpoints.slice(0, 2).map((c) => c.catchUpMs),
        );
        for (const t of timings) expect(t.heldMs).toBeCloseTo(t.workMs + t.commitMs + t.catchUpMs, 6);
        expect(report.slowestBatchMs).toBe(Math.max(...timings.map((t) => t.heldMs), checkpoints[2]!.catchUpMs));
      } finally {
        reader.prepare('commit').run();
        reader.close();
      }
    },
  );

  it.skipIf(onPostgres)(
    'SQLite: a checkpoint that fails is reported, automatic checkpoints come back, and the purge finishes',
    async () => {
      // A database whose file was moved while the process had it open: this connection keeps
      // working, and the worker's connection, opened by the path, cannot find it.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-purge-moved-'));
      const moved = openDatabase({ kind: 'sqlite', file: path.join(dir, 'svc.db') });
      try {
        await migrate(moved.db);
        for (let i = 0; i < 20; i += 1) {
          await moved.db
            .insertInto('sms_outbox')
            .values({
              id: `s-${i}`,
              to_number: '+14155550123',
              text_body: 'x',
              created_at: iso(SMS_BEFORE - DAY - i),
              sent_at: null,
            })
            .execute();
        }
        fs.renameSync(path.join(dir, 'svc.db'), path.join(dir, 'elsewhere.db'));
        const failures: Error[] = [];
        const checkpoints: PurgeCheckpoint[] = [];
        const report = await purgeExpired(moved.db, 'sqlite', config({ batchSize: 2 }), {
          now: NOW,
          pauseMs: 0,
          adaptive: false,
          onCheckpoint: (c) => checkpoints.push(c),
          onCheckpointFailed: (err) => failures.push(err),
        });
        expect(report.complete).toBe(true);
        expect(report.deleted.sms_outbox).toBe(20);
        // Reported once: after it the purge leaves checkpoints to SQLite, as outside a purge.
        expect(failures.map((e) => e.message)).toEqual(['SQLite checkpoint failed: unable to open database file']);
        expect(checkpoints).toEqual([]);
        const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(moved.db);
        expect(Number(rows[0]!.wal_autocheckpoint)).toBe(1000);
      } finally {
        await moved.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(onPostgres)('SQLite in memory: no WAL, so no checkpoint and no worker', async () => {
    const memory = openDatabase({ kind: 'sqlite', file: ':memory:' });
    try {
      await migrate(memory.db);
      await memory.db
        .insertInto('sms_outbox')
        .values({
          id: 's-old',
          to_number: '+14155550123',
          text_body: 'x',
          created_at: iso(SMS_BEFORE - DAY),
          sent_at: null,
        })
        .execute();
      const checkpoints: PurgeCheckpoint[] = [];
      const report = await purgeExpired(memory.db, 'sqlite', config(), {
        now: NOW,
        onCheckpoint: (c) => checkpoints.push(c),
      });
      expect(report.deleted.sms_outbox).toBe(1);
      expect(checkpoints).toEqual([]);
    } finally {
      await memory.close();
    }
  });

  it('events a live delivery holds are skipped without stopping the batches after them', async () => {
    // Two batches of 2: the held events sit between unreferenced ones.
    await event('e-1', DELIVERIES_BEFORE - 10 * HOUR);
    const held = await event('e-2', DELIVERIES_BEFORE - 9 * HOUR);
    await delivery('d-held', held, 'PENDING', NOW, 0);
    await event('e-3', DELIVERIES_BEFORE - 8 * HOUR);
    await event('e-4', DELIVERIES_BEFORE - 7 * HOUR);
    await event('e-5', DELIVERIES_BEFORE - 6 * HOUR);
    const report = await run({ batchSize: 2 });
    expect(report.deleted.webhook_events).toBe(4);
    expect(await idsOf('webhook_events')).toEqual(['e-2']);
  });

  it('stops between batches when told to, and the next run finishes the work', async () => {
    for (let i = 0; i < 6; i += 1) await sms(`s-${i}`, SMS_BEFORE - DAY - i);
    let asked = 0;
    const report = await purgeExpired(db, onPostgres ? 'postgres' : 'sqlite', config({ batchSize: 2 }), {
      now: NOW,
      pauseMs: 0,
      adaptive: false,
      // Asked before each batch: once for each of the 5 jobs before the SMS outbox (nothing to
      // do there), then before its first batch; stopped before its second.
      stopped: () => ++asked > 6,
    });
    expect(report.complete).toBe(false);
    expect(report.deleted.sms_outbox).toBe(2);
    expect((await idsOf('sms_outbox')).length).toBe(4);
    expect((await run({ batchSize: 2 })).deleted.sms_outbox).toBe(4);
  });

  it('two processes purging one database at once delete every row once, without an error', async () => {
    // Far in the past for both: the CLI counts from its own clock.
    for (let i = 0; i < 300; i += 1) await sms(`s-${String(i).padStart(3, '0')}`, NOW - 30 * DAY - i);
    for (let i = 0; i < 100; i += 1) await signInSecrets(`c-${i}`, NOW - 30 * DAY - i);
    // The other process is the CLI, started first so both are at work together.
    const other = runSvc(['maintenance', 'purge', '--batch-size', '3', '--json'], cliEnv());
    await expect
      .poll(async () => (await idsOf('sms_outbox')).length, { timeout: 20_000, interval: 20 })
      .toBeLessThan(300);
    const mine = await purgeExpired(db, onPostgres ? 'postgres' : 'sqlite', config({ batchSize: 3 }), { pauseMs: 5 });
    const cli = await other;
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const theirs = JSON.parse(cli.stdout);
    // Both did part of the work.
    expect(mine.deleted.sms_outbox + mine.deleted.sms_codes).toBeGreaterThan(0);
    expect(theirs.deleted.sms_outbox).toBeGreaterThan(0);
    expect(mine.deleted.sms_outbox + theirs.deleted.sms_outbox).toBe(300);
    expect(mine.deleted.revoked_tokens + theirs.deleted.revoked_tokens).toBe(100);
    expect(mine.deleted.sms_codes + theirs.deleted.sms_codes).toBe(100);
    expect(await idsOf('sms_outbox')).toEqual([]);
    expect(await idsOf('sms_codes')).toEqual([]);
  });
});

describe('purge: index-bound', () => {
  it('every statement of a purge reads through an index: no full scan, no sort of what it finds', async () => {
    // One row of every kind the purge deletes, so every job runs its pick and its delete.
    await idempotencyKey('expired', NOW - HOUR, 'done');
    const old = await event('e-old', DELIVERIES_BEFORE - DAY);
    await delivery('d-old', old, 'SUCCEEDED', DELIVERIES_BEFORE - DAY);
    await event('e-unreferenced', DELIVERIES_BEFORE - DAY);
    await broadcast('b-expanded', MAIL_BEFORE - 2 * DAY);
    await mail('m-sent', { sent: MAIL_BEFORE - DAY, broadcastId: 'b-expanded' });
    await mail('m-failed', { failed: MAIL_BEFORE - DAY });
    await sms('s-old', SMS_BEFORE - DAY);
    await signInSecrets('c-old', CODES_BEFORE - HOUR);
    const statements: { sql: string; parameters: readonly unknown[] }[] = [];
    const onQuery = (text: string, parameters: readonly unknown[]) => {
      if (/^\s*(select|delete)/i.test(text)) statements.push({ sql: text, parameters });
    };
    const watched = onPostgres
      ? openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL as string, schema }, { onQuery })
      : openDatabase({ kind: 'sqlite', file: path.join(dataDir, 'svc.db') }, { onQuery });
    try {
      // Batches of one: the second batch of each table runs too (the events' cursor is in it).
      const report = await run({ batchSize: 1 }, watched.db);
      expect(Object.values(report.deleted).every((n) => n > 0)).toBe(true);
      expect(statements.some((st) => /\(\s*"e"\."created_at",\s*"e"\."id"\s*\)\s*>/.test(st.sql))).toBe(true);
      expect(statements.length).toBeGreaterThanOrEqual(20);
      const problems: string[] = [];
      await watched.db.connection().execute(async (conn) => {
        // On a table this small PostgreSQL would rightly scan it: forbid that, so a plan without a
        // usable index shows as a Seq Scan.
        if (onPostgres) await conn.executeQuery(CompiledQuery.raw('set enable_seqscan = off'));
        for (const s of statements) {
          const explain = onPostgres ? `explain ${s.sql}` : `explain query plan ${s.sql}`;
          const { rows } = await conn.executeQuery<Record<string, string>>(
            CompiledQuery.raw(explain, [...s.parameters]),
          );
          const plan = rows.map((r) => (onPostgres ? r['QUERY PLAN'] : r.detail));
          const bad = plan.filter((line) =>
            onPostgres ? /Seq Scan/.test(line) : /^SCAN (?!.*USING (COVERING )?INDEX)|USE TEMP B-TREE/.test(line),
          );
          if (bad.length > 0) problems.push(`${s.sql}\n  ${plan.join('\n  ')}`);
        }
        if (onPostgres) await conn.executeQuery(CompiledQuery.raw('reset enable_seqscan'));
      });
      expect(problems).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});

describe('purge: the schedule', () => {
  it('runs on its interval, and a stop ends it: nothing is purged after', async () => {
    await sms('s-old', SMS_BEFORE - DAY);
    const runs: PurgeReport[] = [];
    let ran!: () => void;
    const firstRun = new Promise<void>((resolve) => {
      ran = resolve;
    });
    const scheduler = new PurgeScheduler({
      db,
      dialect: onPostgres ? 'postgres' : 'sqlite',
      // Real time here: the row above is long past the 7-day retention.
      config: config({ intervalMs: 50 }),
      logger: pino({ level: 'silent' }),
      firstRunMs: 0,
      pauseMs: 0,
      onRun: (r) => {
        runs.push(r);
        ran();
      },
    });
    scheduler.start();
    try {
      await firstRun;
      expect(runs[0].deleted.sms_outbox).toBe(1);
      // It runs again on its interval.
      await sms('s-old-2', SMS_BEFORE - DAY);
      await expect.poll(() => idsOf('sms_outbox'), { timeout: 5000 }).toEqual([]);
      // The row goes before the run has been through the tables after it and reports.
      await expect.poll(() => runs.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    } finally {
      await scheduler.stop();
    }
    const after = runs.length;
    await sms('s-after-stop', SMS_BEFORE - DAY);
    await new Promise((r) => setTimeout(r, 300));
    expect(runs.length).toBe(after);
    expect(await idsOf('sms_outbox')).toEqual(['s-after-stop']);
  });
});

describe('svc maintenance purge', { timeout: 60_000 }, () => {
  const env = cliEnv;

  it('purges once and prints what it deleted per table (text and --json)', async () => {
    // Real time: rows far in the past.
    for (let i = 0; i < 3; i += 1) await sms(`s-${i}`, Date.now() - 30 * DAY - i);
    await signInSecrets('c-old', Date.now() - 3 * DAY);
    await sms('s-live', Date.now());
    const text = await runSvc(['maintenance', 'purge', '--batch-size', '2'], env());
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^sms_outbox\s+3$/m);
    expect(text.stdout).toMatch(/^revoked_tokens\s+1$/m);
    expect(text.stdout).toMatch(/^webhook_deliveries\s+0$/m);
    expect(text.stdout).toMatch(/^\d+ batches, the slowest [\d.]+ ms$/m);
    expect(await idsOf('sms_outbox')).toEqual(['s-live']);

    await sms('s-old-again', Date.now() - 30 * DAY);
    const json = await runSvc(['maintenance', 'purge', '--json'], { ...env(), SVC_RETAIN_SMS: '1h' });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.deleted.sms_outbox).toBe(1);
    expect(report.batches).toBe(1);
    expect(typeof report.slowestBatchMs).toBe('number');
  });

  it('follows SVC_RETAIN_*: a longer retention keeps the rows', async () => {
    await sms('s-10-days', Date.now() - 10 * DAY);
    const r = await runSvc(['maintenance', 'purge', '--json'], { ...env(), SVC_RETAIN_SMS: '30d' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).deleted.sms_outbox).toBe(0);
    expect(await idsOf('sms_outbox')).toEqual(['s-10-days']);
  });

  it('refuses a bad --batch-size and a retention shorter than the idempotency window', async () => {
    const bad = await runSvc(['maintenance', 'purge', '--batch-size', '0'], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--batch-size must be a whole number from 1 to 10000/);
    const short = await runSvc(['maintenance', 'purge'], { ...env(), SVC_RETAIN_IDEMPOTENCY_KEYS: '1h' });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/SVC_RETAIN_IDEMPOTENCY_KEYS: must be a duration of at least 24h/);
  });
});
