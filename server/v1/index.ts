// The public REST API under /v1. Each resource module exports a handler map keyed by operationId,
// mounted here in route-table order (createApp's boot check holds them to the table).
import express, { type Router } from 'express';
import { ROUTES } from '../../contract/routes/index.ts';
import { publicCors } from '../http/cors.ts';
import { methodNotAllowed, type RouteDeps } from '../http/routes.ts';
import { handlerGroup, mountHandlers } from '../http/handlers.ts';
import { eventHandlers } from './events.ts';
import { articleHandlers } from './articles.ts';
import { memberHandlers } from './members.ts';
import { productHandlers } from './products.ts';
import { keyHandlers } from './keys.ts';
import { atlasHandlers } from './atlas.ts';
import { rulesHandlers } from './rules.ts';
import { segmentHandlers } from './segments.ts';
import { applicationHandlers } from './applications.ts';
import { broadcastHandlers } from './broadcasts.ts';
import { ticketHandlers } from './tickets.ts';
import { donationHandlers } from './donations.ts';
import { saleRouteDeps } from '../use-cases/checkout.ts';

export function v1Router(deps: RouteDeps): Router {
  const router = express.Router();
  router.use('/v1', publicCors);
  const sales = saleRouteDeps(deps);
  const routes = ROUTES.filter((r) => r.path.startsWith('/v1/'));
  mountHandlers(
    router,
    routes,
    [
      handlerGroup(keyHandlers, deps),
      handlerGroup(eventHandlers, deps),
      handlerGroup(ticketHandlers, sales),
      handlerGroup(donationHandlers, sales),
      handlerGroup(articleHandlers, deps),
      handlerGroup(productHandlers, deps),
      handlerGroup(memberHandlers, deps),
      handlerGroup(atlasHandlers, deps),
      handlerGroup(segmentHandlers, deps),
      handlerGroup(applicationHandlers, sales),
      handlerGroup(broadcastHandlers, deps),
      handlerGroup(rulesHandlers, deps),
    ],
    deps,
    ROUTES,
  );
  methodNotAllowed(router, routes);
  return router;
}
