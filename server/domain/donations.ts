// Donations to a product or an event: standalone (a checkout of their own) or sidecar (a line
// of a ticket or product checkout). Rows are written when the payment completes, inside
// fulfil()'s transaction together with `donation.received`; a full refund of the sale marks the
// row refunded (out of the summary) and emits `donation.refunded`.
import type { DonationConfig } from '../../contract/resources.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import type { DonationTargetType } from '../db/schema-donations.ts';
import type { CheckoutRecord, CheckoutRequest } from '../payments/gateway.ts';
import type { FulfilmentHandler } from '../payments/payments.ts';
import { emit } from '../webhooks/emit.ts';
import { issueReceipt } from './receipts.ts';
import { Refusal } from './refusal.ts';
import { accountContact } from './users.ts';
import { donationTotals } from './list-counts.ts';

/** The spec's floor for a donation that is not riding on a paid sale (smallest currency unit). */
export const STANDALONE_DONATION_MINIMUM = 50;

export interface DonationTarget {
  type: DonationTargetType;
  id: string;
  name: string;
  /** The parent's pricing currency (a product's; an event's tiers'), which the donation is in. */
  currency: string;
  config: DonationConfig | null;
}

/** A product by SKU or an event by slug, with its donation settings. */
export async function donationTarget(
  db: Db | Trx,
  communityId: string,
  type: DonationTargetType,
  key: string,
): Promise<DonationTarget | null> {
  if (type === 'PRODUCT') {
    const p = await db
      .selectFrom('products')
      .select(['id', 'name', 'currency', 'donation_config'])
      .where('community_id', '=', communityId)
      .where('sku', '=', key)
      .executeTakeFirst();
    return p
      ? {
          type,
          id: p.id,
          name: p.name,
          currency: p.currency.toUpperCase(),
          config: parseJson<DonationConfig | null>(p.donation_config, null),
        }
      : null;
  }
  const e = await db
    .selectFrom('events')
    .select(['id', 'name', 'donation_config'])
    .where('community_id', '=', communityId)
    .where('slug', '=', key)
    .executeTakeFirst();
  if (!e) return null;
  const config = parseJson<DonationConfig | null>(e.donation_config, null);
  // An event has no price of its own: its tiers' currency is its pricing currency, and an event
  // without tiers prices in the currency its donation settings name.
  const tier = await db
    .selectFrom('tiers')
    .select('currency')
    .where('event_id', '=', e.id)
    .orderBy('is_active', 'desc')
    .orderBy('sort_order')
    .executeTakeFirst();
  const currency = (tier?.currency ?? config?.currency ?? 'USD').toUpperCase();
  return { type, id: e.id, name: e.name, currency, config };
}

/**
 * The spec's donate rules. `sidecar` (riding on a paid sale) lifts the 50 floor; the parent's
 * donationConfig still decides whether donations are on and which amounts are allowed.
 */
export function checkDonationAmount(target: DonationTarget, amount: number, opts: { sidecar: boolean }): void {
  const config = target.config;
  if (!config?.enabled) throw new Refusal('donations_not_enabled');
  if (config.mode === 'fixed') {
    const amounts = config.amounts ?? [];
    if (!amounts.includes(amount)) throw new Refusal('donation_not_listed', { amounts });
    return;
  }
  const minimum = Math.max(config.minAmount ?? 0, opts.sidecar ? 1 : STANDALONE_DONATION_MINIMUM);
  if (amount < minimum) throw new Refusal('donation_below_minimum', { minimum });
}

export interface DonationPurpose {
  kind: 'donation';
  targetType: DonationTargetType;
  targetId: string;
  amount: number;
  donorUserId: string | null;
  [key: string]: unknown;
}

export interface DonateInput {
  targetType: DonationTargetType;
  /** SKU or slug. */
  key: string;
  amount: number;
  /** Null when a signed-in member donates: their account's address is used. */
  email: string | null;
  donorUserId: string | null;
  successUrl: string;
  cancelUrl: string;
}

