// <svc-donate>'s widget actions (donate to a product or an event), the widget's product
// checkout, and the signed-in member's own checkout on the hosted site, with exactly /v1's rules
// and refusals (server/use-cases/donations.ts). Widgets act as the anonymous public: they reach
// only targets the public may see, and their return URLs must lead back to the community.
import type { Router } from 'express';
import { memberCheckout, widgetDonateEvent, widgetDonateProduct, widgetProductCheckout } from '../../contract/routes/donations.ts';
import { saleCommunity } from '../domain/communities.ts';
import { Refusal } from '../domain/refusal.ts';
import { ApiError } from '../http/api-error.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { communityTagForHost } from '../http/session.ts';
import { assertCommunityReturnUrls, assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { messages } from '../shared/messages.ts';
import type { SaleDeps } from '../use-cases/checkout.ts';
import { assertReadableTarget, donate, productCheckout, spendDonationBudget } from '../use-cases/donations.ts';

export function mountDonationActions(router: Router, deps: RouteDeps, sales: SaleDeps): void {
  const communityOf = async (where: { id: string } | { tag: string }) => {
    const community = await saleCommunity(deps.db, where);
    if (!community) throw new Refusal('community_not_found');
    return community;
  };

  mountRoute(router, widgetDonateProduct, async ({ params, body, widget, req, res, transaction }) => {
    await spendDonationBudget(deps.rateLimits, req, res);
    await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    const community = await communityOf({ id: widget.community.id });
    return donate(sales, transaction, community, 'PRODUCT', params.sku, body, widget.visitor?.userId ?? null);
  }, deps);

  mountRoute(router, widgetDonateEvent, async ({ params, body, widget, req, res, transaction }) => {
    await spendDonationBudget(deps.rateLimits, req, res);
    await assertReadableTarget(deps, 'EVENT', widget.community.id, params.slug, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    const community = await communityOf({ id: widget.community.id });
    return donate(sales, transaction, community, 'EVENT', params.slug, body, widget.visitor?.userId ?? null);
  }, deps);

  mountRoute(router, widgetProductCheckout, async ({ params, body, widget, req, transaction }) => {
    await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    const community = await communityOf({ id: widget.community.id });
    return productCheckout(sales, transaction, community, params.sku, body, widget.visitor?.userId ?? null);
  }, deps);

  mountRoute(router, memberCheckout, async ({ body, visitor, req, transaction }) => {
    const tag = body.communityTag ?? (await communityTagForHost(deps.db, req.hostname));
    if (!tag) throw new ApiError('INVALID_INPUT', messages.communityTagRequired, { field: 'communityTag' });
    const community = await communityOf({ tag });
    await assertCommunityReturnUrls(deps, tag, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return productCheckout(sales, transaction, community, body.sku, body, visitor.userId);
  }, deps);
}
