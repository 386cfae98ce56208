// The leader console's API handlers (`{site_base}/api/admin/{communityTag}/...`), one module per
// resource; mounted by the site API's router (server/site/index.ts) with the rest of `/api`.
import { handlerGroup, type HandlerGroup } from '../http/handlers.ts';
import type { RouteDeps } from '../http/routes.ts';
import { auditLogHandlers } from './audit-log.ts';
import { integrationHandlers } from './integrations.ts';
import { memberHandlers } from './members.ts';
import { inviteHandlers } from './invites.ts';
import { leaderBroadcastHandlers } from './broadcasts.ts';
import { overviewHandlers } from './overview.ts';
import { settingsHandlers } from './settings.ts';

export function adminHandlerGroups(deps: RouteDeps): HandlerGroup[] {
  return [
    handlerGroup(auditLogHandlers, deps),
    handlerGroup(overviewHandlers, deps),
    handlerGroup(settingsHandlers, deps),
    handlerGroup(memberHandlers, deps),
    handlerGroup(integrationHandlers, deps),
    handlerGroup(inviteHandlers, deps),
    handlerGroup(leaderBroadcastHandlers, deps),
  ];
}
