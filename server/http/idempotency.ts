// Idempotency for writes (DESIGN.md §4). The first request with a key takes a lock row in
// `idempotency_keys` holding a random token; duplicates wait for it and replay its stored
// status and body. A different request under the same key within 24 h is a 422.
//
// Exactly once: a handler that writes does so through `ctx.transaction`, and the answer is
// stored in that same transaction, conditional on still holding the lock. So either the change
// and its stored answer commit together, or neither does. While the holder runs it renews its
// lock; only a lock left by a dead request expires and is taken over, and if a stalled holder
// wakes up after a takeover, its transaction finds the token changed and rolls back.
import crypto from 'node:crypto';
import type { Request } from 'express';
import { isUniqueViolation, type Db, type Trx } from '../db/index.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';

import { IDEMPOTENCY_WINDOW_MS } from '../maintenance/config.ts';
const POLL_MS = 25;

export interface StoredResult {
  status: number;
  body: unknown;
  /** Headers a replay must carry too (e.g. Location). */
  headers?: Record<string, string>;
}

export interface IdempotencyOptions {
  /** How long a duplicate waits for the first request before answering 409 (default 10 s). */
  waitMs?: number;
  /** Lock lifetime; renewed every third of it while the holder runs (default 30 s). */
  lockMs?: number;
}

