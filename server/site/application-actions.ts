// <svc-apply>'s widget actions: submit to a segment and open a paid application's checkout, from
// a customer's page (publishable key, listed Origin) or the hosted site (keyless). The handling
// and refusals are exactly /v1's (doSubmit and doCheckout in server/v1/applications.ts); what
// differs is the caller, judged by mountRoute (server/http/widget-actions.ts), and the checkout's
// return URLs, which must lead back to the community's own sites.
import type { Router } from 'express';
import { widgetApplyCheckout, widgetSubmitApplication } from '../../contract/routes/applications.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { doCheckout, doSubmit } from '../v1/applications.ts';

export function mountApplicationWidgetActions(router: Router, deps: RouteDeps): void {
  mountRoute(router, widgetSubmitApplication, async ({ params, body, widget, transaction }) =>
    doSubmit(transaction, widget.community.id, { segmentId: params.segmentId, ...body }), deps);

  mountRoute(router, widgetApplyCheckout, async ({ body, widget, req, transaction }) => {
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    // The plan's own return URLs (on the success URL's origin) give way to the widget's, judged above.
    return doCheckout(deps, transaction, widget.community.id, body.requestId,
      async () => new URL(body.successUrl).origin, { successUrl: body.successUrl, cancelUrl: body.cancelUrl });
  }, deps);
}
