// The leader console's pages, `/admin` on the community's own site (docs/leader-console.md,
// "Pages"): one module per section, each declaring its pages and forms on ConsoleRoutes. They are
// mounted by the hosted site's router before the chrome proxy, so `/admin` is the platform's
// whatever the customer's own site has at that path.
import type { FormHandler, PageRenderer } from '../pages/context.ts';
import { auditLogPages } from './audit-log.ts';
import { broadcastPages } from './broadcasts.ts';
import { integrationPages } from './integrations.ts';
import { invitePages } from './invites.ts';
import { memberPages } from './members.ts';
import { overviewPages } from './overview.ts';
import { leaderForm, leaderPage, type ConsoleDeps, type ConsoleRoutes } from './routes.ts';
import { settingsPages } from './settings.ts';

/** How the hosted site mounts a page and a form (with its viewer, origin checks and `_csrf`). */
export interface SiteMount {
  page(path: string, render: PageRenderer): void;
  form(path: string, handle: FormHandler): void;
}

export function mountConsole(site: SiteMount, deps: ConsoleDeps): void {
  const routes: ConsoleRoutes = {
    get: (path, render) => site.page(`/admin${path}`, leaderPage(render)),
    post: (path, handle) => site.form(`/admin${path}`, leaderForm(handle)),
  };
  overviewPages(routes, deps);
  memberPages(routes, deps);
  settingsPages(routes, deps);
  integrationPages(routes, deps);
  invitePages(routes, deps);
  broadcastPages(routes, deps);
  auditLogPages(routes, deps);
}
