// Membership requests on /v1 (secret key, WRITE_MEMBERS): submit to a segment, the checkout of a
// paid one, approve, reject, kick and ban. Submit and checkout are also <svc-apply>'s widget
// actions (server/site/application-actions.ts), which call doSubmit and doCheckout. The rules live in server/domain/applications.ts and
// membership-payments.ts; this maps their refusals.
import type { Router } from 'express';
import {
  applyCheckout, approveApplication, banMember, kickMember, rejectApplication, submitApplication,
} from '../../contract/routes/applications.ts';
import type { Db, Trx } from '../db/index.ts';
import * as applications from '../domain/applications.ts';
import { communityOrigins, communitySites, normalizeOrigin, ownOrigins } from '../domain/community-origins.ts';
import * as membershipPayments from '../domain/membership-payments.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type HandlerResult, type RouteDeps } from '../http/routes.ts';
import { PaymentProcessorError, PaymentsUnavailableError } from '../payments/index.ts';

function asApiError(err: unknown): never {
  if (!(err instanceof applications.ApplicationError)) throw err;
  const d = err.detail;
  switch (err.reason) {
    case 'invite_only': throw new ApiError('FEATURE_NOT_ENABLED', messages.inviteOnly);
    case 'segment_not_found': throw notFound(messages.segmentNotFound);
    case 'segment_closed': throw new ApiError('INVALID_INPUT', messages.segmentClosed, { field: 'segmentId' });
    // The spec's submit answers missing fields with a plain 400 (tickets use 422 for the same).
    case 'answers_missing':
      throw new ApiError('INVALID_INPUT', messages.applicationFieldsMissing, { field: `answers.${d.fieldIds![0]}`, fields: d.fieldIds });
    case 'answer_invalid': {
      const field = d.fieldId ? `answers.${d.fieldId}` : 'answers';
      throw new ApiError('INVALID_INPUT', messages.applicationAnswerInvalid(field, d.why ?? 'is invalid'), { field });
    }
    case 'billing_cycle_required':
      throw new ApiError('INVALID_INPUT', messages.billingCycleRequired(d.offered ?? []), { field: 'billingCycle', offered: d.offered });
    case 'billing_cycle_not_offered':
      throw new ApiError('INVALID_INPUT', messages.billingCycleNotOffered(d.offered ?? []), { field: 'billingCycle', offered: d.offered });
    case 'already_member': throw new ApiError('ALREADY_MEMBER', messages.alreadyMember);
    case 'application_pending': throw new ApiError('APPLICATION_PENDING', messages.applicationPending);
    case 'banned': throw new ApiError('APPLICANT_BANNED', messages.applicantBanned);
    case 'request_not_found': throw notFound(messages.applicationNotFound);
    case 'request_rejected': throw new ApiError('UNPROCESSABLE', messages.applicationRejected);
    case 'request_cancelled': throw new ApiError('UNPROCESSABLE', messages.applicationCancelled);
    case 'request_awaiting_payment': throw new ApiError('UNPROCESSABLE', messages.applicationAwaitingPayment);
    case 'request_approved': throw new ApiError('UNPROCESSABLE', messages.applicationApproved);
    case 'member_not_found': throw notFound(messages.memberNotFound);
    case 'not_accepted': throw new ApiError('INVALID_STATE', messages.notAnAcceptedMember);
    case 'founder': throw new ApiError('INVALID_STATE', messages.founderCannotBeRemoved);
  }
}

const reasonOf = (body: { reason?: string } | undefined) => body?.reason?.trim() || null;

function checkoutApiError(err: unknown): never {
  if (err instanceof membershipPayments.MembershipCheckoutError) {
    switch (err.reason) {
      case 'request_not_found': throw notFound(messages.applicationNotFound);
      case 'not_payment_pending':
        throw new ApiError('INVALID_INPUT', messages.applicationNotAwaitingPayment(err.detail.status ?? 'closed'), { field: 'requestId', status: err.detail.status });
      case 'no_price_for_cycle':
        throw new ApiError('INVALID_INPUT', messages.segmentNoPriceForCycle(err.detail.cycle ?? null), { field: 'requestId', billingCycle: err.detail.cycle });
      case 'segment_closed': throw new ApiError('INVALID_INPUT', messages.segmentClosed, { field: 'requestId' });
    }
  }
  if (err instanceof PaymentsUnavailableError) throw new ApiError('SERVICE_UNAVAILABLE', messages.paymentsUnavailable);
  if (err instanceof PaymentProcessorError) throw new ApiError('PAYMENT_PROCESSOR_ERROR', messages.paymentProcessorError);
  throw err;
}

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

