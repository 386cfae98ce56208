// Paid memberships: the checkout of a PAYMENT_PENDING request, the price of each billing cycle
// (founding prices while spots are left), and what completion, renewals, refunds and the end of a
// subscription do. Decisions: docs/api.md "Membership requests" and docs/payments.md.
//
// A founding spot is taken when the checkout opens (a conditional UPDATE of the segment's
// founding_member_count, so concurrent checkouts never pass the cap), given back when the
// checkout expires or is cancelled, and kept when it is paid. The price a member pays is fixed
// into the checkout and then into membership_billing: a later PATCH of the segment's prices does
// not reach an existing purchase.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import { transaction, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { MembershipBillingTable } from '../db/schema-membership-billing.ts';
import type { SegmentsTable } from '../db/schema.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { membershipEmail } from '../mail/membership-email.ts';
import type { BillingTerms, CheckoutLineItem, CheckoutRecord, CheckoutRequest } from '../payments/gateway.ts';
import type { FulfilmentHandler, Payments, RenewalOutcome } from '../payments/payments.ts';
import { emit } from '../webhooks/emit.ts';
import { offeredCycles, type BillingCycle } from './applications.ts';
import { notify } from './notifications.ts';
import { Refusal } from './refusal.ts';

// ---------------------------------------------------------------------------------------------
// Prices

type PriceFields = Pick<
  SegmentsTable,
  | 'price_monthly'
  | 'price_quarterly'
  | 'price_yearly'
  | 'price_one_time'
  | 'installment_total_price'
  | 'installment_count'
  | 'installment_interval_months'
  | 'access_duration_months'
  | 'installment_renews_annually'
  | 'founding_price_monthly'
  | 'founding_price_quarterly'
  | 'founding_price_yearly'
  | 'founding_member_cap'
> & { founding_member_count: number };

const SUBSCRIPTION_MONTHS: Partial<Record<BillingCycle, number>> = { MONTHLY: 1, QUARTERLY: 3, YEARLY: 12 };

/** What one purchase costs and how it bills, fixed at checkout. */
export interface MembershipPrice {
  cycle: BillingCycle;
  /** Every charge after the first (and the first, plus `firstChargeExtra`). */
  unitAmount: number;
  /** The installment plan's rounding remainder, charged once with the first installment. */
  firstChargeExtra: number;
  founding: boolean;
  /** Months between charges; null for ONE_TIME. */
  intervalMonths: number | null;
  /** Installment plans: how many charges make a cycle. */
  installmentsTotal: number | null;
  /** ONE_TIME and installment plans: months of access (null: no end). */
  accessMonths: number | null;
  renewsAnnually: boolean;
}

function foundingPriceOf(s: PriceFields, cycle: BillingCycle): number | null {
  if (cycle === 'MONTHLY') return s.founding_price_monthly;
  if (cycle === 'QUARTERLY') return s.founding_price_quarterly;
  if (cycle === 'YEARLY') return s.founding_price_yearly;
  return null;
}

function regularPriceOf(s: PriceFields, cycle: BillingCycle): number | null {
  switch (cycle) {
    case 'MONTHLY':
      return s.price_monthly;
    case 'QUARTERLY':
      return s.price_quarterly;
    case 'YEARLY':
      return s.price_yearly;
    case 'ONE_TIME':
      return s.price_one_time;
    case 'INSTALLMENT_PLAN':
      return s.installment_total_price;
  }
}

/** Founding spots left; null = no cap (the founding price applies to everyone while it is set). */
export function foundingSpotsLeft(
  s: Pick<PriceFields, 'founding_member_cap' | 'founding_member_count'>,
): number | null {
  return s.founding_member_cap === null ? null : Math.max(0, s.founding_member_cap - Number(s.founding_member_count));
}

/**
 * The price of `cycle` for a new purchase, or null when the segment does not offer it.
 * `foundingAllowed: false` asks for the regular price (the spot was taken meanwhile).
 */
