// The broadcast dispatcher: runs beside the mail worker (unless SVC_MAIL_WORKER=false), claims a
// due broadcast with a lease and expands its audience into the mail outbox, where the mail worker
// sends it (and renders each copy: server/mail/broadcast-render.ts).
//
// Expansion is batches of EXPANSION_BATCH members in membership-id order (audienceBatch). Each
// batch is one transaction that writes its outbox rows and moves `expansion_cursor` past them,
// conditional on still holding the lease: a crash or a lost lease rolls the batch back whole, and
// whoever claims the broadcast next resumes after the last committed batch. So every member gets
// exactly one message, and no more than one batch is ever in memory. The last batch stamps
// `expanded_at` and sets `recipients` to the messages written (the audience may have changed since
// it was counted at queue time), then runs the completion check (server/mail/broadcast-outcome.ts).
//
// Woken at once for broadcasts queued in this process (onNewBroadcast); otherwise it polls, and
// sleeps no later than the next SCHEDULED broadcast's send_at.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { transaction, afterCommit, type Db, type Dialect, type Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import { wakeMailWorkers } from '../mail/wake.ts';
import { audienceBatch, type Audience } from './audience.ts';
import { completeIfDone } from '../mail/broadcast-outcome.ts';
import { communitySiteOrigin, unsubscribeUrl } from './links.ts';
import { renderSubject, type MergeFields } from '../mail/broadcast-render.ts';
import type { UnsubscribeTokens } from './unsubscribe-token.ts';
import { onNewBroadcast } from './wake.ts';

export const EXPANSION_BATCH = 1000;
/** Long enough for one batch on a slow disk; each batch extends it. */
const LEASE_MS = 60_000;
/** A timer further out than this is clamped (setTimeout's limit is ~24.8 days; polling covers the rest). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface BroadcastDispatcherDeps {
  db: Db;
  dialect: Dialect;
  logger: Logger;
  tokens: UnsubscribeTokens;
  /** SVC_PUBLIC_URL: the scheme and port of the hosted sites' links. */
  publicUrl: string;
  /** SVC_SITE_DOMAIN. */
  siteDomain: string;
  /** How often an idle dispatcher looks for due broadcasts (SVC_MAIL_POLL_MS). */
  pollMs: number;
  /** Members per transaction; EXPANSION_BATCH unless a test asks for fewer. */
  batchSize?: number;
}

interface Claimed {
  id: string;
  community_id: string;
  subject: string;
  audience_segment_ids: string | null;
  test_to: string | null;
  expansion_cursor: string | null;
  lease_token: string;
}

/** Thrown inside a batch's transaction when another dispatcher holds the broadcast now: rolls the batch back. */
class LeaseLost extends Error {}

export interface DispatchResult {
  broadcastId: string;
  /** Outbox rows written in this run (a resumed broadcast: only the ones after the cursor). */
  written: number;
  batches: number;
  outcome: 'expanded' | 'lease-lost';
}

