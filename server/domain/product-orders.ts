// Buying a marketplace product: a checkout of `quantity` units (products have no stock in v1),
// with an optional sidecar donation to the product as its own line and its own donation row.
// Completion writes the order and emits `product.purchased`, in fulfil()'s transaction.
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { CheckoutRequest } from '../payments/gateway.ts';
import type { FulfilmentHandler } from '../payments/payments.ts';
import { emit } from '../webhooks/emit.ts';
import { checkDonationAmount, donationTarget, recordDonation, refundDonationOf } from './donations.ts';
import { issueReceipt } from './receipts.ts';
import { Refusal } from './refusal.ts';
import { accountContact } from './users.ts';

export interface ProductPurpose {
  kind: 'product';
  productId: string;
  sku: string;
  quantity: number;
  unitAmount: number;
  donationAmount: number;
  buyerUserId: string | null;
  [key: string]: unknown;
}

export interface ProductCheckoutInput {
  sku: string;
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  email?: string | null;
  /** A signed-in member: their account's address is the buyer's. */
  buyerUserId?: string | null;
  donation?: { amount: number };
}

/** A product purchase, validated and described for the payment gateway (reads only). */
export async function planProductCheckout(
  trx: Db | Trx,
  community: { id: string; name: string },
  input: ProductCheckoutInput,
): Promise<CheckoutRequest> {
  const product = await trx
    .selectFrom('products')
    .select(['id', 'sku', 'name', 'price_cents', 'currency', 'is_active'])
    .where('community_id', '=', community.id)
    .where('sku', '=', input.sku)
    .executeTakeFirst();
  if (!product) throw new Refusal('product_not_found');
  if (Number(product.is_active) !== 1) throw new Refusal('product_inactive');
  // A free product has nothing to pay: there is no checkout for it in v1.
  if (Number(product.price_cents) === 0) throw new Refusal('product_free');
  const donationAmount = input.donation?.amount ?? 0;
  if (donationAmount > 0) {
    const target = await donationTarget(trx, community.id, 'PRODUCT', input.sku);
    if (!target) throw new Refusal('product_not_found');
    checkDonationAmount(target, donationAmount, { sidecar: true });
  }
  const buyer = input.buyerUserId ? await accountContact(trx, input.buyerUserId) : null;
  const email = buyer?.email ?? (input.email?.trim().toLowerCase() || null);
  const purpose: ProductPurpose = {
    kind: 'product',
    productId: product.id,
    sku: product.sku,
    quantity: input.quantity,
    unitAmount: Number(product.price_cents),
    donationAmount,
    buyerUserId: input.buyerUserId ?? null,
  };
  return {
    communityId: community.id,
    purpose,
    lineItems: [
      { name: product.name, unitAmount: Number(product.price_cents), quantity: input.quantity },
      ...(donationAmount > 0 ? [{ name: `Donation: ${product.name}`, unitAmount: donationAmount, quantity: 1 }] : []),
    ],
    currency: product.currency,
    customerEmail: email,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
  };
}

export function productFulfilment(): FulfilmentHandler {
  return {
    async completed(trx, checkout, payment) {
      const p = checkout.purpose as ProductPurpose;
      const community = await trx
        .selectFrom('communities')
        .select(['id', 'tag'])
        .where('id', '=', checkout.communityId)
        .executeTakeFirst();
      if (!community) return;
      const now = nowIso();
      const amount = p.unitAmount * p.quantity;
      await trx
        .insertInto('product_orders')
        .values({
          id: newId(),
          community_id: community.id,
          product_id: p.productId,
          checkout_session_id: checkout.id,
          transaction_id: payment.transactionId,
          quantity: p.quantity,
          amount,
          currency: checkout.currency,
          customer_email: checkout.customerEmail,
          buyer_user_id: p.buyerUserId,
          purchased_at: now,
          refunded_at: null,
        })
        .execute();
      await emit(trx, community, 'product.purchased', {
        productId: p.productId,
        transactionId: payment.transactionId,
        quantity: p.quantity,
        amount,
        currency: checkout.currency,
        customerEmail: checkout.customerEmail,
        purchasedAt: now,
      });
      if (p.donationAmount > 0) {
        await recordDonation(trx, {
          communityId: community.id,
          communityTag: community.tag,
          targetType: 'PRODUCT',
          targetId: p.productId,
          checkout,
          transactionId: payment.transactionId,
          amount: p.donationAmount,
          sidecar: true,
          donorUserId: p.buyerUserId,
        });
      }
      await issueReceipt(trx, {
        checkout,
        transactionId: payment.transactionId,
        userId: p.buyerUserId,
        donation: p.donationAmount > 0 ? { amount: p.donationAmount, standalone: false } : null,
      });
    },
    async refunded(trx, checkout, refund) {
      await trx
        .updateTable('product_orders')
        .set({ refunded_at: nowIso() })
        .where('checkout_session_id', '=', checkout.id)
        .where('refunded_at', 'is', null)
        .execute();
      await refundDonationOf(trx, checkout, refund.transactionId);
    },
  };
}
