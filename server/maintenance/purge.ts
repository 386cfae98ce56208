// Purges what has served its purpose, so no table grows forever (docs/maintenance.md): idempotency
// keys past their window, finished webhook deliveries with their attempt logs, events no delivery
// needs, sent and failed mail, the SMS outbox, and sign-in secrets past their expiry. What is still
// live is never touched: an idempotency key a request holds, a pending delivery, queued mail, a
// code or session that has not expired.
//
// Small batches, so no batch holds a lock for long: each picks at most `batchSize` primary keys
// through an index ordered by the expiry time, deletes them in its own short transaction, and then
// yields before the next one, so requests and workers get the database in between. On PostgreSQL
// the pick locks its rows `FOR UPDATE SKIP LOCKED`: two processes purging at once take different
// rows and never wait on each other. On SQLite the batch takes the write lock at its start (BEGIN
// IMMEDIATE), so what it picked is what it deletes.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Db, Dialect } from '../db/index.ts';
import { SqliteCheckpointer, type CheckpointResult } from '../db/sqlite-checkpointer.ts';
import { IDEMPOTENCY_WINDOW_MS, type PurgeConfig } from './config.ts';

export const PURGED_TABLES = [
  'idempotency_keys',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_events',
  'mail_outbox',
  'sms_outbox',
  'sms_codes',
  'password_resets',
  'oauth_handoffs',
  'revoked_tokens',
] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];

export interface PurgeReport {
  /** Rows deleted per table. */
  deleted: Record<PurgedTable, number>;
  batches: number;
  /**
   * The longest a batch held the database (BatchTiming.heldMs), or (SQLite) the final checkpoint's
   * catch-up held this process's connection, in milliseconds.
   */
  slowestBatchMs: number;
  /** False when it was stopped before it had gone through every table. */
  complete: boolean;
}

export interface PurgeOptions {
  /** The time the retentions count back from (default: now). */
  now?: number;
  /** Pause between two batches (default 10 ms): other writers get the database in between. */
  pauseMs?: number;
  /** Asked between batches: true ends the run after the batch in flight. */
  stopped?: () => boolean;
  /** Told after every batch: which job, how long it held its lock and on what, what it deleted. */
  onBatch?: (job: string, timing: BatchTiming, deleted: Deleted) => void;
  /**
   * SQLite: told what each of the purge's checkpoints did. They run in a worker thread, holding
   * neither the write lock nor this process's connection, except their catch-up (sqliteCheckpoints).
   */
  onCheckpoint?: (checkpoint: PurgeCheckpoint) => void;
  /**
   * SQLite: told when a checkpoint failed. The run goes on with SQLite's automatic checkpoints back
   * on, as outside a purge; the error is for the log.
   */
  onCheckpointFailed?: (err: Error) => void;
  /**
   * Adapt the batch size to the time batches take (default true): see BATCH_TARGET_MS. False:
   * every batch is `batchSize` rows (tests that count batches).
   */
  adaptive?: boolean;
}

/**
 * What a batch should take. A batch slower than this halves the next one, one faster than half
 * of it doubles the next (up to `batchSize`): the time per row depends on the machine, the load,
 * the row size and the indexes, and the promise is a lock held under 50 ms, not a row count.
 */
export const BATCH_TARGET_MS = 20;
/** The first batch of each table: small, since the first one also warms the cache. */
const FIRST_BATCH = 50;

type AnyDb = Kysely<any>;
type Deleted = Partial<Record<PurgedTable, number>>;

