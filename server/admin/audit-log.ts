// The leader console: who the leader is, and the audit log.
import * as routes from '../../contract/routes/admin.ts';
import { listAudit } from '../domain/audit-log.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';

async function getLeaderSelf({ leader }: HandlerContext<typeof routes.getLeaderSelf>, { db }: RouteDeps) {
  const [user, community] = await Promise.all([
    db.selectFrom('users').select('name').where('id', '=', leader.userId).executeTakeFirstOrThrow(),
    db.selectFrom('communities').select('name').where('id', '=', leader.communityId).executeTakeFirstOrThrow(),
  ]);
  return {
    body: {
      userId: leader.userId,
      name: user.name,
      role: leader.role,
      community: { id: leader.communityId, tag: leader.communityTag, name: community.name },
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

export const auditLogHandlers = { getLeaderSelf, listAuditLog } satisfies Handlers<RoutesOf<typeof routes>>;
