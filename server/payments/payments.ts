// Payments: opening checkouts and the one path from "paid" to the domain.
//
// Opening is two steps so that no database transaction waits on the network: prepare() asks the
// processor for its hosted page first (idempotent on our checkout id, no database), then the
// caller's transaction holds what it sells and persist()s the checkout row; if that transaction
// fails, the processor's session is discarded (and would expire there anyway: nobody was sent
// to it). openCheckout() runs the three in that order.
//
// Every later state change moves the row out of OPEN with a conditional UPDATE, so the first of
// "paid", "expired", "cancelled" to commit wins, and a fulfilment keyed by the processor's
// transaction id commits its effects once however often (or concurrently) it is delivered.
import type { Logger } from 'pino';
import { PostgresAdapter, sql } from 'kysely';
import { transaction, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import type { CheckoutSessionsTable, CheckoutStatus } from '../db/schema-payments.ts';
import type { PaymentsConfig } from './config.ts';
import { Refusal } from '../domain/refusal.ts';
import type {
  CheckoutLineItem,
  CheckoutPurpose,
  CheckoutRecord,
  CheckoutRequest,
  GatewayName,
  OpenedCheckout,
  PaymentGateway,
} from './gateway.ts';

export interface PaymentFacts {
  transactionId: string;
  gateway: GatewayName;
  /** True when the checkout had already been released (expired, cancelled, failed) before the
   *  payment arrived: the handler must take its holds again, or decide what to do instead. */
  reopened: boolean;
  /** The processor's subscription, when the checkout opened one (Stripe `subscription` mode). */
  subscriptionId?: string | null;
}

export type ReleaseReason = Exclude<CheckoutStatus, 'OPEN' | 'COMPLETED'>;

export interface RefundFacts {
  transactionId: string;
  amountRefunded: number;
}

/** A later charge of a subscription the checkout opened (Stripe `invoice.paid`, or the local renewal). */
export interface RenewalFacts {
  /** Unique per charge (Stripe: the invoice id): the handler ignores one it has seen. */
  transactionId: string;
  gateway: GatewayName;
  amount: number;
  subscriptionId: string | null;
}

/** What the handler asks of the processor after a renewal commits. */
export interface RenewalOutcome {
  /** The plan has had all its charges: bill no more (Stripe: cancel at the period's end). */
  stopBilling?: boolean;
  /** Charge nothing until then, then bill every period again (an installment plan between cycles). */
  skipUntil?: string;
}

/** What each kind of purchase does when it is paid, abandoned or refunded. All run inside the
 *  transaction that moves the checkout, so their writes (and webhook events) commit with it. */
export interface FulfilmentHandler {
  completed(trx: Trx, checkout: CheckoutRecord, payment: PaymentFacts): Promise<void>;
  released?(trx: Trx, checkout: CheckoutRecord, reason: ReleaseReason): Promise<void>;
  refunded?(trx: Trx, checkout: CheckoutRecord, refund: RefundFacts): Promise<void>;
  /** Purchases that bill again: a later charge was paid. */
  renewed?(trx: Trx, checkout: CheckoutRecord, renewal: RenewalFacts): Promise<RenewalOutcome | void>;
  /** Purchases that bill again: the subscription ended (cancelled, or out of charges). */
  subscriptionEnded?(trx: Trx, checkout: CheckoutRecord, ended: { subscriptionId: string | null }): Promise<void>;
}

export type FulfilmentHandlers = Readonly<Record<string, FulfilmentHandler>>;

export type FulfilOutcome = 'fulfilled' | 'duplicate' | 'unknown_session' | 'refunded_before_fulfilment';

/** A checkout the processor has opened and this server has not yet written. */
export interface PreparedCheckout {
  checkout: CheckoutRecord;
  opened: OpenedCheckout;
  row: CheckoutSessionsTable;
}

/** Paid checkouts are refused: no gateway is configured (production without Stripe). */
export class PaymentsUnavailableError extends Refusal<'payments_unavailable'> {
  constructor() {
    super('payments_unavailable');
    this.name = 'PaymentsUnavailableError';
    this.message = 'payments are not configured';
  }
}

export interface PaymentsOptions {
  db: Db;
  gateway: PaymentGateway | null;
  handlers: FulfilmentHandlers;
  config: Pick<PaymentsConfig, 'checkoutTtlMs' | 'stripeExpiryGraceMs'>;
  logger?: Logger;
}

function toRecord(row: CheckoutSessionsTable): CheckoutRecord {
  return {
    id: row.id,
    communityId: row.community_id,
    gateway: row.gateway,
    processorSessionId: row.processor_session_id,
    purpose: parseJson<CheckoutPurpose>(row.purpose, { kind: row.purpose_kind }),
    lineItems: parseJson<CheckoutLineItem[]>(row.line_items, []),
    currency: row.currency,
    amountTotal: row.amount_total,
    customerEmail: row.customer_email,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    status: row.status,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    transactionId: row.transaction_id,
  };
}

function assertValidRequest(request: CheckoutRequest): void {
  // These are programming errors: routes validate buyer input before it gets here.
  if (request.lineItems.length === 0) throw new Error('a checkout needs at least one line item');
  for (const item of request.lineItems) {
    if (!Number.isSafeInteger(item.unitAmount) || item.unitAmount < 0)
      throw new Error(`bad unitAmount for ${item.name}`);
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) throw new Error(`bad quantity for ${item.name}`);
  }
  if (!/^[A-Za-z]{3}$/.test(request.currency)) throw new Error(`bad currency ${request.currency}`);
  for (const url of [request.successUrl, request.cancelUrl]) {
    const protocol = new URL(url).protocol;
    if (protocol !== 'https:' && protocol !== 'http:') throw new Error('checkout URLs must be http(s)');
  }
}

