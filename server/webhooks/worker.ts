// The delivery worker: runs inside the server process, claims due deliveries from the database,
// sends them with bounded concurrency and records every attempt.
//
// Claiming is one UPDATE ... RETURNING that moves `next_attempt_at` to the end of a lease and
// stamps a lease token (on PostgreSQL its subquery takes rows FOR UPDATE SKIP LOCKED, so two
// processes never claim the same attempt). A result is recorded only by the lease holder. If a
// process dies mid-attempt its lease runs out and any worker claims the delivery again: that is
// the at-least-once guarantee, and the interrupted attempt is logged as ABANDONED without using
// up one of the receiver's retries.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { WebhookConfig } from '../config.ts';
import { transaction, type Db, type Dialect, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { WebhookAttemptOutcome } from '../db/schema.ts';
import type { SecretBox } from './secret-box.ts';
import { sendAttempt, type AttemptResult } from './send.ts';
import { signatureHeader } from './signature.ts';
import { createGuardedAgents, systemLookup, type LookupFn } from './ssrf.ts';
import { onNewDeliveries } from './wake.ts';

/** Deliveries claimed per query; more are claimed as slots free up. */
const CLAIM_BATCH = 100;
/**
 * Attempts recorded per transaction. At ten bind parameters an attempt this stays far below the
 * 65,535 parameters PostgreSQL takes in one statement (SQLite: 32,766); an unbounded batch fails
 * there as soon as results queue up faster than they are written.
 */
const RECORD_BATCH = 500;
/** Decrypted secrets are dropped this often, so rotated and removed ones do not linger in memory. */
const SECRET_CACHE_MS = 5 * 60 * 1000;

export interface WorkerDeps {
  db: Db;
  dialect: Dialect;
  config: WebhookConfig;
  secrets: SecretBox;
  logger: Logger;
  /** DNS for the connect-time address check; tests stub it. */
  lookup?: LookupFn;
}

interface Claimed {
  id: string;
  attempts: number;
  total_attempts: number;
  round: number;
  previous_lease_token: string | null;
}

interface Job {
  deliveryId: string;
  token: string;
  number: number;
  round: number;
  attempts: number;
  endpointId: string;
  result: AttemptResult;
}

/** What a recorded batch leads to once it has committed. */
interface Effects {
  gone: Set<string>;
  wakeAt: number[];
}

/** PostgreSQL text cannot hold NUL; a receiver's body may. */
const storable = (text: string | null): string | null => (text === null ? null : text.replaceAll('\0', '\uFFFD'));

export interface AttemptOutcome {
  deliveryId: string;
  number: number;
  result: AttemptResult;
}

export class DeliveryWorker {
  readonly #deps: WorkerDeps;
  readonly #agents: ReturnType<typeof createGuardedAgents>;
  readonly #leaseMs: number;
  readonly #secretCache = new Map<string, string>();
  #secretCacheSince = Date.now();
  #running = false;
  #loop: Promise<void> | null = null;
  #inFlight = new Set<Promise<void>>();
  #pending: Job[] = [];
  #flushing: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #wakeTimer: NodeJS.Timeout | null = null;
  #wakeTimerAt = Infinity;
  #backlog = false;
  #unsubscribe: (() => void) | null = null;

  constructor(deps: WorkerDeps) {
    this.#deps = deps;
    this.#agents = createGuardedAgents(
      { allowPrivate: deps.config.allowPrivate, lookup: deps.lookup ?? systemLookup },
      { maxSockets: deps.config.concurrency },
    );
    // Long enough that a healthy holder always records its result first: the request is cut at
    // the timeout, and the rest covers writing the result under load.
    this.#leaseMs = 2 * deps.config.timeoutMs + 5000;
  }

  get leaseMs(): number {
    return this.#leaseMs;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unsubscribe = onNewDeliveries(() => this.#poke());
    this.#loop = this.#run();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the timeout) and records them. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#unsubscribe?.();
    this.#poke();
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = null;
    this.#wakeTimerAt = Infinity;
    await this.#loop;
    await Promise.all([...this.#inFlight]);
    await this.#flush();
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /**
   * Sends the given deliveries now, if they are due and no other worker holds them, and waits for
   * the attempts to be recorded. What the CLI's replay and resend use; also handy in tests.
   */
  async deliverNow(ids?: string[]): Promise<AttemptOutcome[]> {
    const outcomes: AttemptOutcome[] = [];
    const record = (job: Job) => outcomes.push({ deliveryId: job.deliveryId, number: job.number, result: job.result });
    // At most `concurrency` at once: a request queued behind the agent's socket limit would spend
    // its deadline waiting and fail without ever reaching the receiver.
    const size = Math.min(this.#deps.config.concurrency, CLAIM_BATCH);
    if (ids) {
      for (let i = 0; i < ids.length; i += size) {
        await Promise.all(await this.#claimAndSend(size, ids.slice(i, i + size), record));
      }
    } else {
      await Promise.all(await this.#claimAndSend(size, undefined, record));
    }
    await this.#flush();
    return outcomes;
  }

  async #run(): Promise<void> {
    const { concurrency, pollMs } = this.#deps.config;
    // Through a backlog, claim once a quarter of the slots is free rather than one delivery per
    // finished attempt: a claim costs two queries whatever its size.
    const batch = Math.min(CLAIM_BATCH, Math.ceil(concurrency / 4));
    while (this.#running) {
      const room = concurrency - this.#inFlight.size;
      const want = Math.min(room, CLAIM_BATCH);
      if (want > 0 && (!this.#backlog || want >= batch)) {
        let claimed = 0;
        try {
          claimed = (await this.#claimAndSend(want)).length;
        } catch (err) {
          this.#deps.logger.warn({ err: (err as Error).message }, 'webhook worker could not claim deliveries');
        }
        // A full claim means more may be due: keep going as soon as slots are free. Without a
        // claim nothing was learnt, so the previous answer stands.
        this.#backlog = claimed === want;
      }
      if (Date.now() - this.#secretCacheSince > SECRET_CACHE_MS) {
        this.#secretCache.clear();
        this.#secretCacheSince = Date.now();
      }
      if (!this.#running) break;
      if (this.#backlog && concurrency - this.#inFlight.size >= batch) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, pollMs).unref();
      });
      this.#wake = null;
    }
  }

  #poke(): void {
    this.#wake?.();
  }

  /** Wakes the loop at `at` (epoch ms), e.g. for a retry due sooner than the next poll. */
  #wakeAt(at: number): void {
    if (!this.#running || at >= this.#wakeTimerAt) return;
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimerAt = at;
    this.#wakeTimer = setTimeout(
      () => {
        this.#wakeTimer = null;
        this.#wakeTimerAt = Infinity;
        this.#poke();
      },
      Math.max(0, at - Date.now()),
    );
    this.#wakeTimer.unref();
  }

  async #claim(limit: number, onlyIds?: string[]): Promise<{ token: string; rows: Claimed[] }> {
    const { db, dialect } = this.#deps;
    const token = crypto.randomUUID();
    const now = nowIso();
    const leaseUntil = new Date(Date.now() + this.#leaseMs).toISOString();
    const only = onlyIds && onlyIds.length > 0 ? sql`and id in (${sql.join(onlyIds)})` : sql``;
    const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
    // SET sees the old row: previous_lease_token keeps the token of a holder that never finished,
    // and such a re-claim does not count as a new attempt of the round.
    const result = await sql<Claimed>`
      update webhook_deliveries
         set attempts = attempts + case when lease_token is null then 1 else 0 end,
             total_attempts = total_attempts + 1,
             previous_lease_token = lease_token,
             lease_token = ${token},
             next_attempt_at = ${leaseUntil},
             updated_at = ${now}
       where id in (
         select id from webhook_deliveries
          where status = 'PENDING' and next_attempt_at <= ${now} ${only}
          order by next_attempt_at
          limit ${limit}
          ${lock})
      returning id, attempts, total_attempts, round, previous_lease_token`.execute(db);
    return { token, rows: result.rows };
  }

  /** Claims up to `limit` deliveries and starts sending them; returns one promise per attempt. */
  async #claimAndSend(limit: number, onlyIds?: string[], onDone?: (job: Job) => void): Promise<Array<Promise<void>>> {
    const { token, rows } = await this.#claim(limit, onlyIds);
    if (rows.length === 0) return [];
    const { db } = this.#deps;
    const details = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select([
        'd.id',
        'd.endpoint_id',
        'd.created_at',
        'e.name',
        'e.data',
        'e.created_at as event_created_at',
        'e.community_tag',
        'w.url',
        'w.status as endpoint_status',
        'w.secret_ciphertext',
        'w.previous_secret_ciphertext',
        'w.previous_secret_expires_at',
      ])
      .where(
        'd.id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    const byId = new Map(details.map((d) => [d.id, d]));
    const nowMs = Date.now();
    const started: Array<Promise<void>> = [];
    const cancelled: string[] = [];

    for (const row of rows) {
      const d = byId.get(row.id);
      if (!d) {
        cancelled.push(row.id);
        continue;
      }
      if (row.previous_lease_token) {
        this.#pending.push({
          deliveryId: row.id,
          token: '',
          number: row.total_attempts - 1,
          round: row.round,
          attempts: row.attempts,
          endpointId: d.endpoint_id,
          result: {
            ok: false,
            statusCode: null,
            responseBody: null,
            durationMs: 0,
            startedAt: nowIso(),
            error: 'the worker stopped before this attempt finished; sent again',
          },
        });
        this.#scheduleFlush();
      }
      if (d.endpoint_status !== 'ENABLED' || !d.secret_ciphertext) {
        cancelled.push(row.id);
        continue;
      }
      let secrets: string[];
      try {
        secrets = [this.#secret(d.secret_ciphertext, d.endpoint_id)];
        if (
          d.previous_secret_ciphertext &&
          d.previous_secret_expires_at &&
          Date.parse(d.previous_secret_expires_at) > nowMs
        ) {
          secrets.push(this.#secret(d.previous_secret_ciphertext, d.endpoint_id));
        }
      } catch (err) {
        // One endpoint with an unreadable secret must not hold up the others claimed with it: this
        // attempt fails (and counts), the rest go out.
        this.#deps.logger.error(
          { endpointId: d.endpoint_id, err: (err as Error).message },
          'cannot sign a webhook delivery',
        );
        const job: Job = {
          deliveryId: row.id,
          token,
          number: row.total_attempts,
          round: row.round,
          attempts: row.attempts,
          endpointId: d.endpoint_id,
          result: {
            ok: false,
            statusCode: null,
            responseBody: null,
            durationMs: 0,
            startedAt: nowIso(),
            error: (err as Error).message,
          },
        };
        this.#pending.push(job);
        onDone?.(job);
        this.#scheduleFlush();
        continue;
      }
      // Built by hand so the stored data is sent byte for byte without a parse/stringify round trip.
      const body = `{"event":${JSON.stringify(d.name)},"deliveryId":${JSON.stringify(d.id)},"createdAt":${JSON.stringify(d.event_created_at)},"communityTag":${JSON.stringify(d.community_tag)},"data":${d.data}}`;
      const attempt = sendAttempt(
        {
          url: d.url,
          deliveryId: d.id,
          event: d.name,
          body,
          signature: signatureHeader(body, secrets, Math.floor(Date.now() / 1000)),
        },
        { agents: this.#agents, timeoutMs: this.#deps.config.timeoutMs, requireHttps: !this.#deps.config.allowPrivate },
      ).then((result) => {
        const job: Job = {
          deliveryId: row.id,
          token,
          number: row.total_attempts,
          round: row.round,
          attempts: row.attempts,
          endpointId: d.endpoint_id,
          result,
        };
        this.#pending.push(job);
        onDone?.(job);
        this.#scheduleFlush();
      });
      const tracked = attempt.finally(() => {
        this.#inFlight.delete(tracked);
        if (this.#backlog) this.#poke();
      });
      this.#inFlight.add(tracked);
      started.push(tracked);
    }
    if (cancelled.length > 0) {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'CANCELLED', lease_token: null, next_attempt_at: null, updated_at: nowIso() })
        .where('id', 'in', cancelled)
        .where('lease_token', '=', token)
        .execute();
    }
    return started;
  }

  #secret(ciphertext: string, endpointId: string): string {
    const key = `${endpointId}:${ciphertext}`;
    let plain = this.#secretCache.get(key);
    if (plain === undefined) {
      if (this.#secretCache.size > 10_000) this.#secretCache.clear();
      plain = this.#deps.secrets.open(ciphertext, endpointId);
      this.#secretCache.set(key, plain);
    }
    return plain;
  }

  #scheduleFlush(): void {
    if (this.#flushing) return;
    // setImmediate lets attempts finishing in the same tick share one transaction.
    this.#flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#flushLoop())
      .finally(() => {
        this.#flushing = null;
        if (this.#pending.length > 0) this.#scheduleFlush();
      });
  }

  async #flush(): Promise<void> {
    while (this.#flushing || this.#pending.length > 0) {
      if (this.#flushing) await this.#flushing;
      else await this.#flushLoop();
    }
  }

  async #flushLoop(): Promise<void> {
    while (this.#pending.length > 0) {
      const jobs = this.#pending.splice(0, RECORD_BATCH);
      const effects: Effects = { gone: new Set(), wakeAt: [] };
      try {
        await transaction(this.#deps.db, (trx) => this.#record(trx, jobs, effects));
      } catch (err) {
        // One bad row must not sink the batch: record each job on its own.
        this.#deps.logger.warn(
          { err: (err as Error).message, deliveries: jobs.length },
          'recording webhook attempts as a batch failed; recording one by one',
        );
        effects.gone.clear();
        effects.wakeAt.length = 0;
        for (const job of jobs) {
          try {
            await transaction(this.#deps.db, (trx) => this.#record(trx, [job], effects));
          } catch (jobErr) {
            // The lease runs out and the delivery is sent again: at least once, never lost.
            this.#deps.logger.error(
              { err: (jobErr as Error).message, deliveryId: job.deliveryId },
              'could not record a webhook attempt',
            );
          }
        }
      }
      // After the commit, and in its own transaction: locking the endpoint and then its deliveries
      // in the same order as an admin disabling it, never while holding delivery rows of a batch.
      for (const endpointId of effects.gone) {
        try {
          await this.#disableGoneEndpoint(endpointId);
        } catch (err) {
          this.#deps.logger.error(
            { err: (err as Error).message, endpointId },
            'could not disable a webhook endpoint after 410',
          );
        }
      }
      for (const at of effects.wakeAt) this.#wakeAt(at);
    }
  }

  async #record(trx: Trx, jobs: Job[], effects: Effects): Promise<void> {
    const delays = this.#deps.config.retryDelaysMs;
    await trx
      .insertInto('webhook_attempts')
      .values(
        jobs.map((j) => ({
          id: newId(),
          delivery_id: j.deliveryId,
          number: j.number,
          round: j.round,
          outcome: (j.token === '' ? 'ABANDONED' : j.result.ok ? 'SUCCEEDED' : 'FAILED') as WebhookAttemptOutcome,
          started_at: j.result.startedAt,
          duration_ms: j.token === '' ? null : j.result.durationMs,
          status_code: j.result.statusCode,
          response_body: storable(j.result.responseBody),
          error: storable(j.result.error),
        })),
      )
      .onConflict((oc) => oc.columns(['delivery_id', 'number']).doNothing())
      .execute();

    const now = nowIso();
    // Every success in the batch is recorded by one statement (the common case under load); the
    // rest one by one. VALUES columns are column1.. on both PostgreSQL and SQLite.
    const succeeded = jobs.filter((j) => j.token !== '' && j.result.ok);
    if (succeeded.length > 0) {
      const values = sql.join(
        succeeded.map((j) => sql`(${j.deliveryId}, ${j.token}, ${j.result.startedAt}, ${j.result.statusCode})`),
      );
      await sql`
        update webhook_deliveries
           set status = 'SUCCEEDED', lease_token = null, next_attempt_at = null, last_attempt_at = v.column3,
               last_status_code = cast(v.column4 as integer), last_error = null, updated_at = ${now}
          from (values ${values}) as v
         where webhook_deliveries.id = v.column1 and webhook_deliveries.lease_token = v.column2
           and webhook_deliveries.status = 'PENDING'`.execute(trx);
    }
    for (const j of jobs) {
      if (j.token === '' || j.result.ok) continue;
      const r = j.result;
      const last = {
        last_attempt_at: r.startedAt,
        last_status_code: r.statusCode,
        last_error: storable(r.error),
        updated_at: now,
      };
      // Only the holder of a still-pending delivery records: not a worker whose lease was taken
      // over, and never over a cancellation or a replay that happened meanwhile.
      const mine = trx
        .updateTable('webhook_deliveries')
        .where('id', '=', j.deliveryId)
        .where('lease_token', '=', j.token)
        .where('status', '=', 'PENDING');
      if (r.statusCode === 410) {
        const res = await mine
          .set({ ...last, status: 'PERMANENTLY_FAILED', lease_token: null, next_attempt_at: null })
          .executeTakeFirst();
        // Only a 410 this worker still answers for disables the endpoint, not a stale one.
        if (res.numUpdatedRows > 0n) effects.gone.add(j.endpointId);
      } else if (j.attempts <= delays.length) {
        const due = Date.now() + delays[j.attempts - 1];
        await mine.set({ ...last, lease_token: null, next_attempt_at: new Date(due).toISOString() }).execute();
        effects.wakeAt.push(due);
      } else {
        const res = await mine
          .set({ ...last, status: 'PERMANENTLY_FAILED', lease_token: null, next_attempt_at: null })
          .executeTakeFirst();
        if (res.numUpdatedRows > 0n) {
          this.#deps.logger.warn(
            { deliveryId: j.deliveryId, endpointId: j.endpointId, attempts: j.attempts },
            'webhook delivery permanently failed',
          );
        }
      }
    }
  }

  async #disableGoneEndpoint(endpointId: string): Promise<void> {
    const now = nowIso();
    const res = await transaction(this.#deps.db, async (trx) => {
      const disabled = await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'DISABLED', disabled_reason: 'the receiver answered 410 Gone', updated_at: now })
        .where('id', '=', endpointId)
        .where('status', '=', 'ENABLED')
        .executeTakeFirst();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'CANCELLED', lease_token: null, next_attempt_at: null, updated_at: now })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'PENDING')
        .execute();
      return disabled;
    });
    if (res.numUpdatedRows > 0n)
      this.#deps.logger.warn({ endpointId }, 'webhook endpoint disabled: the receiver answered 410 Gone');
  }
}
