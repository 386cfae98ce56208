// Idempotency for writes (DESIGN.md §4). The first request with a key takes a row lock in
// `idempotency_keys`; duplicates wait for it and replay its stored status and body. A different
// request under the same key within 24 h is a 422. Results of requests that threw (5xx) are not
// kept, so a retry after a server error runs again; since every handler's writes are one
// transaction, nothing of the failed attempt remains to be repeated.
import crypto from 'node:crypto';
import type { Request } from 'express';
import { isUniqueViolation, type Db } from '../db/index.ts';
import { ApiError } from './api-error.ts';
import { messages } from './messages.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A lock older than this belongs to a request that died; a duplicate may take it over. */
const LOCK_MS = 30_000;
const POLL_MS = 25;

export interface StoredResult {
  status: number;
  body: unknown;
}

export interface IdempotencyOptions {
  /** How long a duplicate waits for the first request before answering 409. */
  waitMs?: number;
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
  if (!KEY_FORMAT.test(key)) throw new ApiError('INVALID_INPUT', messages.idempotencyKeyInvalid, { field: 'Idempotency-Key' });
  return key;
}

/** Key order does not matter to JSON semantics, so it must not matter to the fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object).sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${path}\n${canonical(body)}`).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString();

export async function runIdempotent(
  db: Db,
  owner: string,
  key: string,
  requestHash: string,
  run: () => Promise<StoredResult>,
  opts: IdempotencyOptions = {},
): Promise<StoredResult & { replayed: boolean }> {
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (;;) {
    const now = Date.now();
    try {
      await db.insertInto('idempotency_keys').values({
        owner, idem_key: key, request_hash: requestHash, state: 'in_progress', response_status: null,
        response_body: null, created_at: iso(now), expires_at: iso(now + IDEMPOTENCY_WINDOW_MS), locked_until: iso(now + LOCK_MS),
      }).execute();
      return { ...(await execute(db, owner, key, run)), replayed: false };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }

    const row = await db.selectFrom('idempotency_keys').selectAll()
      .where('owner', '=', owner).where('idem_key', '=', key).executeTakeFirst();
    if (!row) continue; // released between our insert and select: try again
    if (row.expires_at <= iso(now)) {
      await db.deleteFrom('idempotency_keys').where('owner', '=', owner).where('idem_key', '=', key)
        .where('expires_at', '=', row.expires_at).execute();
      continue;
    }
    if (row.request_hash !== requestHash) {
      throw new ApiError('IDEMPOTENCY_KEY_MISMATCH', messages.idempotencyMismatch, { field: 'Idempotency-Key' });
    }
    if (row.state === 'done') {
      return { status: row.response_status ?? 200, body: JSON.parse(row.response_body ?? 'null'), replayed: true };
    }
    if (row.locked_until <= iso(now)) {
      // The holder died mid-request. Take the lock over with a compare-and-set so only one
      // waiting duplicate runs.
      const taken = await db.updateTable('idempotency_keys').set({ locked_until: iso(now + LOCK_MS) })
        .where('owner', '=', owner).where('idem_key', '=', key).where('locked_until', '=', row.locked_until)
        .where('state', '=', 'in_progress').executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { ...(await execute(db, owner, key, run)), replayed: false };
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', messages.idempotencyInProgress, { retryAfter: 1 }, { 'Retry-After': '1' });
    }
    await sleep(POLL_MS);
  }
}

async function execute(db: Db, owner: string, key: string, run: () => Promise<StoredResult>): Promise<StoredResult> {
  let result: StoredResult;
  try {
    result = await run();
  } catch (err) {
    if (err instanceof ApiError && err.status < 500 && err.status !== 429) {
      // A domain refusal (409, 422, a 400 from business rules) is the answer to this request:
      // keep it, so a retry gets the same answer rather than a different one later.
      result = { status: err.status, body: err.toEnvelope() };
      await store(db, owner, key, result);
      throw err;
    }
    await db.deleteFrom('idempotency_keys').where('owner', '=', owner).where('idem_key', '=', key).execute();
    throw err;
  }
  await store(db, owner, key, result);
  return result;
}

async function store(db: Db, owner: string, key: string, result: StoredResult): Promise<void> {
  await db.updateTable('idempotency_keys')
    .set({ state: 'done', response_status: result.status, response_body: JSON.stringify(result.body ?? null) })
    .where('owner', '=', owner).where('idem_key', '=', key).execute();
}

/** Housekeeping: drop records past their window. Called periodically by the server. */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', iso(Date.now())).executeTakeFirst();
  return Number(res.numDeletedRows);
}