/** Handed to the running request: stores its answer inside its own transaction. */
export interface IdempotencyHold {
  persist(trx: Trx, result: StoredResult): Promise<void>;
}

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** The presented key, from `Idempotency-Key` or (donate's spelling) `X-Idempotency-Key`. */
export function idempotencyKeyOf(req: Request): string | null {
  const a = req.get('idempotency-key');
  const b = req.get('x-idempotency-key');
  if (a !== undefined && b !== undefined && a !== b) {
    throw new ApiError('INVALID_INPUT', messages.idempotencyKeysDiffer, { field: 'Idempotency-Key' });
  }
  const key = a ?? b;
  if (key === undefined) return null;
  if (!KEY_FORMAT.test(key))
    throw new ApiError('INVALID_INPUT', messages.idempotencyKeyInvalid, { field: 'Idempotency-Key' });
  return key;
}

/** Key order does not matter to JSON semantics, so it must not matter to the fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Method, path with query string, and the body: what makes two requests "the same request". */
export function fingerprint(method: string, url: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method} ${url}\n${canonical(body)}`)
    .digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString();
const lostLock = () =>
  new ApiError('IDEMPOTENCY_IN_PROGRESS', messages.idempotencyInProgress, { retryAfter: 1 }, { 'Retry-After': '1' });

export async function runIdempotent(
  db: Db,
  owner: string,
  key: string,
  requestHash: string,
  run: (hold: IdempotencyHold) => Promise<StoredResult>,
  opts: IdempotencyOptions = {},
): Promise<StoredResult & { replayed: boolean }> {
  const lockMs = opts.lockMs ?? 30_000;
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (;;) {
    const now = Date.now();
    const token = crypto.randomUUID();
    // Only the insert may be read as "the key is taken": a unique violation raised by the
    // handler itself must propagate, not send this loop round again.
    let mine = false;
    try {
      await db
        .insertInto('idempotency_keys')
        .values({
          owner,
          idem_key: key,
          request_hash: requestHash,
          state: 'in_progress',
          response_status: null,
          response_body: null,
          response_headers: null,
          created_at: iso(now),
          expires_at: iso(now + IDEMPOTENCY_WINDOW_MS),
          locked_until: iso(now + lockMs),
          lock_token: token,
        })
        .execute();
      mine = true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    if (mine) return { ...(await execute(db, owner, key, token, lockMs, run)), replayed: false };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('owner', '=', owner)
      .where('idem_key', '=', key)
      .executeTakeFirst();
    if (!row) {
      // Released between our insert and select: try again, within the same deadline.
      if (Date.now() >= deadline) throw lostLock();
      continue;
    }
    if (row.expires_at <= iso(now)) {
      await db
        .deleteFrom('idempotency_keys')
        .where('owner', '=', owner)
        .where('idem_key', '=', key)
        .where('expires_at', '=', row.expires_at)
        .execute();
      continue;
    }
    if (row.request_hash !== requestHash) {
      throw new ApiError('IDEMPOTENCY_KEY_MISMATCH', messages.idempotencyMismatch, { field: 'Idempotency-Key' });
    }
    if (row.state === 'done') {
      return {
        status: row.response_status ?? 200,
        body: JSON.parse(row.response_body ?? 'null'),
        headers: row.response_headers ? JSON.parse(row.response_headers) : undefined,
        replayed: true,
      };
    }
    if (row.locked_until <= iso(now)) {
      // The holder stopped renewing: it died. Take over with a compare-and-set on its token so
      // only one waiting duplicate runs, and so the old holder can no longer complete.
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ locked_until: iso(now + lockMs), lock_token: token })
        .where('owner', '=', owner)
        .where('idem_key', '=', key)
        .where('lock_token', '=', row.lock_token)
        .where('state', '=', 'in_progress')
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1)
        return { ...(await execute(db, owner, key, token, lockMs, run)), replayed: false };
      continue;
    }
    if (Date.now() >= deadline) throw lostLock();
    await sleep(POLL_MS);
  }
}

/** Auth failures depend on credentials, not on the request: never the stored answer (§4). */
const NEVER_STORED = new Set([
  'API_KEY_REQUIRED',
  'INVALID_API_KEY',
  'COMMUNITY_MISMATCH',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMITED',
  'IDEMPOTENCY_IN_PROGRESS',
]);

async function execute(
  db: Db,
  owner: string,
  key: string,
  token: string,
  lockMs: number,
  run: (hold: IdempotencyHold) => Promise<StoredResult>,
): Promise<StoredResult> {
  const held = <Q extends { where: (...args: any[]) => Q }>(q: Q): Q =>
    q
      .where('owner', '=', owner)
      .where('idem_key', '=', key)
      .where('lock_token', '=', token)
      .where('state', '=', 'in_progress');
  // Completes the row while we hold it; a no-op once it is done, so calling it twice is safe.
  const complete = async (conn: Db | Trx, result: StoredResult) => {
    const res = await held(
      conn.updateTable('idempotency_keys').set({
        state: 'done',
        response_status: result.status,
        response_body: JSON.stringify(result.body ?? null),
        response_headers: result.headers ? JSON.stringify(result.headers) : null,
      }),
    ).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  };
  let transactions = 0;
  const hold: IdempotencyHold = {
    async persist(trx, result) {
      // One transaction per idempotent request: a second one could not be made atomic with
      // the first, so it is a programming error, not a runtime condition.
      if (++transactions > 1) throw new Error('an idempotent request may open only one ctx.transaction');
      // Losing the lock here throws, which rolls the caller's transaction back: the request
      // that took over is the one whose change counts.
      if (!(await complete(trx, result))) throw lostLock();
    },
  };
  const heartbeat = setInterval(
    () => {
      held(db.updateTable('idempotency_keys').set({ locked_until: iso(Date.now() + lockMs) }))
        .execute()
        .catch(() => {
          /* the next beat or the lock expiry settles it */
        });
    },
    Math.max(10, Math.floor(lockMs / 3)),
  );
  heartbeat.unref();

  let result: StoredResult;
  try {
    result = await run(hold);
  } catch (err) {
    if (err instanceof ApiError && err.status < 500 && !NEVER_STORED.has(err.code)) {
      // A domain refusal (409, 422, a 400 from business rules) is the answer to this request:
      // keep it, so a retry gets the same answer rather than a different one later.
      await complete(db, { status: err.status, body: err.toEnvelope(), headers: err.headers });
    } else if (!(err instanceof ApiError && err.code === 'IDEMPOTENCY_IN_PROGRESS')) {
      // Release the key for a retry, unless the answer was already stored: a change that
      // committed before the failure must replay, not run again. (A lost lock belongs to the
      // request that took over: leave it alone.)
      await held(db.deleteFrom('idempotency_keys')).execute();
    }
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
  await complete(db, result);
  return result;
}
