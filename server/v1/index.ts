// The public REST API under /v1. Each resource module mounts its contract routes.
import express, { type Router } from 'express';
import { ROUTES } from '../../contract/routes/index.ts';
import { publicCors } from '../http/cors.ts';
import { methodNotAllowed, type RouteDeps } from '../http/routes.ts';
import { handlerGroup, mountHandlers } from '../http/handlers.ts';
import { eventHandlers } from './events.ts';
import { mountArticles } from './articles.ts';
import { mountMembers } from './members.ts';
import { mountProducts } from './products.ts';
import { mountKeys } from './keys.ts';
import { mountAtlas } from './atlas.ts';
import { mountRules } from './rules.ts';
import { segmentHandlers } from './segments.ts';
import { mountApplications } from './applications.ts';
import { mountTickets } from './tickets.ts';
import { mountDonations } from './donations.ts';

export function v1Router(deps: RouteDeps): Router {
  const router = express.Router();
  router.use('/v1', publicCors);
  mountKeys(router, deps);
  mountTickets(router, deps);
  mountDonations(router, deps);
  mountArticles(router, deps);
  mountProducts(router, deps);
  mountMembers(router, deps);
  mountAtlas(router, deps);
  mountApplications(router, deps);
  mountRules(router, deps);
  const routes = ROUTES.filter((r) => r.path.startsWith('/v1/'));
  mountHandlers(router, routes, [
    handlerGroup(eventHandlers, deps),
    handlerGroup(segmentHandlers, deps),
  ], deps, ROUTES);
  methodNotAllowed(router, routes);
  return router;
}
