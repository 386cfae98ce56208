// Donations (standalone, to a product or an event) and product checkout, for /v1
// (server/v1/donations.ts) and the widget actions (server/actions/donations.ts).
import type { Request, Response } from 'express';
import type { SaleCommunity } from '../domain/communities.ts';
import type { DonationTargetType } from '../db/schema-donations.ts';
import * as donations from '../domain/donations.ts';
import * as events from '../domain/events.ts';
import { planProductCheckout } from '../domain/product-orders.ts';
import { readablePage, type PageReader } from '../domain/public-pages.ts';
import { Refusal } from '../domain/refusal.ts';
import type { RateLimits } from '../http/rate-limit.ts';
import type { RunTransaction } from '../http/routes.ts';
import { commitCheckout, type SaleDeps } from './checkout.ts';

/** The spec's budget of standalone donations per client IP per hour (RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR). */
export const DONATIONS_PER_IP_PER_HOUR = 30;

export type DonateBody = {
  donation: { amount: number };
  customer?: { email: string };
  successUrl: string;
  cancelUrl: string;
};
export type ProductCheckoutBody = {
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  email?: string;
  donation?: { amount: number };
};

/** Standalone donations only, per client IP: a sidecar donation is part of a sale and spends none. */
export function spendDonationBudget(rateLimits: RateLimits, req: Request, res: Response): Promise<void> {
  return rateLimits.consume('donations-ip', req.ip ?? 'unknown', res);
}

/**
 * What `reader` may see of a donation target, for the summaries and the writes widgets make
 * (widgets act as the anonymous public): an event as the events list shows it, whoever reads (its
 * own visibility decides); a product only on a marketplace page that does not hide it from the
 * reader (secret keys are not gated by page visibility). A server's secret key donates to
 * anything of its community.
 */
export async function assertReadableTarget(
  deps: Pick<SaleDeps, 'db'>,
  type: DonationTargetType,
  communityId: string,
  key: string,
  reader: PageReader,
): Promise<void> {
  if (type === 'EVENT') {
    const audience = await events.publicAudience(deps.db, communityId);
    if (!audience || !(await events.getEvent(deps.db, audience, key))) throw new Refusal('event_not_found');
    return;
  }
  await readablePage(deps.db, communityId, 'MARKETPLACE', reader, 'marketplace');
}

export async function donate(
  deps: SaleDeps,
  transaction: RunTransaction,
  community: SaleCommunity,
  type: DonationTargetType,
  key: string,
  body: DonateBody,
  donorUserId: string | null,
) {
  const request = await donations.planDonation(deps.db, community, {
    targetType: type,
    key,
    amount: body.donation.amount,
    email: donorUserId ? null : (body.customer?.email ?? null),
    donorUserId,
    successUrl: body.successUrl,
    cancelUrl: body.cancelUrl,
  });
  return commitCheckout(deps.payments, transaction, request);
}

export async function productCheckout(
  deps: SaleDeps,
  transaction: RunTransaction,
  community: SaleCommunity,
  sku: string,
  body: ProductCheckoutBody,
  buyerUserId: string | null,
) {
  const request = await planProductCheckout(deps.db, community, {
    sku,
    quantity: body.quantity,
    successUrl: body.successUrl,
    cancelUrl: body.cancelUrl,
    email: body.email ?? null,
    buyerUserId,
    donation: body.donation,
  });
  return commitCheckout(deps.payments, transaction, request);
}
