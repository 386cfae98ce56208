// <svc-apply>'s widget actions: submit to a segment and open a paid application's checkout, from
// a customer's page (publishable key, listed Origin) or the hosted site (keyless). The handling
// and refusals are exactly /v1's (server/use-cases/applications.ts); what differs is the caller,
// judged by mountRoute (server/http/widget-actions.ts), and the checkout's return URLs, which must
// lead back to the community's own sites.
import * as routes from '../../contract/routes/applications.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import { assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { applicationCheckout, submitApplication } from '../use-cases/applications.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';

async function widgetSubmitApplication({
  params,
  body,
  widget,
  transaction,
}: HandlerContext<typeof routes.widgetSubmitApplication>) {
  return submitApplication(transaction, widget.community.id, { segmentId: params.segmentId, ...body });
}

async function widgetApplyCheckout(
  { body, widget, req, transaction }: HandlerContext<typeof routes.widgetApplyCheckout>,
  deps: SaleRouteDeps,
) {
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  // The plan's own return URLs (on the success URL's origin) give way to the widget's, judged above.
  return applicationCheckout(
    deps.sales,
    transaction,
    widget.community.id,
    body.requestId,
    async () => new URL(body.successUrl).origin,
    { successUrl: body.successUrl, cancelUrl: body.cancelUrl },
  );
}

export const applicationActionHandlers = {
  widgetSubmitApplication,
  widgetApplyCheckout,
} satisfies Handlers<(typeof routes.APPLICATION_WIDGET_ROUTES)[number], SaleRouteDeps>;
