// Donations (standalone, to a product or an event), their summaries, and product checkout: /v1
// routes, widget actions for <svc-donate>, and the signed-in member's own checkout. All call
// server/domain/donations.ts and product-orders.ts.
import type { Request, Response, Router } from 'express';
import {
  donateToEvent, donateToProduct, eventDonationSummary, memberCheckout, productDonationSummary,
  widgetDonateEvent, widgetDonateProduct, widgetProductCheckout,
} from '../../contract/routes/donations.ts';
import type { Db, Trx } from '../db/index.ts';
import type { DonationTargetType } from '../db/schema-donations.ts';
import * as donations from '../domain/donations.ts';
import * as events from '../domain/events.ts';
import type { PageReader } from '../domain/public-pages.ts';
import { ProductOrderError, planProductCheckout } from '../domain/product-orders.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type HandlerResult, type RouteDeps } from '../http/routes.ts';
import { assertCommunityReturnUrls, assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { communityTagForHost } from '../http/session.ts';
import { PaymentProcessorError, PaymentsUnavailableError, type CheckoutRequest, type Payments } from '../payments/index.ts';
import { donationApiError } from './donation-errors.ts';
import { readablePage, readerOf } from './page-visibility.ts';

/** The spec's budget of standalone donations per client IP per hour (RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR). */
export const DONATIONS_PER_IP_PER_HOUR = 30;

type DonateBody = { donation: { amount: number }; customer?: { email: string }; successUrl: string; cancelUrl: string };
type ProductCheckoutBody = { quantity: number; successUrl: string; cancelUrl: string; email?: string; donation?: { amount: number } };

/** Standalone donations only, per client IP: a sidecar donation is part of a sale and spends none. */
function spendDonationBudget(deps: RouteDeps, req: Request, res: Response): Promise<void> {
  return deps.rateLimits.consume('donations-ip', req.ip ?? 'unknown', res);
}

function need(payments: Payments | undefined): Payments {
  if (!payments) throw new Error('payments missing from RouteDeps');
  return payments;
}

type RunTransaction = <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => Promise<R>;

/** The processor first (outside any transaction), then the checkout row in the request's transaction. */
function commitCheckout(deps: RouteDeps, transaction: RunTransaction, request: CheckoutRequest) {
  const payments = need(deps.payments);
  return payments.openCheckout(request, (prepared) => transaction(async (trx) => {
    await payments.persist(trx, prepared);
    return { body: { checkoutUrl: prepared.opened.checkoutUrl, sessionId: prepared.opened.sessionId } };
  }));
}

async function openDonation(
  deps: RouteDeps, transaction: RunTransaction, type: DonationTargetType, communityId: string, key: string, body: DonateBody, donorUserId: string | null,
) {
  try {
    const community = await communityById(deps.db, communityId);
    const request = await donations.planDonation(deps.db, community, {
      targetType: type, key, amount: body.donation.amount,
      email: donorUserId ? null : body.customer?.email ?? null, donorUserId,
      successUrl: body.successUrl, cancelUrl: body.cancelUrl,
    });
    return await commitCheckout(deps, transaction, request);
  } catch (err) {
    return paymentApiError(err, notFoundFor(type));
  }
}

async function communityById(trx: Db | Trx, id: string): Promise<{ id: string; tag: string; name: string }> {
  const row = await trx.selectFrom('communities').select(['id', 'tag', 'name']).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(messages.communityNotFound);
  return row;
}

function paymentApiError(err: unknown, notFoundMessage: string): never {
  if (err instanceof donations.DonationError) donationApiError(err, notFoundMessage);
  if (err instanceof ProductOrderError) {
    switch (err.reason) {
      case 'product_not_found': throw notFound(messages.productNotFound);
      case 'product_inactive': throw new ApiError('INVALID_INPUT', messages.productInactive, { field: 'sku' });
      case 'product_free': throw new ApiError('INVALID_INPUT', messages.productFree, { field: 'sku' });
      case 'email_required': throw new ApiError('INVALID_INPUT', messages.buyerEmailRequired, { field: 'email' });
    }
  }
  if (err instanceof PaymentsUnavailableError) throw new ApiError('SERVICE_UNAVAILABLE', messages.paymentsUnavailable);
  if (err instanceof PaymentProcessorError) throw new ApiError('PAYMENT_PROCESSOR_ERROR', messages.paymentProcessorError);
  throw err;
}

const notFoundFor = (type: DonationTargetType) => (type === 'PRODUCT' ? messages.productNotFound : messages.eventNotFound);

/**
 * What `reader` may see of a donation target, for the summaries and the writes widgets make
 * (widgets act as the anonymous public): an event as the events list shows it, whoever reads (its
 * own visibility decides); a product only on a marketplace page that does not hide it from the
 * reader (secret keys are not gated by page visibility). A server's secret key donates to
 * anything of its community.
 */
async function assertReadableTarget(deps: RouteDeps, type: DonationTargetType, communityId: string, key: string, reader: PageReader): Promise<void> {
  if (type === 'EVENT') {
    const audience = await events.publicAudience(deps.db, communityId);
    if (!audience || !(await events.getEvent(deps.db, audience, key))) throw notFound(messages.eventNotFound);
    return;
  }
  await readablePage(deps.db, communityId, 'MARKETPLACE', reader, 'marketplace');
}

export function mountDonations(router: Router, deps: RouteDeps): void {
  const { db } = deps;


  const donate = (type: DonationTargetType, communityId: string, key: string, body: DonateBody, donorUserId: string | null, transaction: RunTransaction) =>
    openDonation(deps, transaction, type, communityId, key, body, donorUserId);

  mountRoute(router, donateToProduct, async ({ params, body, key, req, res, transaction }) => {
    await spendDonationBudget(deps, req, res);
    const member = await memberFromAuthToken(db, deps.sessions, req, params.communityTag);
    return donate('PRODUCT', key!.communityId, params.sku, body, member, transaction);
  }, deps);

  mountRoute(router, donateToEvent, async ({ params, body, key, req, res, transaction }) => {
    await spendDonationBudget(deps, req, res);
    const member = await memberFromAuthToken(db, deps.sessions, req, params.communityTag);
    return donate('EVENT', key!.communityId, params.slug, body, member, transaction);
  }, deps);

  const summary = (type: DonationTargetType) => async (communityId: string, targetKey: string) => {
    const result = await donations.donationSummary(db, communityId, type, targetKey);
    if (!result) throw notFound(notFoundFor(type));
    // Never from the shared read cache: it changes with every donation and is cheap.
    return { body: result, headers: { 'Cache-Control': 'no-store' } };
  };
  mountRoute(router, productDonationSummary, async ({ params, key }) => {
    await assertReadableTarget(deps, 'PRODUCT', key!.communityId, params.sku, readerOf(key!));
    return summary('PRODUCT')(key!.communityId, params.sku);
  }, deps);
  mountRoute(router, eventDonationSummary, async ({ params, key }) => {
    await assertReadableTarget(deps, 'EVENT', key!.communityId, params.slug, readerOf(key!));
    return summary('EVENT')(key!.communityId, params.slug);
  }, deps);
}

export function mountDonationWidgetActions(router: Router, deps: RouteDeps): void {

  mountRoute(router, widgetDonateProduct, async ({ params, body, widget, req, res, transaction }) => {
    await spendDonationBudget(deps, req, res);
    await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return openDonation(deps, transaction, 'PRODUCT', widget.community.id, params.sku, body, widget.visitor?.userId ?? null);
  }, deps);
  mountRoute(router, widgetDonateEvent, async ({ params, body, widget, req, res, transaction }) => {
    await spendDonationBudget(deps, req, res);
    await assertReadableTarget(deps, 'EVENT', widget.community.id, params.slug, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return openDonation(deps, transaction, 'EVENT', widget.community.id, params.slug, body, widget.visitor?.userId ?? null);
  }, deps);


  const productCheckout = async (transaction: RunTransaction, communityId: string, sku: string, body: ProductCheckoutBody, buyerUserId: string | null) => {
    try {
      const community = await communityById(deps.db, communityId);
      const request = await planProductCheckout(deps.db, community, {
        sku, quantity: body.quantity, successUrl: body.successUrl, cancelUrl: body.cancelUrl,
        email: body.email ?? null, buyerUserId, donation: body.donation,
      });
      return await commitCheckout(deps, transaction, request);
    } catch (err) {
      return paymentApiError(err, messages.productNotFound);
    }
  };

  mountRoute(router, widgetProductCheckout, async ({ params, body, widget, req, transaction }) => {
    await assertReadableTarget(deps, 'PRODUCT', widget.community.id, params.sku, 'public');
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return productCheckout(transaction, widget.community.id, params.sku, body, widget.visitor?.userId ?? null);
  }, deps);

  mountRoute(router, memberCheckout, async ({ body, visitor, req, transaction }) => {
    const tag = body.communityTag ?? (await communityTagForHost(deps.db, req.hostname));
    if (!tag) throw new ApiError('INVALID_INPUT', messages.communityTagRequired, { field: 'communityTag' });
    const community = await deps.db.selectFrom('communities').select('id').where('tag', '=', tag).executeTakeFirst();
    if (!community) throw notFound(messages.communityNotFound);
    await assertCommunityReturnUrls(deps, tag, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return productCheckout(transaction, community.id, body.sku, body, visitor!.userId);
  }, deps);
}