export function priceFor(s: PriceFields, cycle: BillingCycle, foundingAllowed = true): MembershipPrice | null {
  const regular = regularPriceOf(s, cycle);
  if (regular === null) return null;
  const founding = foundingPriceOf(s, cycle);
  const useFounding = foundingAllowed && founding !== null && foundingSpotsLeft(s) !== 0;
  const base = { cycle, firstChargeExtra: 0, founding: useFounding, installmentsTotal: null, renewsAnnually: false };
  if (cycle === 'INSTALLMENT_PLAN') {
    const count = s.installment_count ?? 0;
    const interval = s.installment_interval_months ?? 0;
    if (count < 1 || interval < 1) return null;
    // Whole minor units only: the remainder of the division rides on the first charge.
    return {
      ...base,
      unitAmount: Math.floor(regular / count),
      firstChargeExtra: regular % count,
      intervalMonths: interval,
      installmentsTotal: count,
      accessMonths: s.access_duration_months,
      renewsAnnually: Number(s.installment_renews_annually) === 1,
    };
  }
  if (cycle === 'ONE_TIME')
    return { ...base, unitAmount: regular, intervalMonths: null, accessMonths: s.access_duration_months };
  return {
    ...base,
    unitAmount: useFounding ? founding! : regular,
    intervalMonths: SUBSCRIPTION_MONTHS[cycle]!,
    accessMonths: null,
  };
}

/** How the processor bills it: a subscription for every cycle but ONE_TIME. */
export function billingTerms(price: MembershipPrice): BillingTerms {
  if (price.intervalMonths === null) return {};
  const recurring =
    price.intervalMonths % 12 === 0
      ? { interval: 'year' as const, intervalCount: price.intervalMonths / 12 }
      : { interval: 'month' as const, intervalCount: price.intervalMonths };
  if (price.installmentsTotal === null) return { recurring };
  // One installment that never repeats is a plain payment.
  if (price.installmentsTotal === 1 && !price.renewsAnnually) return {};
  return { recurring, installments: { count: price.installmentsTotal } };
}

// ---------------------------------------------------------------------------------------------
// Dates

/** `iso` plus `months` calendar months in UTC; the 31st becomes the month's last day. */
export function addMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString();
}

const later = (a: string, b: string) => (a > b ? a : b);

// ---------------------------------------------------------------------------------------------
// Opening the checkout

/** The hold failed because another checkout of the same request (or the last founding spot) won a race: plan again. */
export class CheckoutRaceLost extends Error {
  constructor(readonly what: 'request' | 'founding') {
    super(`lost the race for the ${what}`);
    this.name = 'CheckoutRaceLost';
  }
}

export interface MembershipPurpose {
  kind: 'membership';
  requestId: string;
  segmentId: string;
  userId: string;
  price: MembershipPrice;
  [key: string]: unknown;
}

export type ApplyCheckoutPlan =
  | { kind: 'open'; checkoutUrl: string; sessionId: string }
  | {
      kind: 'new';
      request: CheckoutRequest;
      requestId: string;
      segmentId: string;
      previousCheckoutId: string | null;
      founding: boolean;
    };

export interface PlanInput {
  requestId: string;
  /** The already-checked origin the applicant returns to. */
  returnOrigin: string;
  /** False after losing the last founding spot to another checkout. */
  foundingAllowed?: boolean;
}

const CYCLE_LABEL: Record<BillingCycle, string> = {
  MONTHLY: 'monthly',
  QUARTERLY: 'quarterly',
  YEARLY: 'yearly',
  ONE_TIME: 'one-time payment',
  INSTALLMENT_PLAN: 'installment plan',
};

function lineItemsFor(segmentName: string, price: MembershipPrice): CheckoutLineItem[] {
  const founding = price.founding ? ', founding member price' : '';
  if (price.cycle === 'INSTALLMENT_PLAN') {
    const items: CheckoutLineItem[] = [
      {
        name: `${segmentName} membership (installment 1 of ${price.installmentsTotal}${founding})`,
        description: `${price.installmentsTotal} charges, one every ${price.intervalMonths} month${price.intervalMonths === 1 ? '' : 's'}`,
        unitAmount: price.unitAmount,
        quantity: 1,
      },
    ];
    if (price.firstChargeExtra > 0) {
      items.push({
        name: 'Rounding of the installments',
        unitAmount: price.firstChargeExtra,
        quantity: 1,
        firstChargeOnly: true,
      });
    }
    return items;
  }
  return [
    {
      name: `${segmentName} membership (${CYCLE_LABEL[price.cycle]}${founding})`,
      unitAmount: price.unitAmount,
      quantity: 1,
    },
  ];
}

/**
 * Plans the checkout of a paid request (reads only): the request's open checkout when it has one,
 * else what to open. The success and cancel URLs lead back to `returnOrigin`.
 */