/**
 * On PostgreSQL, fulfil() and refund() of one transaction id take turns: under READ COMMITTED a
 * refund could otherwise miss a completion committing at the same moment (and the completion miss
 * the refund), granting a refunded purchase. SQLite runs one writer at a time anyway.
 */
async function oneAtATime(trx: Trx, transactionId: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`select pg_advisory_xact_lock(hashtext(${transactionId}))`.execute(trx);
  }
}

export class Payments {
  constructor(private readonly opts: PaymentsOptions) {}

  /** `local`, `stripe`, or null when paid checkouts are switched off. */
  get gatewayName(): GatewayName | null {
    return this.opts.gateway?.name ?? null;
  }

  /**
   * Asks the processor for a hosted checkout of `request`. No database work: call it outside any
   * transaction, then persist() the result in the transaction that holds what it sells.
   */
  async prepare(request: CheckoutRequest): Promise<PreparedCheckout> {
    const gateway = this.opts.gateway;
    if (!gateway) throw new PaymentsUnavailableError();
    if (!this.opts.handlers[request.purpose.kind]) throw new Error(`no fulfilment handler for ${request.purpose.kind}`);
    assertValidRequest(request);
    const now = Date.now();
    const row: CheckoutSessionsTable = {
      id: newId(),
      community_id: request.communityId,
      gateway: gateway.name,
      processor_session_id: null,
      checkout_url: null,
      purpose_kind: request.purpose.kind,
      purpose: JSON.stringify(request.purpose),
      line_items: JSON.stringify(request.lineItems),
      currency: request.currency.toUpperCase(),
      amount_total: request.lineItems.reduce((sum, i) => sum + i.unitAmount * i.quantity, 0),
      customer_email: request.customerEmail?.trim().toLowerCase() || null,
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      status: 'OPEN',
      expires_at: new Date(now + this.opts.config.checkoutTtlMs).toISOString(),
      created_at: new Date(now).toISOString(),
      closed_at: null,
      transaction_id: null,
    };
    const terms = {
      ...(request.recurring ? { recurring: request.recurring } : {}),
      ...(request.installments ? { installments: request.installments } : {}),
    };
    const { processorSessionId, checkoutUrl } = await gateway.createSession({ ...toRecord(row), ...terms });
    const persisted = { ...row, processor_session_id: processorSessionId, checkout_url: checkoutUrl };
    return {
      checkout: toRecord(persisted),
      opened: { sessionId: processorSessionId, checkoutUrl, expiresAt: row.expires_at },
      row: persisted,
    };
  }

  /** Writes a prepared checkout in the caller's transaction (before anything that references it). */
  async persist(trx: Trx, prepared: PreparedCheckout): Promise<void> {
    await trx.insertInto('checkout_sessions').values(prepared.row).execute();
  }

  /** The transaction that would have persisted it failed: the processor's session is not used. */
  async abandon(prepared: PreparedCheckout): Promise<void> {
    try {
      await this.opts.gateway?.discardSession?.(prepared.opened.sessionId);
    } catch (err) {
      // It expires at the processor by itself; nobody was ever sent to it.
      this.opts.logger?.warn(
        { err, sessionId: prepared.opened.sessionId },
        'could not discard an unused checkout session',
      );
    }
  }

