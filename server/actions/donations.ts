// <svc-donate>'s widget actions (donate to a product or an event), the widget's product
// checkout, and the signed-in member's own checkout on the hosted site, with exactly /v1's rules
// and refusals (server/use-cases/donations.ts). Widgets act as the anonymous public: they reach
// only targets the public may see, and their return URLs must lead back to the community.
import * as routes from '../../contract/routes/donations.ts';
import { saleCommunity } from '../domain/communities.ts';
import { ApiError } from '../http/api-error.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import { requestSiteTag } from '../http/session.ts';
import { assertCommunityReturnUrls, assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { messages } from '../shared/messages.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';
import { assertReadableTarget, donate, productCheckout, spendDonationBudget } from '../use-cases/donations.ts';
import { assertPublicEvent } from '../use-cases/tickets.ts';

async function widgetDonateProduct(
  { params, body, widget, req, res, transaction }: HandlerContext<typeof routes.widgetDonateProduct>,
  deps: SaleRouteDeps,
) {
  await spendDonationBudget(deps.rateLimits, req, res);
  await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  const community = await saleCommunity(deps.db, { id: widget.community.id });
  return donate(deps.sales, transaction, community, 'PRODUCT', params.sku, body, widget.visitor?.userId ?? null);
}

async function widgetDonateEvent(
  { params, body, widget, req, res, transaction }: HandlerContext<typeof routes.widgetDonateEvent>,
  deps: SaleRouteDeps,
) {
  await spendDonationBudget(deps.rateLimits, req, res);
  // The same public-event check as <svc-rsvp>'s, on the community row the donation then uses.
  const community = await assertPublicEvent(
    deps,
    await saleCommunity(deps.db, { id: widget.community.id }),
    params.slug,
  );
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  return donate(deps.sales, transaction, community, 'EVENT', params.slug, body, widget.visitor?.userId ?? null);
}

async function widgetProductCheckout(
  { params, body, widget, req, transaction }: HandlerContext<typeof routes.widgetProductCheckout>,
  deps: SaleRouteDeps,
) {
  await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  const community = await saleCommunity(deps.db, { id: widget.community.id });
  return productCheckout(deps.sales, transaction, community, params.sku, body, widget.visitor?.userId ?? null);
}

async function memberCheckout(
  { body, visitor, req, transaction }: HandlerContext<typeof routes.memberCheckout>,
  deps: SaleRouteDeps,
) {
  const tag = body.communityTag ?? (await requestSiteTag());
  if (!tag) throw new ApiError('INVALID_INPUT', messages.communityTagRequired, { field: 'communityTag' });
  const community = await saleCommunity(deps.db, { tag });
  await assertCommunityReturnUrls(deps, tag, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  return productCheckout(deps.sales, transaction, community, body.sku, body, visitor.userId);
}

export const donationActionHandlers = {
  widgetDonateProduct,
  widgetDonateEvent,
  widgetProductCheckout,
  memberCheckout,
} satisfies Handlers<(typeof routes.DONATION_WIDGET_ROUTES)[number], SaleRouteDeps>;