/** One kind of expired row: deletes one batch and says how many rows it picked. */
interface PurgeJob {
  name: string;
  batch(db: AnyDb, limit: number): Promise<{ picked: number; deleted: Deleted }>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const count = (r: { numDeletedRows: bigint }[]) => r.reduce((n, x) => n + Number(x.numDeletedRows), 0);

/** One of the purge's SQLite checkpoints: what the worker did, and the catch-up after it. */
export interface PurgeCheckpoint extends CheckpointResult {
  /** How long the catch-up held this process's connection (0 where the worker caught up). */
  catchUpMs: number;
}

/** What one batch transaction took, in milliseconds (see `batchTransaction`). */
export interface BatchTiming {
  /**
   * What the batch held: the lock, from the moment the transaction holds it to the end of its
   * COMMIT; on SQLite, plus a checkpoint's catch-up run right after it (catchUpMs), which holds the
   * process's one connection (server/db/index.ts), so its requests wait for it as for the lock.
   */
  heldMs: number;
  /** Of that, picking the rows and deleting them. */
  workMs: number;
  /** Of that, the COMMIT (on SQLite with automatic checkpoints on, a checkpoint may run in it). */
  commitMs: number;
  /** Of that, the catch-up of the SQLite checkpoint after the COMMIT (0 where none ran). */
  catchUpMs: number;
  /**
   * This process's CPU time meanwhile. A batch that held its lock far longer than this waited:
   * for a core on a busy machine, for the disk, or (PostgreSQL) for the server.
   */
  cpuMs: number;
}

/**
 * Runs fn as one short write transaction and times the lock it holds. On SQLite the write lock is
 * taken by BEGIN IMMEDIATE (waiting for it, up to busy_timeout, is not holding it) and released
 * by COMMIT; on PostgreSQL the row locks are taken inside fn (FOR UPDATE) and released by COMMIT.
 * Either way, held = from BEGIN's return to COMMIT's; waiting for Kysely's connection is not.
 */
async function batchTransaction<T>(
  db: Db,
  dialect: Dialect,
  fn: (q: AnyDb) => Promise<T>,
): Promise<{ result: T; timing: BatchTiming }> {
  const anyDb = db as unknown as AnyDb;
  return anyDb.connection().execute(async (conn) => {
    await sql.raw(dialect === 'postgres' ? 'begin' : 'begin immediate').execute(conn);
    const held = performance.now();
    const cpu = process.cpuUsage();
    let result: T;
    try {
      // PostgreSQL: COMMIT returns without waiting for its WAL record to reach the disk, which
      // measured was most of a batch's time (40 to 130 ms on a busy disk), all of it with the
      // rows locked. Safe here: a crash can lose only the last purge batches, whose rows are
      // still expired and go in the next run; the database stays consistent.
      if (dialect === 'postgres') await sql`set local synchronous_commit = off`.execute(conn);
      result = await fn(conn);
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
    const worked = performance.now();
    await sql`commit`.execute(conn);
    const done = performance.now();
    const used = process.cpuUsage(cpu);
    return {
      result,
      timing: {
        heldMs: done - held,
        workMs: worked - held,
        commitMs: done - worked,
        catchUpMs: 0,
        cpuMs: (used.user + used.system) / 1000,
      },
    };
  });
}

/**
 * SQLite writes every commit to the WAL and, by default, the commit that takes the WAL past 1,000
 * pages copies it back into the database file and syncs it (an automatic checkpoint) while the
 * write lock is still held: measured, that is what made a 1 ms batch take 40 to 400 ms. For the
 * run the purge turns that off and checkpoints itself between batches, after COMMIT. The setting
 * is the connection's, and a process has one, shared by the purge and the requests: it holds for
 * the requests' writes too during the run (the purge's checkpoints keep the WAL short for them). It
 * is put back at the end, or as soon as a checkpoint fails.
 *
 * The checkpoints run in a worker thread on a connection of its own (server/db/sqlite-checkpointer.ts):
 * a PASSIVE checkpoint takes no write lock and lets readers read, so the requests of this process
 * (and other processes) read and write meanwhile. Run on the shared connection, a checkpoint held
 * it with the event loop blocked (better-sqlite3 is synchronous): measured, 15 to 115 ms at 20,000
 * rows, up to 620 ms at 100,000 on a busy disk, which every request of the process waited out.
 * The WAL starts over at the next write only if a checkpoint copied all of it and nothing was
 * written since; otherwise it grows. So the purge waits (without blocking the loop) for each
 * checkpoint before its next batch, and the worker checkpoints again, in shorter and shorter
 * rounds, until nothing was written during a round. What requests wrote during the worker's last
 * round, when it could not catch up, is copied on the shared connection (the catch-up: a few pages,
 * and nothing of this process writes meanwhile); that holds the connection, so it is counted in the
 * batch's held time. Measured, a worker checkpointing every 200 ms beside 400 commits a second:
 * in 10 s the WAL grew to 148 MB with one round, 13 MB with four, and stayed at 4 MB with four and
 * the catch-up, none of which took over 6 ms.
 *
 * The batches stay on the shared connection: better-sqlite3 is synchronous, so a request writing
 * on another connection of the same process while a batch held the write lock (across an await)
 * would wait out busy_timeout with the event loop blocked, and the batch could not finish meanwhile.
 *
 * Not after every batch: the first commit after a complete checkpoint starts the WAL over and
 * syncs its header, inside that commit's lock (measured: every commit 3 ms slower, up to 45 ms
 * on a busy disk). Every CHECKPOINT_EVERY batches puts that one sync in one batch of as many.
 */
const CHECKPOINT_EVERY = 8;

interface SqliteCheckpoints {
  /** Starts the worker, if it is not running yet, so it is ready by the first checkpoint. */
  prepare(): void;
  /**
   * One checkpoint in the worker, and its catch-up if need be; resolves to how long the catch-up
   * held this process's connection. None once one has failed (told to onFailed).
   */
  between(): Promise<number>;
  /** Puts automatic checkpoints back and ends the worker. */
  restore(): Promise<void>;
}

async function sqliteCheckpoints(
  db: Db,
  onDone: (c: PurgeCheckpoint) => void,
  onFailed: (err: Error) => void,
): Promise<SqliteCheckpoints | null> {
  const anyDb = db as unknown as AnyDb;
  // An in-memory database has no WAL, and no other connection could reach it.
  const { rows: files } = await sql<{ name: string; file: string }>`pragma database_list`.execute(anyDb);
  const file = files.find((f) => f.name === 'main')?.file ?? '';
  if (!file) return null;
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(anyDb);
  const previous = Number(rows[0]?.wal_autocheckpoint ?? 1000);
  await sql`pragma wal_autocheckpoint = 0`.execute(anyDb);
  let worker: SqliteCheckpointer | null = null;
  let restored = false;
  const prepare = () => {
    worker ??= new SqliteCheckpointer(file);
  };
  const restore = async () => {
    if (restored) return;
    restored = true;
    await sql.raw(`pragma wal_autocheckpoint = ${previous}`).execute(anyDb);
  };
  return {
    prepare,
    async between() {
      if (restored) return 0;
      prepare();
      let result: CheckpointResult;
      try {
        result = await worker!.checkpoint();
      } catch (err) {
        onFailed(err as Error);
        // SQLite checkpoints the WAL on its own again, as outside a purge, rather than let it grow.
        await restore();
        return 0;
      }
      let catchUpMs = 0;
      if (!result.caughtUp) {
        const started = performance.now();
        await sql`pragma wal_checkpoint(PASSIVE)`.execute(anyDb);
        catchUpMs = performance.now() - started;
      }
      onDone({ ...result, catchUpMs });
      return catchUpMs;
    },
    async restore() {
      try {
        await restore();
      } finally {
        await worker?.close();
      }
    },
  };
}

/**
 * The jobs of one run, in order: deliveries before the events they reference. `cutoff` values are
 * fixed at the start, so a run ends even while new rows keep expiring.
 */
function jobs(config: PurgeConfig, now: number, postgres: boolean): PurgeJob[] {
  const r = config.retention;
  const locked = <Q extends SelectQueryBuilder<any, any, any>>(q: Q): Q =>
    postgres ? (q.forUpdate().skipLocked() as Q) : q;

  /** Rows whose `column` is before `before`, by their primary key `pk`. */
  const byTime = (table: PurgedTable, pk: string, column: string, before: string): PurgeJob => ({
    name: table,
    async batch(db, limit) {
      const rows = await locked(
        db.selectFrom(table).select(pk).where(column, '<', before).orderBy(column).limit(limit),
      ).execute();
      if (rows.length === 0) return { picked: 0, deleted: {} };
      const ids = rows.map((row) => row[pk] as string);
      const res = await db.deleteFrom(table).where(pk, 'in', ids).where(column, '<', before).execute();
      return { picked: rows.length, deleted: { [table]: count(res) } };
    },
  });

  // The window counts from when a key was made (expires_at = made + the window).
  const idempotencyBefore = iso(now - r.idempotencyKeysMs + IDEMPOTENCY_WINDOW_MS);
  // One statement: a composite key has no compact `in (...)` list (an OR of pairs is slow to plan).
  const idempotencyKeys: PurgeJob = {
    name: 'idempotency_keys',
    async batch(db, limit) {
      const res = await db
        .deleteFrom('idempotency_keys')
        .where((eb) =>
          eb(
            eb.refTuple('owner', 'idem_key'),
            'in',
            locked(
              eb
                .selectFrom('idempotency_keys')
                .select(['owner', 'idem_key'])
                .where('expires_at', '<', idempotencyBefore)
                // A request still holding its key (renewing the lock) keeps it, however old.
                .where('locked_until', '<', iso(now))
                .orderBy('expires_at')
                .limit(limit),
            ) as any,
          ),
        )
        .execute();
      const n = count(res);
      return { picked: n, deleted: { idempotency_keys: n } };
    },
  };

  // Finished (delivered, failed for good, cancelled) and unchanged since the cutoff: a replay
  // makes a delivery PENDING again and restarts its clock.
  const deliveriesBefore = iso(now - r.webhookDeliveriesMs);
  const finished = sql<boolean>`status <> 'PENDING'`;
  const webhookDeliveries: PurgeJob = {
    name: 'webhook_deliveries',
    async batch(db, limit) {
      const rows = await locked(
        db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where(finished)
          .where('updated_at', '<', deliveriesBefore)
          .orderBy('updated_at')
          .limit(limit),
      ).execute();
      if (rows.length === 0) return { picked: 0, deleted: {} };
      const ids = rows.map((row) => row.id as string);
      // The attempt log first, so it is counted (the foreign key would cascade anyway).
      const attempts = await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
      const deliveries = await db
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', ids)
        .where(finished)
        .where('updated_at', '<', deliveriesBefore)
        .execute();
      return {
        picked: rows.length,
        deleted: { webhook_attempts: count(attempts), webhook_deliveries: count(deliveries) },
      };
    },
  };

  // An event is needed while a delivery references it (its payload is what a replay sends). One
  // no delivery references (no receiver was subscribed, or its deliveries were purged above) goes
  // once it is as old as the delivery retention. Events skipped because a delivery still needs
  // them are not read again in this run: the next batch starts after the last one examined.
  const eventsBefore = deliveriesBefore;
  let eventsAfter: { created_at: string; id: string } | null = null;
  const unreferenced = (eb: any) =>
    eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id')));
  const webhookEvents: PurgeJob = {
    name: 'webhook_events',
    async batch(db, limit) {
      // The candidates are one range of the (created_at, id) index; which of them a delivery
      // references is asked per row in the delete. Asked in the select instead, PostgreSQL may
      // plan an anti-join over both whole tables (its statistics say every event is referenced
      // until the next ANALYZE after a delivery purge): 300 ms a batch at 100,000 events.
      let q = db
        .selectFrom('webhook_events as e')
        .select(['e.id', 'e.created_at'])
        .where('e.created_at', '<', eventsBefore)
        .orderBy('e.created_at')
        .orderBy('e.id')
        .limit(limit);
      // A row-value comparison, which both databases read as one range of the index (an OR does not).
      const after = eventsAfter;
      if (after)
        q = q.where((eb) => eb(eb.refTuple('e.created_at', 'e.id'), '>', eb.tuple(after.created_at, after.id)));
      const rows = postgres ? await q.forUpdate('e').skipLocked().execute() : await q.execute();
      if (rows.length === 0) return { picked: 0, deleted: {} };
      eventsAfter = rows[rows.length - 1] as { created_at: string; id: string };
      const res = await db
        .deleteFrom('webhook_events as e')
        .where(
          'e.id',
          'in',
          rows.map((row) => row.id as string),
        )
        .where(unreferenced)
        .execute();
      return { picked: rows.length, deleted: { webhook_events: count(res) } };
    },
  };

  // Sent or failed mail, not queued again (`svc mail retry`), and not a copy of a broadcast still
  // being expanded: the dispatcher counts a broadcast's recipients from its rows when it ends.
  const mailBefore = iso(now - r.mailMs);
  const mailDone = (column: 'sent_at' | 'failed_at'): PurgeJob => {
    const settled = (eb: any) =>
      eb.and([
        eb(`m.${column}`, '<', mailBefore),
        eb('m.next_attempt_at', 'is', null),
        eb.or([
          eb('m.broadcast_id', 'is', null),
          eb.not(
            eb.exists(
              eb
                .selectFrom('broadcasts as b')
                .select('b.id')
                .whereRef('b.id', '=', 'm.broadcast_id')
                .where('b.expanded_at', 'is', null),
            ),
          ),
        ]),
      ]);
    return {
      name: `mail_outbox (${column})`,
      async batch(db, limit) {
        const q = db.selectFrom('mail_outbox as m').select('m.id').where(settled).orderBy(`m.${column}`).limit(limit);
        const rows = postgres ? await q.forUpdate('m').skipLocked().execute() : await q.execute();
        if (rows.length === 0) return { picked: 0, deleted: {} };
        const res = await db
          .deleteFrom('mail_outbox as m')
          .where(
            'm.id',
            'in',
            rows.map((row) => row.id as string),
          )
          .where(settled)
          .execute();
        return { picked: rows.length, deleted: { mail_outbox: count(res) } };
      },
    };
  };

  const expiredBefore = iso(now - r.signInCodesMs);
  return [
    idempotencyKeys,
    webhookDeliveries,
    webhookEvents,
    mailDone('sent_at'),
    mailDone('failed_at'),
    // Nothing in the SMS outbox waits for a transport: a row is the message "sent" (server/sms/sender.ts).
    byTime('sms_outbox', 'id', 'created_at', iso(now - r.smsMs)),
    byTime('sms_codes', 'id', 'expires_at', expiredBefore),
    byTime('password_resets', 'id', 'expires_at', expiredBefore),
    byTime('oauth_handoffs', 'code_hash', 'expires_at', expiredBefore),
    // A revoked session's row must outlive every copy of the session: it may go once that has expired.
    byTime('revoked_tokens', 'session_id', 'expires_at', expiredBefore),
  ];
}

/** Deletes every expired row, batch by batch; see the file comment. */
export async function purgeExpired(
  db: Db,
  dialect: Dialect,
  config: PurgeConfig,
  opts: PurgeOptions = {},
): Promise<PurgeReport> {
  const now = opts.now ?? Date.now();
  const pauseMs = opts.pauseMs ?? 10;
  const report: PurgeReport = {
    deleted: Object.fromEntries(PURGED_TABLES.map((t) => [t, 0])) as Record<PurgedTable, number>,
    batches: 0,
    slowestBatchMs: 0,
    complete: false,
  };
  const adaptive = opts.adaptive ?? true;
  const checkpoints =
    dialect === 'sqlite'
      ? await sqliteCheckpoints(
          db,
          (c) => opts.onCheckpoint?.(c),
          (err) => opts.onCheckpointFailed?.(err),
        )
      : null;
  try {
    for (const job of jobs(config, now, dialect === 'postgres')) {
      let size = adaptive ? Math.min(config.batchSize, FIRST_BATCH) : config.batchSize;
      for (;;) {
        if (opts.stopped?.()) return report;
        const limit = size;
        const { result, timing } = await batchTransaction(db, dialect, (q) => job.batch(q, limit));
        const { picked, deleted } = result;
        if (picked === 0) break;
        report.batches += 1;
        checkpoints?.prepare();
        if (checkpoints && report.batches % CHECKPOINT_EVERY === 0) {
          // The worker's part holds nothing of this process's: only a catch-up counts.
          timing.catchUpMs = await checkpoints.between();
          timing.heldMs += timing.catchUpMs;
        }
        opts.onBatch?.(job.name, timing, deleted);
        report.slowestBatchMs = Math.max(report.slowestBatchMs, timing.heldMs);
        for (const [table, n] of Object.entries(deleted)) report.deleted[table as PurgedTable] += n;
        if (picked < limit) break;
        if (adaptive && timing.heldMs > BATCH_TARGET_MS) size = Math.max(1, Math.floor(size / 2));
        else if (adaptive && timing.heldMs < BATCH_TARGET_MS / 2) size = Math.min(config.batchSize, size * 2);
        // Yield (and let other connections in) before the next batch.
        await sleep(pauseMs);
      }
    }
  } finally {
    try {
      // What the last batches wrote, so the next commit of a request does not do it in its lock.
      if (checkpoints && report.batches > 0) {
        report.slowestBatchMs = Math.max(report.slowestBatchMs, await checkpoints.between());
      }
    } finally {
      // Whatever the last checkpoint did: automatic checkpoints come back, the worker goes.
      await checkpoints?.restore();
    }
  }
  report.complete = true;
  return report;
}