export async function planApplyCheckout(
  db: Db | Trx,
  communityId: string,
  input: PlanInput,
): Promise<ApplyCheckoutPlan> {
  const request = await db
    .selectFrom('membership_requests')
    .select(['id', 'status', 'segment_id', 'user_id', 'email', 'billing_cycle', 'checkout_session_id'])
    .where('community_id', '=', communityId)
    .where('id', '=', input.requestId)
    .executeTakeFirst();
  if (!request) throw new Refusal('request_not_found');
  if (request.status !== 'PAYMENT_PENDING') throw new Refusal('not_payment_pending', { status: request.status });
  if (request.checkout_session_id) {
    const open = await db
      .selectFrom('checkout_sessions')
      .select(['status', 'checkout_url', 'processor_session_id', 'expires_at'])
      .where('id', '=', request.checkout_session_id)
      .executeTakeFirst();
    if (
      open?.status === 'OPEN' &&
      open.checkout_url &&
      open.processor_session_id &&
      Date.parse(open.expires_at) > Date.now()
    ) {
      return { kind: 'open', checkoutUrl: open.checkout_url, sessionId: open.processor_session_id };
    }
  }
  const segment = await db
    .selectFrom('segments')
    .selectAll()
    .where('id', '=', request.segment_id)
    .executeTakeFirstOrThrow();
  if (Number(segment.is_active) !== 1) throw new Refusal('checkout_segment_closed');
  const cycle = request.billing_cycle;
  const price =
    cycle && offeredCycles(segment).includes(cycle) ? priceFor(segment, cycle, input.foundingAllowed ?? true) : null;
  if (!price) throw new Refusal('no_price_for_cycle', { cycle });

  const purpose: MembershipPurpose = {
    kind: 'membership',
    requestId: request.id,
    segmentId: segment.id,
    userId: request.user_id,
    price,
  };
  const origin = input.returnOrigin;
  return {
    kind: 'new',
    requestId: request.id,
    segmentId: segment.id,
    previousCheckoutId: request.checkout_session_id,
    founding: price.founding,
    request: {
      communityId,
      purpose,
      lineItems: lineItemsFor(segment.name, price),
      currency: segment.currency,
      customerEmail: request.email,
      successUrl: `${origin}/?svc_apply=success&session={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${origin}/?svc_apply=cancelled&request=${encodeURIComponent(request.id)}`,
      ...billingTerms(price),
    },
  };
}

/**
 * In the transaction that writes the checkout: makes it the request's open checkout and takes a
 * founding spot when its price is the founding one. Throws CheckoutRaceLost when another checkout
 * got there first (plan again).
 */
export async function holdForCheckout(
  trx: Trx,
  plan: Extract<ApplyCheckoutPlan, { kind: 'new' }>,
  checkoutId: string,
): Promise<void> {
  let link = trx
    .updateTable('membership_requests')
    .set({ checkout_session_id: checkoutId })
    .where('id', '=', plan.requestId)
    .where('status', '=', 'PAYMENT_PENDING');
  link =
    plan.previousCheckoutId === null
      ? link.where('checkout_session_id', 'is', null)
      : link.where('checkout_session_id', '=', plan.previousCheckoutId);
  const linked = await link.executeTakeFirst();
  if (Number(linked.numUpdatedRows) === 0) throw new CheckoutRaceLost('request');
  if (plan.founding && !(await takeFoundingSpot(trx, plan.segmentId))) throw new CheckoutRaceLost('founding');
}

