// The leader console: who the leader is, and the audit log (the overview is ./overview.ts).
import * as routes from '../../contract/routes/admin.ts';
import { listAudit } from '../domain/audit-log.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';

// The gate has read everything the answer holds (server/http/leader.ts).
async function getLeaderSelf({ leader }: HandlerContext<typeof routes.getLeaderSelf>) {
  return {
    body: {
      userId: leader.userId,
      name: leader.name,
      role: leader.role,
      community: { id: leader.communityId, tag: leader.communityTag, name: leader.communityName },
    },
    headers: { 'Cache-Control': 'no-store' },
  };
}

async function listAuditLog({ query, leader }: HandlerContext<typeof routes.listAuditLog>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const page = await listAudit(db, leader.communityId, { limit: query.limit, offset, action: query.action });
  return {
    body: page.items,
    headers: { 'Cache-Control': 'no-store' },
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

export const auditLogHandlers = { getLeaderSelf, listAuditLog } satisfies Handlers<
  Exclude<RoutesOf<typeof routes>, typeof routes.getLeaderOverview>
>;
