// The writes widgets make on `{site_base}/api/actions/{communityTag}/...` (RSVP, donate, buy,
// apply), and the signed-in member's own checkout. Who may call is judged by mountRoute
// (server/http/widget-actions.ts: authentication and CORS); what happens is server/use-cases/,
// the same functions /v1 calls. Mounted by server/app.ts ahead of the site API, whose
// methodNotAllowed answers these paths' other methods.
import express, { type Router } from 'express';
import { ROUTES, WIDGET_ACTION_ROUTES } from '../../contract/routes/index.ts';
import { handlerGroup, mountHandlers } from '../http/handlers.ts';
import type { RouteDeps } from '../http/routes.ts';
import { saleRouteDeps } from '../use-cases/checkout.ts';
import { applicationActionHandlers } from './applications.ts';
import { donationActionHandlers } from './donations.ts';
import { ticketActionHandlers } from './tickets.ts';

export function widgetActionsRouter(deps: RouteDeps): Router {
  const router = express.Router();
  const sales = saleRouteDeps(deps);
  mountHandlers(
    router,
    WIDGET_ACTION_ROUTES,
    [
      handlerGroup(ticketActionHandlers, sales),
      handlerGroup(donationActionHandlers, sales),
      handlerGroup(applicationActionHandlers, sales),
    ],
    deps,
    ROUTES,
  );
  return router;
}