/** A standalone donation, validated and described for the payment gateway (reads only). */
export async function planDonation(
  db: Db | Trx,
  community: { id: string; name: string },
  input: DonateInput,
): Promise<CheckoutRequest> {
  const target = await donationTarget(db, community.id, input.targetType, input.key);
  if (!target) throw new Refusal(input.targetType === 'PRODUCT' ? 'product_not_found' : 'event_not_found');
  checkDonationAmount(target, input.amount, { sidecar: false });
  const donor = input.donorUserId ? await accountContact(db, input.donorUserId) : null;
  const email = donor?.email ?? input.email?.trim().toLowerCase() ?? null;
  if (!email) throw new Refusal('donor_email_required');
  const purpose: DonationPurpose = {
    kind: 'donation',
    targetType: target.type,
    targetId: target.id,
    amount: input.amount,
    donorUserId: input.donorUserId,
  };
  const label = target.config?.label?.trim();
  return {
    communityId: community.id,
    purpose,
    lineItems: [
      {
        name: label || `Donation: ${target.name}`,
        description: `To ${community.name}`,
        unitAmount: input.amount,
        quantity: 1,
      },
    ],
    currency: target.currency,
    customerEmail: email,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
  };
}

export interface RecordDonation {
  communityId: string;
  communityTag: string;
  targetType: DonationTargetType;
  targetId: string;
  checkout: CheckoutRecord;
  transactionId: string;
  amount: number;
  sidecar: boolean;
  donorUserId: string | null;
}

/** Writes the donation of a paid checkout and emits `donation.received` (in fulfil()'s transaction). */
export async function recordDonation(trx: Trx, d: RecordDonation): Promise<string> {
  const id = newId();
  const now = nowIso();
  await trx
    .insertInto('donations')
    .values({
      id,
      community_id: d.communityId,
      target_type: d.targetType,
      target_id: d.targetId,
      checkout_session_id: d.checkout.id,
      transaction_id: d.transactionId,
      amount: d.amount,
      currency: d.checkout.currency,
      sidecar: d.sidecar ? 1 : 0,
      donor_email: d.checkout.customerEmail,
      donor_user_id: d.donorUserId,
      received_at: now,
      refunded_at: null,
    })
    .execute();
  await emit(trx, { id: d.communityId, tag: d.communityTag }, 'donation.received', {
    donationId: id,
    transactionId: d.transactionId,
    amount: d.amount,
    currency: d.checkout.currency,
    target: { type: d.targetType, id: d.targetId },
    donorEmail: d.checkout.customerEmail,
    receivedAt: now,
  });
  return id;
}

/** A full refund of the checkout a donation was part of: out of the summary, `donation.refunded`. */
export async function refundDonationOf(trx: Trx, checkout: CheckoutRecord, transactionId: string): Promise<void> {
  const now = nowIso();
  const row = await trx
    .updateTable('donations')
    .set({ refunded_at: now })
    .where('checkout_session_id', '=', checkout.id)
    .where('refunded_at', 'is', null)
    .returning(['id', 'amount', 'currency', 'community_id'])
    .executeTakeFirst();
  if (!row) return;
  const community = await trx
    .selectFrom('communities')
    .select(['id', 'tag'])
    .where('id', '=', row.community_id)
    .executeTakeFirstOrThrow();
  await emit(trx, community, 'donation.refunded', {
    donationId: row.id,
    transactionId,
    amount: Number(row.amount),
    currency: row.currency,
    refundedAt: now,
  });
}

export function donationFulfilment(): FulfilmentHandler {
  return {
    async completed(trx, checkout, payment) {
      const p = checkout.purpose as DonationPurpose;
      const community = await trx
        .selectFrom('communities')
        .select(['id', 'tag'])
        .where('id', '=', checkout.communityId)
        .executeTakeFirst();
      if (!community) return;
      await recordDonation(trx, {
        communityId: community.id,
        communityTag: community.tag,
        targetType: p.targetType,
        targetId: p.targetId,
        checkout,
        transactionId: payment.transactionId,
        amount: p.amount,
        sidecar: false,
        donorUserId: p.donorUserId,
      });
      await issueReceipt(trx, {
        checkout,
        transactionId: payment.transactionId,
        donation: { amount: p.amount, standalone: true },
        userId: p.donorUserId,
      });
    },
    async refunded(trx, checkout, refund) {
      await refundDonationOf(trx, checkout, refund.transactionId);
    },
  };
}

export interface DonationSummary {
  total: number;
  count: number;
  currency: string | null;
}

/**
 * Completed, not refunded donations of one product or event: aggregates only, never donors. Read
 * from the running totals the donations triggers keep (a refund takes its donation out in the
 * refund's transaction), so a target with a million donations costs one row.
 */
export async function donationSummary(
  db: Db,
  communityId: string,
  type: DonationTargetType,
  key: string,
): Promise<DonationSummary | null> {
  const target = await donationTarget(db, communityId, type, key);
  if (!target) return null;
  const { total, count } = await donationTotals(db, communityId, type, target.id);
  // A target's donations share its pricing currency, so one currency describes the total.
  return { total, count, currency: count > 0 ? target.currency : null };
}
