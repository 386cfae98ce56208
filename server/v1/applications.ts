// Membership requests on /v1 (secret key, WRITE_MEMBERS): submit to a segment, approve, reject,
// kick and ban. The rules live in server/domain/applications.ts; this maps their refusals.
import type { Router } from 'express';
import { approveApplication, banMember, kickMember, rejectApplication, submitApplication } from '../../contract/routes/applications.ts';
import * as applications from '../domain/applications.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

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

export function mountApplications(router: Router, deps: RouteDeps): void {
  mountRoute(router, submitApplication, async ({ params, body, key, transaction }) => {
    try {
      return await transaction(async (trx) => {
        const r = await applications.submitApplication(trx, key!.communityId, { segmentId: params.segmentId, ...body });
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
  }, deps);

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
