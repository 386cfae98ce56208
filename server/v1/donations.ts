// Donations on /v1 (standalone, to a product or an event) and their summaries. The orchestration
// is server/use-cases/donations.ts, shared with <svc-donate>'s widget actions
// (server/actions/donations.ts).
import * as routes from '../../contract/routes/donations.ts';
import type { Db } from '../db/index.ts';
import type { DonationTargetType } from '../db/schema-donations.ts';
import { saleCommunity } from '../domain/communities.ts';
import * as donations from '../domain/donations.ts';
import { Refusal } from '../domain/refusal.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';
import { assertReadableTarget, donate, spendDonationBudget } from '../use-cases/donations.ts';
import { readerOf } from './page-visibility.ts';

async function donateToProduct(
  { params, body, key, req, res, transaction }: HandlerContext<typeof routes.donateToProduct>,
  deps: SaleRouteDeps,
) {
  await spendDonationBudget(deps.rateLimits, req, res);
  const member = await memberFromAuthToken(deps.db, deps.sessions, req, params.communityTag);
  return donate(
    deps.sales,
    transaction,
    await saleCommunity(deps.db, { id: key.communityId }),
    'PRODUCT',
    params.sku,
    body,
    member,
  );
}

async function donateToEvent(
  { params, body, key, req, res, transaction }: HandlerContext<typeof routes.donateToEvent>,
  deps: SaleRouteDeps,
) {
  await spendDonationBudget(deps.rateLimits, req, res);
  const member = await memberFromAuthToken(deps.db, deps.sessions, req, params.communityTag);
  return donate(
    deps.sales,
    transaction,
    await saleCommunity(deps.db, { id: key.communityId }),
    'EVENT',
    params.slug,
    body,
    member,
  );
}

async function summary(db: Db, type: DonationTargetType, communityId: string, targetKey: string) {
  const result = await donations.donationSummary(db, communityId, type, targetKey);
  if (!result) throw new Refusal(type === 'PRODUCT' ? 'product_not_found' : 'event_not_found');
  // Never from the shared read cache: it changes with every donation and is cheap.
  return { body: result, headers: { 'Cache-Control': 'no-store' } };
}

async function productDonationSummary(
  { params, key }: HandlerContext<typeof routes.productDonationSummary>,
  deps: SaleRouteDeps,
) {
  await assertReadableTarget(deps, 'PRODUCT', key.communityId, params.sku, readerOf(key));
  return summary(deps.db, 'PRODUCT', key.communityId, params.sku);
}

async function eventDonationSummary(
  { params, key }: HandlerContext<typeof routes.eventDonationSummary>,
  deps: SaleRouteDeps,
) {
  await assertReadableTarget(deps, 'EVENT', key.communityId, params.slug, readerOf(key));
  return summary(deps.db, 'EVENT', key.communityId, params.slug);
}

export const donationHandlers = {
  donateToProduct,
  productDonationSummary,
  donateToEvent,
  eventDonationSummary,
} satisfies Handlers<(typeof routes.DONATION_ROUTES)[number], SaleRouteDeps>;
