// Sending a broadcast, for /v1 (server/v1/broadcasts.ts) and the leader console
// (server/admin/broadcasts.ts): the test-send budget, the broadcast queued in the request's
// transaction (with whatever the caller records beside it, e.g. the console's audit entry), and
// the 24 h limit's headers on the 202.
import type { Response } from 'express';
import type { Db, Trx } from '../db/index.ts';
import * as broadcasts from '../domain/broadcasts.ts';
import { BROADCAST_TESTS_BUCKET, type RateLimits } from '../http/rate-limit.ts';
import type { RunTransaction } from '../http/routes.ts';

export interface SendDeps {
  db: Db;
  rateLimits: RateLimits;
}

type Queued = Omit<broadcasts.QueuedBroadcast, 'limit'>;

export async function sendBroadcast(
  deps: SendDeps,
  communityId: string,
  body: broadcasts.NewBroadcast,
  /** `headers`: the caller's own, on the answer as stored for an idempotent replay too. */
  ctx: { res: Response; transaction: RunTransaction; headers?: Record<string, string> },
  alongside?: (trx: Trx, queued: Queued) => Promise<void>,
): Promise<{ status: 202; body: Queued; headers: Record<string, string> }> {
  if (body.testTo !== undefined) {
    // Test sends never count toward the 24 h limit; this budget is what holds them back. Judged
    // after the feature, so a community without broadcasts spends nothing of it.
    await broadcasts.assertBroadcastsEnabled(deps.db, communityId);
    await deps.rateLimits.consume(BROADCAST_TESTS_BUCKET, communityId, ctx.res);
  }
  return ctx.transaction(async (trx) => {
    const { limit, ...queued } = await broadcasts.createBroadcast(trx, communityId, body);
    await alongside?.(trx, queued);
    const headers: Record<string, string> = limit
      ? {
          ...ctx.headers,
          'X-RateLimit-Limit': String(limit.limit),
          'X-RateLimit-Remaining': String(limit.remaining),
          'X-RateLimit-Reset': String(limit.resetAt),
        }
      : { ...ctx.headers };
    return { status: 202 as const, body: queued, headers };
  });
}
