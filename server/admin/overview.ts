// The leader console's overview: the counts its home page shows (server/domain/leader-overview.ts).
import * as routes from '../../contract/routes/admin.ts';
import { leaderOverview } from '../domain/leader-overview.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';

async function getLeaderOverview({ leader }: HandlerContext<typeof routes.getLeaderOverview>, { db }: RouteDeps) {
  return { body: await leaderOverview(db, leader.communityId), headers: { 'Cache-Control': 'no-store' } };
}

export const overviewHandlers = { getLeaderOverview } satisfies Handlers<typeof routes.getLeaderOverview>;
