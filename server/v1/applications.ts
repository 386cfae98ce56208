// Membership requests on /v1 (secret key, WRITE_MEMBERS): submit to a segment, the checkout of a
// paid one, approve, reject, kick and ban. Submit and checkout are also <svc-apply>'s widget
// actions (server/actions/applications.ts); both call server/use-cases/applications.ts. The rules
// live in server/domain/applications.ts and membership-payments.ts.
import * as routes from '../../contract/routes/applications.ts';
import type { Db } from '../db/index.ts';
import * as applications from '../domain/applications.ts';
import { communityOrigins, communitySites, normalizeOrigin, ownOrigins } from '../domain/community-origins.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';
import { applicationCheckout, submitApplication as submit } from '../use-cases/applications.ts';

export const reasonOf = (body: { reason?: string } | undefined) => body?.reason?.trim() || null;
const byKey = (key: { id: string }): applications.Decider => ({ kind: 'key', keyId: key.id });

/**
 * Where a paid applicant is sent back to: the caller's `origin` when it belongs to the community
 * (the origin rule: the checkout page bears the community's name, so it must never redirect
 * elsewhere); without it, the first of the community's sites (landing site, registered domain,
 * `<tag>.localhost`).
 */
async function returnOrigin(
  db: Db,
  publicUrl: string,
  communityTag: string,
  asked: string | undefined,
): Promise<string> {
  const community = await communityOrigins(db, communityTag);
  if (!community) throw notFound(messages.communityNotFound);
  if (asked === undefined) return communitySites(community, publicUrl)[0];
  const origin = normalizeOrigin(asked);
  if (!origin || !ownOrigins(community, publicUrl).has(origin))
    throw new ApiError('INVALID_INPUT', messages.applyOriginNotAllowed, { field: 'origin' });
  return origin;
}

async function submitApplication({ params, body, key, transaction }: HandlerContext<typeof routes.submitApplication>) {
  return submit(transaction, key.communityId, { segmentId: params.segmentId, ...body });
}

async function applyCheckout(
  { body, key, transaction }: HandlerContext<typeof routes.applyCheckout>,
  deps: SaleRouteDeps,
) {
  return applicationCheckout(deps.sales, transaction, key.communityId, body.requestId, () =>
    returnOrigin(deps.db, deps.publicUrl, key.communityTag, body.origin),
  );
}

async function approveApplication({ params, key, transaction }: HandlerContext<typeof routes.approveApplication>) {
  return transaction(async (trx) => {
    const r = await applications.approveApplication(trx, key.communityId, params.requestId, byKey(key));
    return { body: { ok: true as const, membershipId: r.membershipId, userId: r.userId } };
  });
}

async function rejectApplication({ params, body, key, transaction }: HandlerContext<typeof routes.rejectApplication>) {
  return transaction(async (trx) => {
    await applications.rejectApplication(trx, key.communityId, params.requestId, byKey(key), reasonOf(body));
    return { body: { ok: true as const } };
  });
}

async function kickMember({ params, body, key, transaction }: HandlerContext<typeof routes.kickMember>) {
  return transaction(async (trx) => {
    const r = await applications.kickMember(trx, key.communityId, params.userId, byKey(key), reasonOf(body));
    return { body: { ok: true as const, kickedAt: r.kickedAt } };
  });
}

async function banMember({ params, body, key, transaction }: HandlerContext<typeof routes.banMember>) {
  return transaction(async (trx) => {
    const r = await applications.banMember(trx, key.communityId, params.userId, byKey(key), reasonOf(body));
    return { body: { ok: true as const, bannedAt: r.bannedAt } };
  });
}

export const applicationHandlers = {
  submitApplication,
  approveApplication,
  rejectApplication,
  kickMember,
  banMember,
  applyCheckout,
} satisfies Handlers<(typeof routes.APPLICATION_ROUTES)[number], SaleRouteDeps>;
