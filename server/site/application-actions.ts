// <svc-apply>'s widget actions: submit to a segment and open a paid application's checkout, from
// a customer's page (publishable key, listed Origin) or the hosted site (keyless). The domain
// functions and their refusals are exactly /v1's (server/v1/applications.ts); what differs is the
// caller, judged by mountRoute (server/http/widget-actions.ts), and the checkout's return URLs,
// which must lead back to the community's own sites.
import type { Router } from 'express';
import { widgetApplyCheckout, widgetSubmitApplication } from '../../contract/routes/applications.ts';
import * as applications from '../domain/applications.ts';
import * as membershipPayments from '../domain/membership-payments.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { asApiError, checkoutApiError } from '../v1/applications.ts';

export function mountApplicationWidgetActions(router: Router, deps: RouteDeps): void {
  mountRoute(router, widgetSubmitApplication, async ({ params, body, widget, transaction }) => {
    try {
      return await transaction(async (trx) => {
        const r = await applications.submitApplication(trx, widget.community.id, { segmentId: params.segmentId, ...body });
        const base = { success: true as const, requestId: r.requestId };
        return {
          status: 201,
          body: r.status === 'PAYMENT_PENDING'
            ? { ...base, paymentRequired: true as const, segmentId: r.segmentId, segmentName: r.segmentName }
            : { ...base, requestStatus: r.status, segmentName: r.segmentName, segmentId: r.segmentId },
        };
      });
    } catch (err) {
      asApiError(err);
    }
  }, deps);

  mountRoute(router, widgetApplyCheckout, async ({ body, widget, req, transaction }) => {
    const payments = deps.payments;
    if (!payments) throw new Error('payments missing from RouteDeps');
    await assertWidgetReturnUrls(deps.db, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    const communityId = widget.community.id;
    try {
      let foundingAllowed = true;
      // As on /v1: a lost race (another checkout of this request, or the last founding spot) plans
      // again, answering the winner's open checkout or charging the regular price.
      for (let attempt = 0; ; attempt += 1) {
        // The plan's own return URLs (on `returnOrigin`) give way to the widget's, already judged above.
        const plan = await membershipPayments.planApplyCheckout(deps.db, communityId, {
          requestId: body.requestId, returnOrigin: new URL(body.successUrl).origin, foundingAllowed,
        });
        if (plan.kind === 'open') return { body: { checkoutUrl: plan.checkoutUrl, sessionId: plan.sessionId } };
        const planned = { ...plan, request: { ...plan.request, successUrl: body.successUrl, cancelUrl: body.cancelUrl } };
        try {
          return await payments.openCheckout(planned.request, (prepared) => transaction(async (trx) => {
            await payments.persist(trx, prepared);
            await membershipPayments.holdForCheckout(trx, planned, prepared.checkout.id);
            return { body: { checkoutUrl: prepared.opened.checkoutUrl, sessionId: prepared.opened.sessionId } };
          }));
        } catch (err) {
          if (!(err instanceof membershipPayments.CheckoutRaceLost) || attempt >= 3) throw err;
          if (err.what === 'founding') foundingAllowed = false;
        }
      }
    } catch (err) {
      checkoutApiError(err);
    }
  }, deps);
}
