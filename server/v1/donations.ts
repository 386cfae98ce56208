// Donations on /v1 (standalone, to a product or an event) and their summaries. The orchestration
// is server/use-cases/donations.ts, shared with <svc-donate>'s widget actions
// (server/actions/donations.ts).
import type { Router } from 'express';
import { donateToEvent, donateToProduct, eventDonationSummary, productDonationSummary } from '../../contract/routes/donations.ts';
import type { DonationTargetType } from '../db/schema-donations.ts';
import { saleCommunity } from '../domain/communities.ts';
import * as donations from '../domain/donations.ts';
import { Refusal } from '../domain/refusal.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { saleDeps } from '../use-cases/checkout.ts';
import { assertReadableTarget, donate, spendDonationBudget } from '../use-cases/donations.ts';
import { readerOf } from './page-visibility.ts';

export function mountDonations(router: Router, deps: RouteDeps): void {
  const { db } = deps;
  const sales = saleDeps(deps);
  const communityOf = async (communityId: string) => {
    const community = await saleCommunity(db, { id: communityId });
    if (!community) throw new Refusal('community_not_found');
    return community;
  };

  mountRoute(router, donateToProduct, async ({ params, body, key, req, res, transaction }) => {
    await spendDonationBudget(deps.rateLimits, req, res);
    const member = await memberFromAuthToken(db, deps.sessions, req, params.communityTag);
    return donate(sales, transaction, await communityOf(key.communityId), 'PRODUCT', params.sku, body, member);
  }, deps);

  mountRoute(router, donateToEvent, async ({ params, body, key, req, res, transaction }) => {
    await spendDonationBudget(deps.rateLimits, req, res);
    const member = await memberFromAuthToken(db, deps.sessions, req, params.communityTag);
    return donate(sales, transaction, await communityOf(key.communityId), 'EVENT', params.slug, body, member);
  }, deps);

  const summary = async (type: DonationTargetType, communityId: string, targetKey: string) => {
    const result = await donations.donationSummary(db, communityId, type, targetKey);
    if (!result) throw new Refusal(type === 'PRODUCT' ? 'product_not_found' : 'event_not_found');
    // Never from the shared read cache: it changes with every donation and is cheap.
    return { body: result, headers: { 'Cache-Control': 'no-store' } };
  };
  mountRoute(router, productDonationSummary, async ({ params, key }) => {
    await assertReadableTarget(deps, 'PRODUCT', key.communityId, params.sku, readerOf(key));
    return summary('PRODUCT', key.communityId, params.sku);
  }, deps);
  mountRoute(router, eventDonationSummary, async ({ params, key }) => {
    await assertReadableTarget(deps, 'EVENT', key.communityId, params.slug, readerOf(key));
    return summary('EVENT', key.communityId, params.slug);
  }, deps);
}
