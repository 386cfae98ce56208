// {site_base}/api: the community site API. Public reads here are open to any origin without
// credentials; cookie-authenticated routes (sign-in, visitor endpoints) will only answer the
// community's own origins. The widget actions (server/actions/) are mounted just before this
// router by server/app.ts; its methodNotAllowed covers their paths too.
import express, { type Router } from 'express';
import { ROUTES, WIDGET_ACTION_ROUTES } from '../../contract/routes/index.ts';
import { publicCors } from '../http/cors.ts';
import { methodNotAllowed } from '../http/routes.ts';
import { handlerGroup, mountHandlers } from '../http/handlers.ts';
import { adminHandlerGroups } from '../admin/index.ts';
import { communityHandlers } from './communities.ts';
import { visitorDeps, visitorHandlers } from './visitor.ts';
import { authDeps, authHandlers } from './auth.ts';
import { oauthHandlers, setUpOAuth, type OAuthRouteDeps } from './oauth.ts';
import { mountSignInPages, type ChromeFor } from './sign-in-page.ts';
import { mountNotificationsPage } from './notifications-page.ts';

/** `chromeFor`: the hosted site's header and footer for `/sign-in` and `/notifications` on a community's host. */
export function siteApiRouter(deps: OAuthRouteDeps, chromeFor?: ChromeFor): Router {
  const router = express.Router();
  router.use('/api/communities', publicCors);
  mountSignInPages(router, deps, chromeFor);
  mountNotificationsPage(router, deps, chromeFor);
  const routes = ROUTES.filter((r) => r.path.startsWith('/api/'));
  // The widget actions' handlers are mounted by their own router; here one would be on the wrong one.
  const served = routes.filter((r) => !WIDGET_ACTION_ROUTES.includes(r));
  mountHandlers(
    router,
    served,
    [
      handlerGroup(communityHandlers, deps),
      handlerGroup(visitorHandlers, visitorDeps(deps)),
      handlerGroup(authHandlers, authDeps(deps)),
      handlerGroup(oauthHandlers, setUpOAuth(deps)),
      ...adminHandlerGroups(deps),
    ],
    deps,
    ROUTES,
  );
  methodNotAllowed(router, routes);
  return router;
}
