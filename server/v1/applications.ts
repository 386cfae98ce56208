// Membership requests on /v1 (secret key, WRITE_MEMBERS): submit to a segment, the checkout of a
// paid one, approve, reject, kick and ban. Submit and checkout are also <svc-apply>'s widget
// actions (server/actions/applications.ts); both call server/use-cases/applications.ts. The rules
// live in server/domain/applications.ts and membership-payments.ts.
import type { Router } from 'express';
import {
  applyCheckout, approveApplication, banMember, kickMember, rejectApplication, submitApplication,
} from '../../contract/routes/applications.ts';
import type { Db } from '../db/index.ts';
import * as applications from '../domain/applications.ts';
import { communityOrigins, communitySites, normalizeOrigin, ownOrigins } from '../domain/community-origins.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { saleDeps } from '../use-cases/checkout.ts';
import { applicationCheckout, submitApplication as submit } from '../use-cases/applications.ts';

const reasonOf = (body: { reason?: string } | undefined) => body?.reason?.trim() || null;

/**
 * Where a paid applicant is sent back to: the caller's `origin` when it belongs to the community
 * (the origin rule: the checkout page bears the community's name, so it must never redirect
 * elsewhere); without it, the first of the community's sites (landing site, registered domain,
 * `<tag>.localhost`).
 */
async function returnOrigin(db: Db, publicUrl: string, communityTag: string, asked: string | undefined): Promise<string> {
  const community = await communityOrigins(db, communityTag);
  if (!community) throw notFound(messages.communityNotFound);
  if (asked === undefined) return communitySites(community, publicUrl)[0];
  const origin = normalizeOrigin(asked);
  if (!origin || !ownOrigins(community, publicUrl).has(origin)) throw new ApiError('INVALID_INPUT', messages.applyOriginNotAllowed, { field: 'origin' });
  return origin;
}

export function mountApplications(router: Router, deps: RouteDeps): void {
  const sales = saleDeps(deps);
  mountRoute(router, submitApplication, async ({ params, body, key, transaction }) =>
    submit(transaction, key.communityId, { segmentId: params.segmentId, ...body }), deps);

  mountRoute(router, applyCheckout, async ({ body, key, transaction }) =>
    applicationCheckout(sales, transaction, key.communityId, body.requestId,
      () => returnOrigin(deps.db, deps.publicUrl, key.communityTag, body.origin)), deps);

  mountRoute(router, approveApplication, async ({ params, key, transaction }) => {
    return transaction(async (trx) => {
      const r = await applications.approveApplication(trx, key.communityId, params.requestId, key.id);
      return { body: { ok: true as const, membershipId: r.membershipId, userId: r.userId } };
    });
  }, deps);

  mountRoute(router, rejectApplication, async ({ params, body, key, transaction }) => {
    return transaction(async (trx) => {
      await applications.rejectApplication(trx, key.communityId, params.requestId, key.id, reasonOf(body));
      return { body: { ok: true as const } };
    });
  }, deps);

  mountRoute(router, kickMember, async ({ params, body, key, transaction }) => {
    return transaction(async (trx) => {
      const r = await applications.kickMember(trx, key.communityId, params.userId, key.id, reasonOf(body));
      return { body: { ok: true as const, kickedAt: r.kickedAt } };
    });
  }, deps);

  mountRoute(router, banMember, async ({ params, body, key, transaction }) => {
    return transaction(async (trx) => {
      const r = await applications.banMember(trx, key.communityId, params.userId, key.id, reasonOf(body));
      return { body: { ok: true as const, bannedAt: r.bannedAt } };
    });
  }, deps);
}
