// The mail delivery worker: runs inside every server process (unless SVC_MAIL_WORKER=false),
// claims due messages from the outbox, hands each to the transport (the SMTP server with
// SMTP_URL, else an `.eml` file) and records the outcome. Sending never happens in a request.
//
// Claiming is one UPDATE ... RETURNING that moves `next_attempt_at` to the end of a lease and
// stamps a lease token (on PostgreSQL its subquery takes rows FOR UPDATE SKIP LOCKED; SQLite has
// one writer at a time), so two processes never claim the same message. Only the lease holder
// records the outcome. A process that dies mid-send leaves its lease to run out, and the message
// is claimed again: at least once, which for mail means a rare duplicate rather than a loss.
//
// A broadcast's message (broadcast_id set) stores only its recipient's merge fields: its body is
// rendered from the broadcast here (server/mail/broadcast-render.ts), with the unsubscribe footer and
// headers, and its outcome moves the broadcast's sent/failed counters in the same transaction as the
// row, with the completion check that emits `broadcast.sent` once (server/mail/broadcast-outcome.ts).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db, Dialect, Trx } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import type { MailConfig } from './config.ts';
import type { OutboxSeal } from '../outbox-seal.ts';
import { transaction } from '../db/index.ts';
import { BroadcastBodies } from './broadcast-bodies.ts';
import { countBroadcastOutcome } from './broadcast-outcome.ts';
import { renderBroadcastMail, type MergeFields } from './broadcast-render.ts';
import { openMailContent, type MailContent } from './mailer.ts';
import { SMTP_MAX_CONNECTIONS } from './smtp.ts';
import { classifySendError, envelopeAddress, type MailTransport } from './transport.ts';
import { onNewMail } from './wake.ts';

/**
 * Messages claimed (and sent side by side) per round: as many as the pool has connections, so no
 * claimed message waits in the pool's queue behind another send while its lease runs down.
 */
const CLAIM_BATCH = SMTP_MAX_CONNECTIONS;
/** Beyond one send's worst case (connect + greeting + socket timeouts in smtp.ts, 50 s) or a file write. */
const LEASE_MS = 2 * 60_000;
const HOUR_MS = 3_600_000;

export interface MailWorkerDeps {
  db: Db;
  dialect: Dialect;
  config: MailConfig;
  transport: MailTransport;
  logger: Logger;
  /** Opens sealed messages (server/outbox-seal.ts): the same master key as the processes that wrote them. */
  seal: OutboxSeal;
}

interface Claimed {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attachments: string | null;
  created_at: string;
  attempts: number | string;
  broadcast_id: string | null;
  merge_fields: string | null;
}

export type DeliveryOutcome = 'sent' | 'retry' | 'failed';

export interface DeliveryResult {
  id: string;
  outcome: DeliveryOutcome;
  error: string | null;
}

/** A single address and nothing else: what goes into the envelope and the To header. */
const SINGLE_ADDRESS = /^[^\s<>,;:"()[\]\\@]+@[^\s<>,;:"()[\]\\@]+$/;

export class MailDeliveryWorker {
  readonly #deps: MailWorkerDeps;
  /** Mail never sent this long after it was written is failed, not sent: its links have expired. */
  readonly maxAgeMs: number;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #unsubscribe: (() => void) | null = null;
  readonly #broadcastBodies: BroadcastBodies;

