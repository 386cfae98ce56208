// The leader console's invite links: create (the code shown once), list, revoke; each change with
// its audit entry in the change's transaction. `/join/<code>` is a hosted page (server/site/pages/join.ts).
import * as routes from '../../contract/routes/admin-invites.ts';
import { recordAudit } from '../domain/audit-log.ts';
import * as invites from '../domain/invites.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { requestOrigin } from '../http/session.ts';
import { offsetPage } from '../http/pagination.ts';

async function createInviteLink({ body, leader, req, transaction }: HandlerContext<typeof routes.createInviteLink>) {
  const actor = { userId: leader.userId, communityId: leader.communityId };
  return transaction(async (trx) => {
    const { invite, code } = await invites.createInvite(trx, actor, body);
    await recordAudit(trx, actor, {
      action: 'invite.create',
      targetType: 'invite',
      targetId: invite.id,
      before: null,
      after: invites.auditedInvite(invite),
    });
    // The leader is on the community's own site (the leader gate), so its origin is the link's.
    const url = `${requestOrigin(req) ?? ''}${invites.joinPath(code)}`;
    return { status: 201, body: { ...invite, code, url }, headers: { 'Cache-Control': 'no-store' } };
  });
}

async function listInviteLinks({ query, leader }: HandlerContext<typeof routes.listInviteLinks>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const page = await invites.listInvites(db, leader.communityId, { limit: query.limit, offset });
  return {
    body: page.items,
    headers: { 'Cache-Control': 'no-store' },
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function revokeInviteLink({ params, leader, transaction }: HandlerContext<typeof routes.revokeInviteLink>) {
  const actor = { userId: leader.userId, communityId: leader.communityId };
  return transaction(async (trx) => {
    const { before, after } = await invites.revokeInvite(trx, leader.communityId, params.inviteId, leader.userId);
    // Revoking a revoked link changes nothing, so it leaves no entry.
    if (before)
      await recordAudit(trx, actor, {
        action: 'invite.revoke',
        targetType: 'invite',
        targetId: after.id,
        before: invites.auditedInvite(before),
        after: invites.auditedInvite(after),
      });
    return { body: after, headers: { 'Cache-Control': 'no-store' } };
  });
}

export const inviteHandlers = {
  // The code is in the answer: never kept in an idempotency record.
  createInviteLink,
  listInviteLinks,
  revokeInviteLink,
} satisfies Handlers<RoutesOf<typeof routes>>;
