// The public REST API under /v1. Each resource module mounts its contract routes.
import express, { type Router } from 'express';
import { ROUTES } from '../../contract/routes/index.ts';
import { publicCors } from '../http/cors.ts';
import { methodNotAllowed, type RouteDeps } from '../http/routes.ts';
import { mountEvents } from './events.ts';
import { mountKeys } from './keys.ts';

export function v1Router(deps: RouteDeps): Router {
  const router = express.Router();
  router.use('/v1', publicCors);
  mountKeys(router, deps);
  mountEvents(router, deps);
  methodNotAllowed(router, ROUTES.filter((r) => r.path.startsWith('/v1/')));
  return router;
}
