// The leader console's members: the directory with private fields and its CSV export, the review
// queue, approve, reject, kick, ban and the admin role. The rules and audit entries are
// server/domain/leader-members.ts's.
import * as routes from '../../contract/routes/admin-members.ts';
import * as members from '../domain/leader-members.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };
const reasonOf = (body: { reason?: string } | undefined) => body?.reason?.trim() || null;

async function adminListMembers({ query, leader }: HandlerContext<typeof routes.adminListMembers>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const page = await members.listLeaderMembers(db, leader.communityId, { ...query, offset });
  return {
    body: page.items,
    headers: NO_STORE,
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function adminExportMembers(
  { query, leader }: HandlerContext<typeof routes.adminExportMembers>,
  { db }: RouteDeps,
) {
  return {
    body: null,
    headers: {
      ...NO_STORE,
      'Content-Disposition': `attachment; filename="${leader.communityTag}-members.csv"`,
    },
    stream: members.exportLeaderMembers(db, leader.communityId, query),
  };
}

async function adminListRequests(
  { query, leader }: HandlerContext<typeof routes.adminListRequests>,
  { db }: RouteDeps,
) {
  const offset = query.offset ?? 0;
  const page = await members.listReviewQueue(db, leader.communityId, { limit: query.limit, offset });
  return {
    body: page.items,
    headers: NO_STORE,
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function adminApproveRequest({ params, leader, transaction }: HandlerContext<typeof routes.adminApproveRequest>) {
  return transaction(async (trx) => {
    const r = await members.approveRequest(trx, leader, params.requestId);
    return { body: { ok: true as const, membershipId: r.membershipId, userId: r.userId }, headers: NO_STORE };
  });
}

async function adminRejectRequest({
  params,
  body,
  leader,
  transaction,
}: HandlerContext<typeof routes.adminRejectRequest>) {
  return transaction(async (trx) => {
    await members.rejectRequest(trx, leader, params.requestId, reasonOf(body));
    return { body: { ok: true as const }, headers: NO_STORE };
  });
}

async function adminKickMember({ params, body, leader, transaction }: HandlerContext<typeof routes.adminKickMember>) {
  return transaction(async (trx) => {
    const r = await members.kick(trx, leader, params.userId, reasonOf(body));
    return { body: { ok: true as const, kickedAt: r.kickedAt }, headers: NO_STORE };
  });
}

async function adminBanMember({ params, body, leader, transaction }: HandlerContext<typeof routes.adminBanMember>) {
  return transaction(async (trx) => {
    const r = await members.ban(trx, leader, params.userId, reasonOf(body));
    return { body: { ok: true as const, bannedAt: r.bannedAt }, headers: NO_STORE };
  });
}

async function adminSetMemberRole({
  params,
  body,
  leader,
  transaction,
}: HandlerContext<typeof routes.adminSetMemberRole>) {
  return transaction(async (trx) => ({
    body: await members.setRole(trx, leader, params.userId, body.role),
    headers: NO_STORE,
  }));
}

export const memberHandlers = {
  adminListMembers,
  adminExportMembers,
  adminListRequests,
  adminApproveRequest,
  adminRejectRequest,
  adminKickMember,
  adminBanMember,
  adminSetMemberRole,
} satisfies Handlers<RoutesOf<typeof routes>>;