export class BroadcastDispatcher {
  readonly #deps: BroadcastDispatcherDeps;
  readonly #batchSize: number;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(deps: BroadcastDispatcherDeps) {
    this.#deps = deps;
    this.#batchSize = deps.batchSize ?? EXPANSION_BATCH;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unsubscribe = onNewBroadcast(() => this.#wake?.());
    this.#loop = this.#run();
  }

  /** Stops claiming; a batch in flight commits (or rolls back) first. The broadcast resumes from its cursor later. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#unsubscribe?.();
    this.#wake?.();
    await this.#loop;
  }

  /** Claims and expands every broadcast due now, one after another (tests and tools). */
  async dispatchDue(): Promise<DispatchResult[]> {
    const results: DispatchResult[] = [];
    for (;;) {
      const claimed = await this.#claim();
      if (!claimed) return results;
      results.push(await this.#expand(claimed));
    }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let worked = false;
      // One "now" for the claim and the next wake-up: a broadcast not yet due at the claim is one the
      // wake-up waits for, even when its time passes between the two queries.
      const at = nowIso();
      try {
        const claimed = await this.#claim(at);
        if (claimed) {
          worked = true;
          await this.#expand(claimed);
        }
      } catch (err) {
        this.#deps.logger.warn({ err: (err as Error).message }, 'broadcast dispatcher could not claim or expand');
      }
      if (!this.#running) break;
      if (worked) continue;
      let waitMs = this.#deps.pollMs;
      try {
        const next = await this.#nextSendAt(at);
        if (next !== null) waitMs = Math.min(waitMs, Math.max(0, next - Date.now()));
      } catch {
        // the poll comes round anyway
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, Math.min(waitMs, MAX_TIMER_MS)).unref();
      });
      this.#wake = null;
    }
  }

  /**
   * The earliest send_at after `after` (a SCHEDULED broadcast's time), epoch ms. Only those: a
   * due broadcast another process holds would otherwise wake this loop at once, over and over; its
   * lease running out is found by the poll.
   */
  async #nextSendAt(after: string): Promise<number | null> {
    const row = await this.#deps.db
      .selectFrom('broadcasts')
      .select((eb) => eb.fn.min('send_at').as('next'))
      .where('status', 'in', ['QUEUED', 'SCHEDULED', 'SENDING'])
      .where('expanded_at', 'is', null)
      .where('send_at', '>', after)
      .executeTakeFirst();
    return row?.next ? Date.parse(String(row.next)) : null;
  }

  /** One due broadcast whose lease is free or has run out, now SENDING under a lease of ours. */
  async #claim(now: string = nowIso()): Promise<Claimed | null> {
    const { db, dialect } = this.#deps;
    const token = crypto.randomUUID();
    const until = new Date(Date.now() + LEASE_MS).toISOString();
    const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<Claimed>`
      update broadcasts
         set status = 'SENDING', started_at = coalesce(started_at, ${now}), lease_token = ${token}, lease_until = ${until}
       where id in (
         select id from broadcasts
          where status in ('QUEUED', 'SCHEDULED', 'SENDING') and expanded_at is null and send_at <= ${now}
            and (lease_until is null or lease_until < ${now})
          order by send_at
          limit 1
          ${lock})
         and (lease_until is null or lease_until < ${now})
      returning id, community_id, subject, audience_segment_ids, test_to, expansion_cursor, lease_token`.execute(db);
    return result.rows[0] ?? null;
  }

  async #expand(b: Claimed): Promise<DispatchResult> {
    const { db, logger, tokens, publicUrl, siteDomain } = this.#deps;
    const community = await db
      .selectFrom('communities')
      .select(['id', 'tag'])
      .where('id', '=', b.community_id)
      .executeTakeFirstOrThrow();
    const origin = await communitySiteOrigin(db, community, publicUrl, siteDomain);
    const test = b.test_to !== null;
    const audience: Audience = {
      communityId: b.community_id,
      segmentIds: parseJson<string[] | null>(b.audience_segment_ids, null),
    };
    let cursor: string | null = b.expansion_cursor;
    let written = 0;
    let batches = 0;
    const log = { broadcastId: b.id, communityId: b.community_id };
    try {
      for (;;) {
        const done = await transaction(db, async (trx) => {
          const members = test
            ? await this.#testRecipient(trx, b.test_to!)
            : await audienceBatch(trx, audience, cursor, this.#batchSize);
          const now = nowIso();
          const rows = members.map((m) => {
            const fields: MergeFields = {
              name: m.name,
              unsubscribeUrl: unsubscribeUrl(
                origin,
                tokens.sign({ communityId: b.community_id, userId: m.userId, broadcastId: b.id }),
              ),
            };
            return {
              id: newId(),
              to_address: m.email,
              subject: renderSubject(b.subject, m.name, test),
              // The body is rendered from the broadcast when the row is sent.
              text_body: '',
              html_body: null,
              created_at: now,
              sent_at: null,
              next_attempt_at: now,
              broadcast_id: b.id,
              merge_fields: JSON.stringify(fields),
            };
          });
          if (rows.length > 0) await trx.insertInto('mail_outbox').values(rows).execute();
          const last = test || members.length < this.#batchSize;
          const nextCursor = test ? null : (members[members.length - 1]?.membershipId ?? cursor);
          let recipients: number | undefined;
          if (last) {
            const count = await trx
              .selectFrom('mail_outbox')
              .select((eb) => eb.fn.countAll<number | string>().as('n'))
              .where('broadcast_id', '=', b.id)
              .executeTakeFirstOrThrow();
            recipients = Number(count.n);
          }
          const moved = await trx
            .updateTable('broadcasts')
            .set({
              expansion_cursor: nextCursor,
              lease_until: new Date(Date.now() + LEASE_MS).toISOString(),
              ...(last ? { expanded_at: now, recipients, lease_token: null, lease_until: null } : {}),
            })
            .where('id', '=', b.id)
            .where('lease_token', '=', b.lease_token)
            .where('status', '=', 'SENDING')
            .executeTakeFirst();
          if (Number(moved.numUpdatedRows) !== 1) throw new LeaseLost();
          // An empty audience, or a worker that sent every earlier message already: complete here.
          if (last) await completeIfDone(trx, b.id);
          if (rows.length > 0) afterCommit(trx, wakeMailWorkers);
          cursor = nextCursor;
          return { last, count: rows.length };
        });
        written += done.count;
        batches += 1;
        if (done.last) break;
      }
    } catch (err) {
      if (err instanceof LeaseLost) {
        logger.warn({ ...log, written, batches }, 'broadcast lease lost; another dispatcher continues it');
        return { broadcastId: b.id, written, batches, outcome: 'lease-lost' };
      }
      throw err;
    }
    logger.info({ ...log, written, batches, test }, 'broadcast expanded into the mail outbox');
    return { broadcastId: b.id, written, batches, outcome: 'expanded' };
  }

  /** A test send's one recipient: the account with that address (its name), else the address's local part. */
  async #testRecipient(
    trx: Trx,
    address: string,
  ): Promise<Array<{ membershipId: string; userId: string | null; email: string; name: string }>> {
    const user = await trx
      .selectFrom('users')
      .select('name')
      .where(sql<string>`lower(email)`, '=', address.toLowerCase())
      .executeTakeFirst();
    return [{ membershipId: '', userId: null, email: address, name: user?.name ?? address.split('@')[0] }];
  }
}
