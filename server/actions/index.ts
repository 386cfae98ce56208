// The writes widgets make on `{site_base}/api/actions/{communityTag}/...` (RSVP, donate, buy,
// apply), and the signed-in member's own checkout. Who may call is judged by mountRoute
// (server/http/widget-actions.ts: authentication and CORS); what happens is server/use-cases/,
// the same functions /v1 calls. Mounted by server/app.ts ahead of the site API, whose
// methodNotAllowed answers these paths' other methods.
import express, { type Router } from 'express';
import type { RouteDeps } from '../http/routes.ts';
import { saleDeps } from '../use-cases/checkout.ts';
import { mountApplicationActions } from './applications.ts';
import { mountDonationActions } from './donations.ts';
import { mountTicketActions } from './tickets.ts';

export function widgetActionsRouter(deps: RouteDeps): Router {
  const router = express.Router();
  const sales = saleDeps(deps);
  mountTicketActions(router, deps, sales);
  mountDonationActions(router, deps, sales);
  mountApplicationActions(router, deps, sales);
  return router;
}
