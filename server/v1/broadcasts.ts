// Broadcasts: send or schedule, list, get, cancel (server/domain/broadcasts.ts).
import * as routes from '../../contract/routes/broadcasts.ts';
import * as broadcasts from '../domain/broadcasts.ts';
import { BROADCAST_TESTS_BUCKET } from '../http/rate-limit.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';

async function createBroadcast(
  { body, key, res, transaction }: HandlerContext<typeof routes.createBroadcast>,
  { db, rateLimits }: RouteDeps,
) {
  if (body.testTo !== undefined) {
    // Test sends never count toward the 24 h limit; this budget is what holds them back. Judged
    // after the feature, so a community without broadcasts spends nothing of it.
    await broadcasts.assertBroadcastsEnabled(db, key.communityId);
    await rateLimits.consume(BROADCAST_TESTS_BUCKET, key.communityId, res);
  }
  return transaction(async (trx) => {
    const { limit, ...queued } = await broadcasts.createBroadcast(trx, key.communityId, body);
    const headers: Record<string, string> = limit
      ? {
          'X-RateLimit-Limit': String(limit.limit),
          'X-RateLimit-Remaining': String(limit.remaining),
          'X-RateLimit-Reset': String(limit.resetAt),
        }
      : {};
    return { status: 202, body: queued, headers };
  });
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
