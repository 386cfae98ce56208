// <svc-apply>'s widget actions: submit to a segment and open a paid application's checkout, from
// a customer's page (publishable key, listed Origin) or the hosted site (keyless). The handling
// and refusals are exactly /v1's (server/use-cases/applications.ts); what differs is the caller,
// judged by mountRoute (server/http/widget-actions.ts), and the checkout's return URLs, which must
// lead back to the community's own sites.
import type { Router } from 'express';
import { widgetApplyCheckout, widgetSubmitApplication } from '../../contract/routes/applications.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { applicationCheckout, submitApplication } from '../use-cases/applications.ts';
import type { SaleDeps } from '../use-cases/checkout.ts';

export function mountApplicationActions(router: Router, deps: RouteDeps, sales: SaleDeps): void {
  mountRoute(router, widgetSubmitApplication, async ({ params, body, widget, transaction }) =>
    submitApplication(transaction, widget.community.id, { segmentId: params.segmentId, ...body }), deps);

  mountRoute(router, widgetApplyCheckout, async ({ body, widget, req, transaction }) => {
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    // The plan's own return URLs (on the success URL's origin) give way to the widget's, judged above.
    return applicationCheckout(sales, transaction, widget.community.id, body.requestId,
      async () => new URL(body.successUrl).origin, { successUrl: body.successUrl, cancelUrl: body.cancelUrl });
  }, deps);
}