  constructor(deps: MailWorkerDeps) {
    this.#deps = deps;
    this.#broadcastBodies = new BroadcastBodies(deps.db);
    const schedule = deps.config.retryDelaysMs.reduce((a, b) => a + b, 0);
    this.maxAgeMs = Math.max(24 * HOUR_MS, schedule + HOUR_MS);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unsubscribe = onNewMail(() => this.#poke());
    this.#deps.logger.info({ transport: this.#deps.transport.describe() }, 'mail delivery worker started');
    this.#loop = this.#run();
  }

  /** Stops claiming, lets the sends in flight finish and record, then closes the transport (the SMTP pool). */
  async stop(): Promise<void> {
    this.#running = false;
    this.#unsubscribe?.();
    this.#poke();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
    await this.#loop;
    this.#deps.transport.close();
  }

  /** Claims what is due now, sends it and records the outcomes (one round; tests and tools). */
  async deliverDue(): Promise<DeliveryResult[]> {
    return this.#round();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimedFull = false;
      try {
        claimedFull = (await this.#round()).length === CLAIM_BATCH;
      } catch (err) {
        this.#deps.logger.warn({ err: (err as Error).message }, 'mail worker could not claim or record mail');
      }
      if (!this.#running) break;
      if (claimedFull) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, this.#deps.config.pollMs).unref();
      });
      this.#wake = null;
    }
  }