type RunTransaction = <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => Promise<R>;

/** The submit of /v1 and of <svc-apply>'s widget action: the same rules, outcomes and refusals. */
export async function doSubmit(transaction: RunTransaction, communityId: string, input: applications.SubmitInput) {
  try {
    return await transaction(async (trx) => {
      const r = await applications.submitApplication(trx, communityId, input);
      const base = { success: true as const, requestId: r.requestId };
      return {
        status: 201,
        body: r.status === 'PAYMENT_PENDING'
          ? { ...base, paymentRequired: true as const, segmentId: r.segmentId, segmentName: r.segmentName }
          : { ...base, requestStatus: r.status, segmentName: r.segmentName, segmentId: r.segmentId },
      };
    });
  } catch (err) {
    asApiError(err);
  }
}

/**
 * The checkout of a PAYMENT_PENDING request, for /v1 and the widget action. `origin` resolves
 * where the plan's own return URLs lead (inside the refusal mapping: it may refuse the caller's
 * origin); `returnUrls`, when given, replace them (the widget's, already judged by its caller).
 */
export async function doCheckout(
  deps: RouteDeps, transaction: RunTransaction, communityId: string, requestId: string,
  origin: () => Promise<string>, returnUrls?: { successUrl: string; cancelUrl: string },
) {
  const payments = deps.payments;
  if (!payments) throw new Error('payments missing from RouteDeps');
  try {
    const returnOrigin = await origin();
    let foundingAllowed = true;
    // A lost race (another checkout of this request, or the last founding spot) plans again: the
    // winner's open checkout is then answered, or the regular price is charged.
    for (let attempt = 0; ; attempt += 1) {
      const plan = await membershipPayments.planApplyCheckout(deps.db, communityId, { requestId, returnOrigin, foundingAllowed });
      if (plan.kind === 'open') return { body: { checkoutUrl: plan.checkoutUrl, sessionId: plan.sessionId } };
      const planned = returnUrls ? { ...plan, request: { ...plan.request, ...returnUrls } } : plan;
      try {
        return await payments.openCheckout(planned.request, (prepared) => transaction(async (trx) => {
          await payments.persist(trx, prepared);
          await membershipPayments.holdForCheckout(trx, planned, prepared.checkout.id);
          return { body: { checkoutUrl: prepared.opened.checkoutUrl, sessionId: prepared.opened.sessionId } };
        }));
      } catch (err) {
        if (!(err instanceof membershipPayments.CheckoutRaceLost) || attempt >= 3) throw err;
        if (err.what === 'founding') foundingAllowed = false;
      }
    }
  } catch (err) {
    checkoutApiError(err);
  }
}

export function mountApplications(router: Router, deps: RouteDeps): void {
  mountRoute(router, submitApplication, async ({ params, body, key, transaction }) =>
    doSubmit(transaction, key!.communityId, { segmentId: params.segmentId, ...body }), deps);

  mountRoute(router, applyCheckout, async ({ body, key, transaction }) =>
    doCheckout(deps, transaction, key!.communityId, body.requestId,
      () => returnOrigin(deps.db, deps.publicUrl, key!.communityTag, body.origin)), deps);

  mountRoute(router, approveApplication, async ({ params, key, transaction }) => {
    try {
      return await transaction(async (trx) => {
        const r = await applications.approveApplication(trx, key!.communityId, params.requestId, key!.id);
        return { body: { ok: true as const, membershipId: r.membershipId, userId: r.userId } };
      });
    } catch (err) {
      asApiError(err);
    }
  }, deps);

  mountRoute(router, rejectApplication, async ({ params, body, key, transaction }) => {
    try {
      return await transaction(async (trx) => {
        await applications.rejectApplication(trx, key!.communityId, params.requestId, key!.id, reasonOf(body));
        return { body: { ok: true as const } };
      });
    } catch (err) {
      asApiError(err);
    }
  }, deps);

  mountRoute(router, kickMember, async ({ params, body, key, transaction }) => {
    try {
      return await transaction(async (trx) => {
        const r = await applications.kickMember(trx, key!.communityId, params.userId, key!.id, reasonOf(body));
        return { body: { ok: true as const, kickedAt: r.kickedAt } };
      });
    } catch (err) {
      asApiError(err);
    }
  }, deps);

  mountRoute(router, banMember, async ({ params, body, key, transaction }) => {
    try {
      return await transaction(async (trx) => {
        const r = await applications.banMember(trx, key!.communityId, params.userId, key!.id, reasonOf(body));
        return { body: { ok: true as const, bannedAt: r.bannedAt } };
      });
    } catch (err) {
      asApiError(err);
    }
  }, deps);
}