/** One founding spot, if any is left: the row lock makes concurrent takers queue and re-check. */
async function takeFoundingSpot(trx: Trx, segmentId: string): Promise<boolean> {
  const taken = await trx
    .updateTable('segments')
    .set({ founding_member_count: sql`founding_member_count + 1` })
    .where('id', '=', segmentId)
    .where((eb) =>
      eb.or([eb('founding_member_cap', 'is', null), eb('founding_member_count', '<', eb.ref('founding_member_cap'))]),
    )
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

async function giveBackFoundingSpot(trx: Trx, segmentId: string): Promise<void> {
  await trx
    .updateTable('segments')
    .set({ founding_member_count: sql`founding_member_count - 1` })
    .where('id', '=', segmentId)
    .where('founding_member_count', '>', 0)
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Completion, release, refund, renewals

async function communityOf(trx: Trx, id: string) {
  return trx.selectFrom('communities').select(['id', 'tag', 'name']).where('id', '=', id).executeTakeFirstOrThrow();
}

function firstAccessUntil(price: MembershipPrice, from: string): string | null {
  if (price.cycle === 'ONE_TIME' || price.cycle === 'INSTALLMENT_PLAN')
    return price.accessMonths ? addMonths(from, price.accessMonths) : null;
  return addMonths(from, price.intervalMonths!);
}

function firstNextCharge(price: MembershipPrice, from: string, accessUntil: string | null): string | null {
  if (price.cycle === 'ONE_TIME') return null;
  if (price.cycle !== 'INSTALLMENT_PLAN') return accessUntil;
  if (price.installmentsTotal! > 1) return addMonths(from, price.intervalMonths!);
  return price.renewsAnnually ? accessUntil : null;
}

/**
 * Accepts the paid member: request APPROVED, membership ACCEPTED, `member.approved` (approvedBy
 * null), the approval e-mail and notification, and the billing record. A payment for a request a
 * reviewer rejected, or by a banned person, admits nobody: it is logged for a refund by hand.
 */
async function complete(
  trx: Trx,
  checkout: CheckoutRecord,
  payment: { transactionId: string; reopened: boolean; subscriptionId?: string | null },
  logger?: Logger,
) {
  const p = checkout.purpose as MembershipPurpose;
  const price = { ...p.price };
  const request = await trx
    .selectFrom('membership_requests')
    .select(['id', 'status', 'email', 'created_at'])
    .where('id', '=', p.requestId)
    .executeTakeFirst();
  const current = await trx
    .selectFrom('memberships')
    .select(['id', 'status'])
    .where('community_id', '=', checkout.communityId)
    .where('user_id', '=', p.userId)
    .executeTakeFirst();
  if (!request || request.status === 'REJECTED' || current?.status === 'BANNED') {
    if (price.founding && !payment.reopened) await giveBackFoundingSpot(trx, p.segmentId);
    logger?.warn(
      { checkoutId: checkout.id, requestId: p.requestId, transactionId: payment.transactionId },
      'paid membership not granted (request rejected or applicant banned): refund it by hand',
    );
    return;
  }
  // Paid after its checkout had expired: the spot went back then and may be gone now. The member
  // keeps the price they paid; they are not counted as founding if the cap is full.
  if (price.founding && payment.reopened && !(await takeFoundingSpot(trx, p.segmentId))) price.founding = false;

  const now = nowIso();
  await trx
    .updateTable('membership_requests')
    .set({ status: 'APPROVED', decided_at: now, decided_by: null })
    .where('id', '=', p.requestId)
    .where('status', 'in', ['PAYMENT_PENDING', 'CANCELLED'])
    .execute();
  // A newer unpaid request of the same person (they applied again meanwhile) is moot now.
  await trx
    .updateTable('membership_requests')
    .set({ status: 'CANCELLED', decided_at: now })
    .where('community_id', '=', checkout.communityId)
    .where('user_id', '=', p.userId)
    .where('status', '=', 'PAYMENT_PENDING')
    .where('id', '!=', p.requestId)
    .execute();

  const accepted = await trx
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: checkout.communityId,
      user_id: p.userId,
      status: 'ACCEPTED',
      role: 'member',
      segment_id: p.segmentId,
      created_at: request.created_at,
      accepted_at: now,
      kicked_at: null,
      banned_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['community_id', 'user_id'])
        .doUpdateSet({
          status: 'ACCEPTED',
          segment_id: p.segmentId,
          created_at: request.created_at,
          accepted_at: now,
          kicked_at: null,
        })
        .where('memberships.status', 'in', ['PENDING', 'REJECTED']),
    )
    .returning('id')
    .executeTakeFirst();
  const membershipId = accepted?.id ?? current!.id;

  const accessUntil = firstAccessUntil(price, now);
  const billingId = newId();
  const subscriptionId =
    payment.subscriptionId ??
    (checkout.gateway === 'local' && price.intervalMonths !== null
      ? `sub_local_${crypto.randomBytes(12).toString('hex')}`
      : null);
  await trx
    .insertInto('membership_billing')
    .values({
      id: billingId,
      community_id: checkout.communityId,
      membership_id: membershipId,
      user_id: p.userId,
      segment_id: p.segmentId,
      request_id: p.requestId,
      checkout_session_id: checkout.id,
      gateway: checkout.gateway,
      billing_cycle: price.cycle,
      currency: checkout.currency,
      unit_amount: price.unitAmount,
      first_charge_extra: price.firstChargeExtra,
      founding: price.founding ? 1 : 0,
      interval_months: price.intervalMonths,
      installments_total: price.installmentsTotal,
      installments_paid: price.installmentsTotal === null ? 0 : 1,
      access_months: price.accessMonths,
      renews_annually: price.renewsAnnually ? 1 : 0,
      access_until: accessUntil,
      next_charge_at: firstNextCharge(price, now, accessUntil),
      processor_subscription_id: subscriptionId,
      status: 'ACTIVE',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await trx
    .insertInto('membership_charges')
    .values({
      transaction_id: payment.transactionId,
      billing_id: billingId,
      kind: 'INITIAL',
      amount: checkout.amountTotal,
      currency: checkout.currency,
      access_until: accessUntil,
      charged_at: now,
    })
    .execute();

  // Already ACCEPTED (a second purchase raced the first): billed, but approved only once.
  if (!accepted) return;
  const community = await communityOf(trx, checkout.communityId);
  const user = await trx.selectFrom('users').select('name').where('id', '=', p.userId).executeTakeFirstOrThrow();
  const segment = await trx
    .selectFrom('segments')
    .select('name')
    .where('id', '=', p.segmentId)
    .executeTakeFirstOrThrow();
  await emit(trx, community, 'member.approved', {
    memberId: membershipId,
    userId: p.userId,
    approvedAt: now,
    approvedBy: null,
  });
  await notify(trx, {
    userId: p.userId,
    communityId: community.id,
    kind: 'membership.approved',
    data: { communityName: community.name, segmentName: segment.name },
  });
  await new OutboxMailer(trx).send(
    membershipEmail('approved', { community, to: request.email, name: user.name, segmentName: segment.name }),
  );
}

async function billingOf(trx: Trx, checkoutId: string): Promise<MembershipBillingTable | undefined> {
  return trx
    .selectFrom('membership_billing')
    .selectAll()
    .where('checkout_session_id', '=', checkoutId)
    .executeTakeFirst();
}

/**
 * A later charge. Subscriptions extend access by one period from where it ended (or from now,
 * if it had lapsed). Installment plans count the charge; after the last one a plan that renews
 * starts its next cycle at access_until. Redelivered charges change nothing.
 */
async function renew(
  trx: Trx,
  checkout: CheckoutRecord,
  transactionId: string,
  amount: number,
): Promise<RenewalOutcome> {
  const b = await billingOf(trx, checkout.id);
  if (!b) return {};
  if (b.status !== 'ACTIVE' || b.next_charge_at === null) return outcomeOf(b);
  const now = nowIso();
  let accessUntil = b.access_until;
  let paid = b.installments_paid;
  let next: string | null;
  if (b.billing_cycle === 'INSTALLMENT_PLAN') {
    const total = b.installments_total!;
    if (paid >= total) {
      // The first installment of the next cycle, which starts where the last one's access ends.
      const cycleStart = b.access_until ?? now;
      accessUntil = b.access_months ? addMonths(cycleStart, b.access_months) : null;
      paid = 1;
      next = total > 1 ? addMonths(cycleStart, b.interval_months!) : accessUntil;
    } else {
      paid += 1;
      next = paid < total ? addMonths(b.next_charge_at, b.interval_months!) : b.renews_annually ? b.access_until : null;
    }
  } else {
    accessUntil = addMonths(later(b.access_until ?? now, now), b.interval_months!);
    next = accessUntil;
  }
  const recorded = await trx
    .insertInto('membership_charges')
    .values({
      transaction_id: transactionId,
      billing_id: b.id,
      kind: 'RENEWAL',
      amount,
      currency: b.currency,
      access_until: accessUntil,
      charged_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  // Seen before: the processor is told the same again (its last call may have failed).
  if (Number(recorded.numInsertedOrUpdatedRows ?? 0n) === 0) return outcomeOf(b);
  const updated = { ...b, access_until: accessUntil, installments_paid: paid, next_charge_at: next, updated_at: now };
  await trx
    .updateTable('membership_billing')
    .set({ access_until: accessUntil, installments_paid: paid, next_charge_at: next, updated_at: now })
    .where('id', '=', b.id)
    .execute();
  return outcomeOf(updated);
}

/** What the processor should do next for a billing record. */
function outcomeOf(b: MembershipBillingTable): RenewalOutcome {
  if (b.status !== 'ACTIVE' || b.next_charge_at === null) return { stopBilling: true };
  // Between an installment cycle's last charge and the next cycle: bill nothing until it starts.
  if (b.billing_cycle === 'INSTALLMENT_PLAN' && b.installments_paid >= (b.installments_total ?? 0))
    return { skipUntil: b.next_charge_at };
  return {};
}

/**
 * A full refund of the purchase revokes it: the membership ends as a kick would (they may apply
 * again; `member.kicked` with kickedBy null, "payment refunded" on the audit trail), the billing
 * is REFUNDED, and a founding spot is given back.
 */
async function refund(trx: Trx, checkout: CheckoutRecord): Promise<void> {
  const b = await billingOf(trx, checkout.id);
  if (!b || b.status === 'REFUNDED') return;
  const now = nowIso();
  await trx
    .updateTable('membership_billing')
    .set({ status: 'REFUNDED', access_until: now, next_charge_at: null, updated_at: now })
    .where('id', '=', b.id)
    .execute();
  if (Number(b.founding) === 1) await giveBackFoundingSpot(trx, b.segment_id);
  const kicked = await trx
    .updateTable('memberships')
    .set({ status: 'REJECTED', kicked_at: now })
    .where('id', '=', b.membership_id)
    .where('status', '=', 'ACCEPTED')
    .where('role', '!=', 'founder')
    .returning(['id', 'user_id'])
    .executeTakeFirst();
  if (!kicked) return;
  await trx
    .insertInto('member_audit')
    .values({
      id: newId(),
      community_id: b.community_id,
      user_id: kicked.user_id,
      membership_id: kicked.id,
      action: 'KICK',
      reason: 'payment refunded',
      actor_key_id: null,
      created_at: now,
    })
    .execute();
  await emit(trx, await communityOf(trx, b.community_id), 'member.kicked', {
    memberId: kicked.id,
    userId: kicked.user_id,
    kickedAt: now,
    kickedBy: null,
  });
}

/**
 * No more charges: access runs to access_until (an installment plan stopped early ends where its
 * unpaid installment was due). Lapsed access is recorded here; the membership itself is ended by
 * `svc payments lapse` (docs/payments.md).
 */
async function ended(trx: Trx, checkout: CheckoutRecord): Promise<void> {
  const b = await billingOf(trx, checkout.id);
  if (!b || b.status !== 'ACTIVE') return;
  const shortened =
    b.billing_cycle === 'INSTALLMENT_PLAN' &&
    b.next_charge_at &&
    b.access_until &&
    b.installments_paid < b.installments_total!
      ? b.next_charge_at < b.access_until
        ? b.next_charge_at
        : b.access_until
      : b.access_until;
  await trx
    .updateTable('membership_billing')
    .set({ status: 'ENDED', access_until: shortened, next_charge_at: null, updated_at: nowIso() })
    .where('id', '=', b.id)
    .where('status', '=', 'ACTIVE')
    .execute();
}

export function membershipFulfilment(deps: { logger?: Logger } = {}): FulfilmentHandler {
  return {
    completed: (trx, checkout, payment) => complete(trx, checkout, payment, deps.logger),
    async released(trx, checkout) {
      const p = checkout.purpose as MembershipPurpose;
      if (p.price.founding) await giveBackFoundingSpot(trx, p.segmentId);
      await trx
        .updateTable('membership_requests')
        .set({ checkout_session_id: null })
        .where('id', '=', p.requestId)
        .where('checkout_session_id', '=', checkout.id)
        .execute();
    },
    refunded: (trx, checkout) => refund(trx, checkout),
    renewed: (trx, checkout, renewal) => renew(trx, checkout, renewal.transactionId, renewal.amount),
    subscriptionEnded: (trx, checkout) => ended(trx, checkout),
  };
}

// ---------------------------------------------------------------------------------------------
// The local gateway's renewals (`svc payments renew`)

export interface LocalRenewal {
  membershipId: string;
  billingId: string;
  amount: number;
  accessUntil: string | null;
  stopped: boolean;
}

/** What the next charge of a billing record costs: the price fixed at purchase. */
function nextChargeAmount(b: MembershipBillingTable): number {
  const newCycle = b.billing_cycle === 'INSTALLMENT_PLAN' && b.installments_paid >= (b.installments_total ?? 0);
  return b.unit_amount + (newCycle ? b.first_charge_extra : 0);
}

/** Bills the next period of one local purchase now, through the same hook as Stripe's invoice.paid. */
export async function renewLocally(
  db: Db,
  payments: Payments,
  b: MembershipBillingTable,
): Promise<LocalRenewal | null> {
  if (b.gateway !== 'local' || b.status !== 'ACTIVE' || b.next_charge_at === null) return null;
  const amount = nextChargeAmount(b);
  const outcome = await payments.renew(b.checkout_session_id, {
    transactionId: `in_local_${crypto.randomBytes(12).toString('hex')}`,
    gateway: 'local',
    amount,
    subscriptionId: b.processor_subscription_id,
  });
  if (outcome?.stopBilling) {
    await payments.endSubscription(b.checkout_session_id, b.processor_subscription_id);
  }
  const after = await db
    .selectFrom('membership_billing')
    .select(['access_until'])
    .where('id', '=', b.id)
    .executeTakeFirstOrThrow();
  return {
    membershipId: b.membership_id,
    billingId: b.id,
    amount,
    accessUntil: after.access_until,
    stopped: Boolean(outcome?.stopBilling),
  };
}

/** The membership's current local purchase that still bills. */
export async function localBillingOf(db: Db, membershipId: string): Promise<MembershipBillingTable | undefined> {
  return db
    .selectFrom('membership_billing')
    .selectAll()
    .where('membership_id', '=', membershipId)
    .where('gateway', '=', 'local')
    .where('status', '=', 'ACTIVE')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** Local purchases whose next charge is due by `now`. */
export async function dueLocalBillings(db: Db, now = nowIso()): Promise<MembershipBillingTable[]> {
  return db
    .selectFrom('membership_billing')
    .selectAll()
    .where('gateway', '=', 'local')
    .where('status', '=', 'ACTIVE')
    .where('next_charge_at', '<=', now)
    .orderBy('next_charge_at')
    .limit(500)
    .execute();
}

/**
 * Ends memberships whose paid access is over (billing ENDED, or a ONE_TIME/installment purchase
 * past access_until that bills no more): the membership becomes REJECTED with kicked_at, like a
 * kick, and `member.kicked` fires with kickedBy null ("access ended" on the audit trail).
 */
export async function lapseExpired(db: Db, now = nowIso()): Promise<number> {
  const due = await db
    .selectFrom('membership_billing')
    .select(['id', 'membership_id', 'community_id', 'user_id'])
    .where('access_until', '<=', now)
    .where('next_charge_at', 'is', null)
    .where('status', 'in', ['ACTIVE', 'ENDED'])
    .limit(500)
    .execute();
  let lapsed = 0;
  for (const b of due) {
    await transaction(db, async (trx) => {
      const moved = await trx
        .updateTable('membership_billing')
        .set({ status: 'LAPSED', next_charge_at: null, updated_at: now })
        .where('id', '=', b.id)
        .where('status', 'in', ['ACTIVE', 'ENDED'])
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return;
      // A newer purchase of the same membership keeps it.
      const newer = await trx
        .selectFrom('membership_billing')
        .select('id')
        .where('membership_id', '=', b.membership_id)
        .where('id', '!=', b.id)
        .where((eb) => eb.or([eb('access_until', 'is', null), eb('access_until', '>', now)]))
        .where('status', 'in', ['ACTIVE', 'ENDED'])
        .executeTakeFirst();
      if (newer) return;
      const kicked = await trx
        .updateTable('memberships')
        .set({ status: 'REJECTED', kicked_at: now })
        .where('id', '=', b.membership_id)
        .where('status', '=', 'ACCEPTED')
        .where('role', '!=', 'founder')
        .returning('id')
        .executeTakeFirst();
      if (!kicked) return;
      lapsed += 1;
      await trx
        .insertInto('member_audit')
        .values({
          id: newId(),
          community_id: b.community_id,
          user_id: b.user_id,
          membership_id: kicked.id,
          action: 'KICK',
          reason: 'access ended',
          actor_key_id: null,
          created_at: now,
        })
        .execute();
      await emit(trx, await communityOf(trx, b.community_id), 'member.kicked', {
        memberId: kicked.id,
        userId: b.user_id,
        kickedAt: now,
        kickedBy: null,
      });
    });
  }
  return lapsed;
}
