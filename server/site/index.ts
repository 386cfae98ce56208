// {site_base}/api: the community site API. Public reads here are open to any origin without
// credentials; cookie-authenticated routes (sign-in, visitor endpoints) will only answer the
// community's own origins. The widget actions (server/actions/) are mounted just before this
// router; its methodNotAllowed covers their paths too.
import express, { type Router } from 'express';
import { ROUTES } from '../../contract/routes/index.ts';
import { publicCors } from '../http/cors.ts';
import { methodNotAllowed, type RouteDeps } from '../http/routes.ts';
import { mountCommunities } from './communities.ts';
import { mountVisitor } from './visitor.ts';
import { mountAuth } from './auth.ts';
import { mountSignInPages } from './sign-in-page.ts';
import { mountNotificationsPage } from './notifications-page.ts';

export function siteApiRouter(deps: RouteDeps): Router {
  const router = express.Router();
  router.use('/api/communities', publicCors);
  mountCommunities(router, deps);
  mountVisitor(router, deps);
  mountAuth(router, deps);
  mountSignInPages(router, deps);
  mountNotificationsPage(router, deps);
  methodNotAllowed(router, ROUTES.filter((r) => r.path.startsWith('/api/')));
  return router;
}