  /**
   * prepare(), then `commit` (the caller's transaction, which must call persist()), and abandon()
   * if the commit fails. Returns what `commit` returns.
   */
  async openCheckout<R>(request: CheckoutRequest, commit: (prepared: PreparedCheckout) => Promise<R>): Promise<R> {
    const prepared = await this.prepare(request);
    try {
      return await commit(prepared);
    } catch (err) {
      await this.abandon(prepared);
      throw err;
    }
  }

  async find(processorSessionId: string): Promise<CheckoutRecord | null> {
    const row = await this.opts.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('processor_session_id', '=', processorSessionId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /**
   * "This checkout was paid": grants what it bought, once. Idempotent on the transaction id and on
   * the checkout (a processor reporting two payment ids for one session still grants once).
   */
  async fulfil(
    processorSessionId: string,
    transactionId: string,
    buyer: { email?: string | null; subscriptionId?: string | null } = {},
  ): Promise<FulfilOutcome> {
    const outcome = await transaction(this.opts.db, async (trx) => {
      await oneAtATime(trx, transactionId);
      const row = await trx
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('processor_session_id', '=', processorSessionId)
        .executeTakeFirst();
      if (!row) return 'unknown_session' as const;
      const now = nowIso();
      // ON CONFLICT DO NOTHING rather than catching the violation: on PostgreSQL a failed
      // statement poisons the transaction. A concurrent twin waits here on the uncommitted key
      // and then inserts nothing.
      const inserted = await trx
        .insertInto('payment_fulfilments')
        .values({
          transaction_id: transactionId,
          checkout_session_id: row.id,
          gateway: row.gateway,
          fulfilled_at: now,
          refunded_at: null,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return 'duplicate' as const;
      const reopened = row.status !== 'OPEN';
      // Stripe does not order its events: a refund may have arrived before this completion (say,
      // the completion failed once and was retried after an admin refunded the charge).
      const early = await trx
        .deleteFrom('early_refunds')
        .where('transaction_id', '=', transactionId)
        .returning('transaction_id')
        .executeTakeFirst();
      if (early) {
        await trx
          .updateTable('payment_fulfilments')
          .set({ refunded_at: now })
          .where('transaction_id', '=', transactionId)
          .execute();
        await trx
          .updateTable('checkout_sessions')
          .set({ status: 'COMPLETED', closed_at: now, transaction_id: transactionId })
          .where('id', '=', row.id)
          .execute();
        if (!reopened) await this.handlerFor(row.purpose_kind).released?.(trx, toRecord(row), 'FAILED');
        return 'refunded_before_fulfilment' as const;
      }
      // The processor's page asks for the e-mail when we did not know it.
      const customerEmail = row.customer_email ?? buyer.email?.trim().toLowerCase() ?? null;
      await trx
        .updateTable('checkout_sessions')
        .set({ status: 'COMPLETED', closed_at: now, transaction_id: transactionId, customer_email: customerEmail })
        .where('id', '=', row.id)
        .execute();
      const checkout = { ...toRecord(row), status: 'COMPLETED' as const, transactionId, customerEmail };
      await this.handlerFor(row.purpose_kind).completed(trx, checkout, {
        transactionId,
        gateway: row.gateway,
        reopened,
        ...(buyer.subscriptionId ? { subscriptionId: buyer.subscriptionId } : {}),
      });
      return 'fulfilled' as const;
    });
    if (outcome === 'unknown_session') {
      this.opts.logger?.warn({ processorSessionId }, 'payment for a checkout this server did not open');
    } else if (outcome === 'refunded_before_fulfilment') {
      this.opts.logger?.warn(
        { processorSessionId, transactionId },
        'completion arrived after its refund: nothing granted',
      );
    }
    return outcome;
  }

  /** Releases an OPEN checkout's holds. False when it had already moved (paid, or released). */
  async release(processorSessionId: string, reason: ReleaseReason): Promise<boolean> {
    return this.releaseWhere('processor_session_id', processorSessionId, reason);
  }

  /**
   * A full refund of a fulfilled payment, once. Partial refunds are not handled in v1: the caller
   * (the Stripe webhook) passes only full ones, and the rest are logged for a person to look at.
   */
  async refund(transactionId: string, amountRefunded: number): Promise<boolean> {
    return transaction(this.opts.db, async (trx) => {
      await oneAtATime(trx, transactionId);
      const changed = await trx
        .updateTable('payment_fulfilments')
        .set({ refunded_at: nowIso() })
        .where('transaction_id', '=', transactionId)
        .where('refunded_at', 'is', null)
        .returning('checkout_session_id')
        .executeTakeFirst();
      if (!changed) {
        const fulfilled = await trx
          .selectFrom('payment_fulfilments')
          .select('transaction_id')
          .where('transaction_id', '=', transactionId)
          .executeTakeFirst();
        // Not fulfilled (yet): remember it, so a completion delivered later grants nothing.
        if (!fulfilled) {
          await trx
            .insertInto('early_refunds')
            .values({ transaction_id: transactionId, amount: amountRefunded, received_at: nowIso() })
            .onConflict((oc) => oc.doNothing())
            .execute();
        }
        return false;
      }
      const row = await trx
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', changed.checkout_session_id)
        .executeTakeFirstOrThrow();
      await this.handlerFor(row.purpose_kind).refunded?.(trx, toRecord(row), { transactionId, amountRefunded });
      return true;
    });
  }

  /**
   * A later charge of the subscription a completed checkout opened. Null when the checkout is
   * unknown or was never paid, or its kind does not bill again. The handler keys its effects on
   * `renewal.transactionId`, so a redelivered charge changes nothing.
   */
  async renew(checkoutId: string, renewal: RenewalFacts): Promise<RenewalOutcome | null> {
    return transaction(this.opts.db, async (trx) => {
      const row = await trx.selectFrom('checkout_sessions').selectAll().where('id', '=', checkoutId).executeTakeFirst();
      if (!row || row.status !== 'COMPLETED') return null;
      const handler = this.handlerFor(row.purpose_kind);
      if (!handler.renewed) return null;
      return (await handler.renewed(trx, toRecord(row), renewal)) ?? {};
    });
  }

  /** The subscription a completed checkout opened has ended. False when nothing was told. */
  async endSubscription(checkoutId: string, subscriptionId: string | null): Promise<boolean> {
    return transaction(this.opts.db, async (trx) => {
      const row = await trx.selectFrom('checkout_sessions').selectAll().where('id', '=', checkoutId).executeTakeFirst();
      if (!row || row.status !== 'COMPLETED') return false;
      const handler = this.handlerFor(row.purpose_kind);
      if (!handler.subscriptionEnded) return false;
      await handler.subscriptionEnded(trx, toRecord(row), { subscriptionId });
      return true;
    });
  }

  /**
   * Expires open checkouts past their time. Local checkouts expire at expires_at; Stripe ones an
   * hour later, because Stripe's own `checkout.session.expired` is the source of truth and a
   * buyer may still be on its page at the last second.
   */
  async expireDue(now = Date.now()): Promise<number> {
    const localCutoff = new Date(now).toISOString();
    const stripeCutoff = new Date(now - this.opts.config.stripeExpiryGraceMs).toISOString();
    const due = await this.opts.db
      .selectFrom('checkout_sessions')
      .select(['id'])
      .where('status', '=', 'OPEN')
      .where((eb) =>
        eb.or([
          eb.and([eb('gateway', '=', 'local'), eb('expires_at', '<=', localCutoff)]),
          eb.and([eb('gateway', '=', 'stripe'), eb('expires_at', '<=', stripeCutoff)]),
        ]),
      )
      .orderBy('expires_at')
      .limit(200)
      .execute();
    let expired = 0;
    for (const { id } of due) {
      if (await this.releaseWhere('id', id, 'EXPIRED')) expired += 1;
    }
    return expired;
  }

  private async releaseWhere(
    column: 'id' | 'processor_session_id',
    value: string,
    reason: ReleaseReason,
  ): Promise<boolean> {
    return transaction(this.opts.db, async (trx) => {
      const row = await trx
        .updateTable('checkout_sessions')
        .set({ status: reason, closed_at: nowIso() })
        .where(column, '=', value)
        .where('status', '=', 'OPEN')
        .returningAll()
        .executeTakeFirst();
      if (!row) return false;
      await this.handlerFor(row.purpose_kind).released?.(trx, toRecord(row), reason);
      return true;
    });
  }

  private handlerFor(kind: string): FulfilmentHandler {
    const handler = this.opts.handlers[kind];
    // A row whose kind has no handler was written by a newer release; failing loudly keeps the
    // payment unfulfilled (and retried by Stripe) rather than silently dropped.
    if (!handler) throw new Error(`no fulfilment handler for checkout kind ${kind}`);
    return handler;
  }
}

export function checkoutsExpireWorker(payments: Payments, intervalMs: number, logger?: Logger): { stop(): void } {
  const timer = setInterval(() => {
    payments.expireDue().catch((err: unknown) => logger?.error({ err }, 'expiring checkouts failed'));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