  #poke(): void {
    this.#wake?.();
  }

  /** Wakes the loop at `at` (epoch ms): a retry due before the next poll goes out on time. */
  #wakeAt(at: number): void {
    if (!this.#running || at >= this.#timerAt) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#timerAt = Infinity;
        this.#poke();
      },
      Math.max(0, at - Date.now()),
    );
    this.#timer.unref();
  }

  async #round(): Promise<DeliveryResult[]> {
    const { token, rows } = await this.#claim(CLAIM_BATCH);
    return Promise.all(rows.map((row) => this.#deliver(token, row)));
  }

  /**
   * Claims up to `limit` due messages for one round under one lease token: first those that belong
   * to no broadcast (a reset link, a ticket), then broadcast copies to fill the round, so
   * transactional mail never queues behind a large broadcast (migration 0026's partial index makes
   * the first claim cheap whatever the broadcast backlog).
   */
  async #claim(limit: number): Promise<{ token: string; rows: Claimed[] }> {
    const token = crypto.randomUUID();
    const now = nowIso();
    const leaseUntil = new Date(Date.now() + LEASE_MS).toISOString();
    const rows = await this.#claimDue(token, now, leaseUntil, limit, true);
    if (rows.length < limit) rows.push(...(await this.#claimDue(token, now, leaseUntil, limit - rows.length, false)));
    return { token, rows };
  }

  async #claimDue(
    token: string,
    now: string,
    leaseUntil: string,
    limit: number,
    transactionalOnly: boolean,
  ): Promise<Claimed[]> {
    const { db, dialect } = this.#deps;
    const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const only = transactionalOnly ? sql`and broadcast_id is null` : sql``;
    const result = await sql<Claimed>`
      update mail_outbox
         set attempts = attempts + 1, lease_token = ${token}, next_attempt_at = ${leaseUntil}, last_attempt_at = ${now}
       where id in (
         select id from mail_outbox
          where next_attempt_at <= ${now} ${only}
          order by next_attempt_at
          limit ${limit}
          ${lock})
      returning id, to_address, subject, text_body, html_body, attachments, created_at, attempts, broadcast_id, merge_fields`.execute(
      db,
    );
    return result.rows;
  }

  async #deliver(token: string, row: Claimed): Promise<DeliveryResult> {
    const { config, transport, logger } = this.#deps;
    const attempts = Number(row.attempts);
    const log = { mailId: row.id, attempt: attempts, transport: transport.describe() };
    if (Date.parse(row.created_at) < Date.now() - this.maxAgeMs) {
      const error = `not sent within ${Math.round(this.maxAgeMs / HOUR_MS)} h of being written; too old to send`;
      await this.#fail(token, row, error);
      logger.warn(log, 'mail too old to send; marked failed');
      return { id: row.id, outcome: 'failed', error };
    }
    // The outbox refuses these on write; a row that has them anyway was not written by it.
    if (!SINGLE_ADDRESS.test(row.to_address)) {
      const error = 'the recipient is not a single e-mail address';
      await this.#fail(token, row, error);
      logger.error(log, 'mail has an unusable recipient; marked failed');
      return { id: row.id, outcome: 'failed', error };
    }
    let file: string | null;
    try {
      // Opened here, so a message sealed under another key is retried (the key may be fixed) like a send that failed.
      const content =
        row.broadcast_id !== null ? await this.#broadcastContent(row) : openMailContent(this.#deps.seal, row);
      if (content === null) {
        const error = 'its broadcast no longer exists';
        await this.#fail(token, row, error);
        logger.warn(log, 'broadcast message without its broadcast; marked failed');
        return { id: row.id, outcome: 'failed', error };
      }
      ({ file } = await transport.send({
        id: row.id,
        createdAt: row.created_at,
        from: config.from,
        to: row.to_address,
        // One line whatever is stored: a line break in a header would start another header.
        subject: row.subject.replace(/[\r\n\0]+/g, ' '),
        ...content,
      }));
    } catch (err) {
      const failure = classifySendError(err);
      const delays = config.retryDelaysMs;
      if (failure.permanent || attempts > delays.length) {
        await this.#fail(token, row, failure.error);
        logger.error(
          { ...log, err: failure.error },
          failure.permanent ? 'mail refused by the SMTP server; marked failed' : 'mail failed after its last attempt',
        );
        return { id: row.id, outcome: 'failed', error: failure.error };
      }
      const due = Date.now() + delays[attempts - 1];
      await this.#deps.db
        .updateTable('mail_outbox')
        .set({ next_attempt_at: new Date(due).toISOString(), lease_token: null, last_error: failure.error })
        .where('id', '=', row.id)
        .where('lease_token', '=', token)
        .execute();
      this.#wakeAt(due);
      logger.warn({ ...log, err: failure.error, retryInMs: delays[attempts - 1] }, 'mail not sent; will retry');
      return { id: row.id, outcome: 'retry', error: failure.error };
    }
    await this.#record(row, 'sent', (db) =>
      db
        .updateTable('mail_outbox')
        .set({
          sent_at: nowIso(),
          next_attempt_at: null,
          lease_token: null,
          last_error: null,
          eml_path: file,
          from_address: config.from,
        })
        .where('id', '=', row.id)
        .where('lease_token', '=', token)
        .executeTakeFirst(),
    );
    if (file) logger.info({ ...log, file }, 'mail written to a file');
    else logger.info(log, 'mail sent');
    return { id: row.id, outcome: 'sent', error: null };
  }

  async #fail(token: string, row: Claimed, error: string): Promise<void> {
    await this.#record(row, 'failed', (db) =>
      db
        .updateTable('mail_outbox')
        .set({ failed_at: nowIso(), next_attempt_at: null, lease_token: null, last_error: error })
        .where('id', '=', row.id)
        .where('lease_token', '=', token)
        .executeTakeFirst(),
    );
  }

  /**
   * Records a final outcome. A broadcast's message also counts on its broadcast, in the same
   * transaction, and only when this worker's update took (the lease holder's): a message recorded
   * twice would count twice.
   */
  async #record(
    row: Claimed,
    outcome: 'sent' | 'failed',
    update: (db: Db | Trx) => Promise<{ numUpdatedRows: bigint }>,
  ): Promise<void> {
    const broadcastId = row.broadcast_id;
    if (broadcastId === null) {
      await update(this.#deps.db);
      return;
    }
    await transaction(this.#deps.db, async (trx) => {
      const res = await update(trx);
      if (Number(res.numUpdatedRows) === 1) await countBroadcastOutcome(trx, broadcastId, outcome);
    });
  }

  /** A broadcast message's content: its broadcast's body merged for this recipient; null when the broadcast is gone. */
  async #broadcastContent(row: Claimed): Promise<(MailContent & { headers: Record<string, string> }) | null> {
    const body = await this.#broadcastBodies.get(row.broadcast_id!);
    if (!body) return null;
    const fields = JSON.parse(row.merge_fields ?? '{}') as MergeFields;
    const mail = renderBroadcastMail(body, fields, envelopeAddress(this.#deps.config.from));
    return { text: mail.text, html: mail.html, attachments: [], headers: mail.headers };
  }
}
