// The leader console's broadcasts: the domain of the broadcasts API (server/domain/broadcasts.ts)
// with the leader's community, each send and cancel with its audit entry in the same transaction.
import * as routes from '../../contract/routes/admin-broadcasts.ts';
import { recordAudit } from '../domain/audit-log.ts';
import { sendBroadcast } from '../use-cases/broadcasts.ts';
import * as broadcasts from '../domain/broadcasts.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { requestOrigin } from '../http/session.ts';
import { offsetPage } from '../http/pagination.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };

async function listLeaderBroadcasts(
  { query, leader }: HandlerContext<typeof routes.listLeaderBroadcasts>,
  { db }: RouteDeps,
) {
  await broadcasts.assertBroadcastsEnabled(db, leader.communityId);
  const offset = query.offset ?? 0;
  const page = await broadcasts.listBroadcasts(db, leader.communityId, {
    limit: query.limit,
    offset,
    status: query.status,
  });
  return {
    body: page.items,
    headers: NO_STORE,
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function listBroadcastAudiences(
  { leader }: HandlerContext<typeof routes.listBroadcastAudiences>,
  { db }: RouteDeps,
) {
  await broadcasts.assertBroadcastsEnabled(db, leader.communityId);
  return { body: await broadcasts.listAudienceSegments(db, leader.communityId), headers: NO_STORE };
}

async function getBroadcastAllowance(
  { leader }: HandlerContext<typeof routes.getBroadcastAllowance>,
  { db }: RouteDeps,
) {
  return { body: await broadcasts.broadcastAllowance(db, leader.communityId), headers: NO_STORE };
}

async function getLeaderBroadcast(
  { params, leader }: HandlerContext<typeof routes.getLeaderBroadcast>,
  { db }: RouteDeps,
) {
  await broadcasts.assertBroadcastsEnabled(db, leader.communityId);
  return { body: await broadcasts.getBroadcast(db, leader.communityId, params.broadcastId), headers: NO_STORE };
}

async function sendLeaderBroadcast(
  { body, leader, res, transaction }: HandlerContext<typeof routes.sendLeaderBroadcast>,
  deps: RouteDeps,
) {
  return sendBroadcast(deps, leader.communityId, body, { res, transaction, headers: NO_STORE }, (trx, queued) =>
    recordAudit(
      trx,
      { userId: leader.userId, communityId: leader.communityId },
      {
        action:
          body.testTo !== undefined
            ? 'broadcast.test'
            : body.sendAt !== undefined
              ? 'broadcast.schedule'
              : 'broadcast.send',
        targetType: 'broadcast',
        targetId: queued.id,
        before: null,
        // The subject and who it goes to; the body can be 200,000 characters and is on the broadcast.
        after: {
          subject: body.subject,
          status: queued.status,
          sendAt: queued.sendAt,
          recipients: queued.recipients,
          audience: body.audience ?? null,
          testTo: body.testTo ?? null,
        },
      },
    ),
  );
}

async function previewLeaderBroadcast(
  { body, leader, req }: HandlerContext<typeof routes.previewLeaderBroadcast>,
  { db }: RouteDeps,
) {
  // A placeholder token: the unsubscribe page refuses it, so the preview's link unsubscribes nobody.
  const unsubscribeUrl = `${requestOrigin(req) ?? ''}/unsubscribe?token=preview`;
  const preview = await broadcasts.previewBroadcast(db, leader.communityId, body, {
    name: leader.name,
    unsubscribeUrl,
  });
  return { body: preview, headers: NO_STORE };
}

async function cancelLeaderBroadcast({
  params,
  leader,
  transaction,
}: HandlerContext<typeof routes.cancelLeaderBroadcast>) {
  return transaction(async (trx) => {
    const { broadcast, changed } = await broadcasts.cancelBroadcastChange(trx, leader.communityId, params.broadcastId);
    if (changed)
      await recordAudit(
        trx,
        { userId: leader.userId, communityId: leader.communityId },
        {
          action: 'broadcast.cancel',
          targetType: 'broadcast',
          targetId: broadcast.id,
          before: { subject: broadcast.subject, status: 'SCHEDULED', sendAt: broadcast.sendAt },
          after: { subject: broadcast.subject, status: broadcast.status, cancelledAt: broadcast.cancelledAt },
        },
      );
    return { body: broadcast, headers: NO_STORE };
  });
}

export const leaderBroadcastHandlers = {
  listLeaderBroadcasts,
  listBroadcastAudiences,
  getBroadcastAllowance,
  getLeaderBroadcast,
  sendLeaderBroadcast,
  previewLeaderBroadcast,
  cancelLeaderBroadcast,
} satisfies Handlers<RoutesOf<typeof routes>>;
