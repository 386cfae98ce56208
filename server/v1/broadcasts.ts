// Broadcasts: send or schedule, list, get, cancel (server/domain/broadcasts.ts).
import * as routes from '../../contract/routes/broadcasts.ts';
import * as broadcasts from '../domain/broadcasts.ts';
import { sendBroadcast } from '../use-cases/broadcasts.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';

async function createBroadcast(
  { body, key, res, transaction }: HandlerContext<typeof routes.createBroadcast>,
  deps: RouteDeps,
) {
  return sendBroadcast(deps, key.communityId, body, { res, transaction });
}

async function listBroadcasts({ query, key }: HandlerContext<typeof routes.listBroadcasts>, { db }: RouteDeps) {
  await broadcasts.assertBroadcastsEnabled(db, key.communityId);
  const offset = query.offset ?? 0;
  const page = await broadcasts.listBroadcasts(db, key.communityId, {
    limit: query.limit,
    offset,
    status: query.status,
  });
  return {
    body: page.items,
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function getBroadcast({ params, key }: HandlerContext<typeof routes.getBroadcast>, { db }: RouteDeps) {
  await broadcasts.assertBroadcastsEnabled(db, key.communityId);
  return { body: await broadcasts.getBroadcast(db, key.communityId, params.broadcastId) };
}

async function cancelBroadcast({ params, key, transaction }: HandlerContext<typeof routes.cancelBroadcast>) {
  return transaction(async (trx) => ({
    body: await broadcasts.cancelBroadcast(trx, key.communityId, params.broadcastId),
  }));
}

// Not cached: the answers change as the dispatcher sends, and only secret keys read them.
export const broadcastHandlers = {
  createBroadcast,
  listBroadcasts,
  getBroadcast,
  cancelBroadcast,
} satisfies Handlers<RoutesOf<typeof routes>>;
