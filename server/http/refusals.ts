// What each domain refusal (server/domain/refusal.ts) is on the wire: code, status, message and
// extras, one entry per reason. `satisfies` makes a reason without an entry a compile error, so a
// new reason can never fall through to a 500. mountRoute applies it to whatever a handler throws;
// tests/unit/refusals.test.ts checks every status against the code's in contract/errors.ts.
import { ERROR_STATUS, type ErrorCode } from '../../contract/errors.ts';
import { Refusal, type RefusalDetails, type RefusalReason } from '../domain/refusal.ts';
import { messages } from '../shared/messages.ts';
import { ApiError, type ErrorExtras } from './api-error.ts';

export interface RefusalAnswer<D> {
  code: ErrorCode;
  /** ERROR_STATUS[code], written out so the table reads as the spec does (and is tested to agree). */
  status: number;
  message: (detail: D) => string;
  extras?: (detail: D) => ErrorExtras;
  /** Headers the answer carries (Retry-After). */
  headers?: (detail: D) => Record<string, string>;
}

type RefusalTable = { [R in RefusalReason]: RefusalAnswer<RefusalDetails[R]> };

const fixed = (code: ErrorCode, message: string, extras?: ErrorExtras): RefusalAnswer<void> => ({
  code,
  status: ERROR_STATUS[code],
  message: () => message,
  ...(extras ? { extras: () => extras } : {}),
});

const formField = (prefix: string, fieldId: string | undefined) => (fieldId ? `${prefix}.${fieldId}` : prefix);

export const REFUSALS = {
  community_not_found: fixed('NOT_FOUND', messages.communityNotFound),
  page_members_only: { code: 'PAGE_MEMBERS_ONLY', status: 403, message: (d) => messages.pageMembersOnly(d.what) },

  event_not_found: fixed('NOT_FOUND', messages.eventNotFound),
  tier_not_found: fixed('INVALID_INPUT', messages.tierNotOfEvent, { field: 'tierId' }),
  tier_inactive: fixed('INVALID_INPUT', messages.tierInactive, { field: 'tierId' }),
  tier_is_paid: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.tierIsPaid(d.slug),
    extras: () => ({ field: 'tierId' }),
  },
  tier_is_free: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.tierIsFree(d.slug),
    extras: () => ({ field: 'tierId' }),
  },
  event_past: fixed('UNPROCESSABLE', messages.eventIsOver),
  sold_out: {
    code: 'UNPROCESSABLE',
    status: 422,
    message: (d) => (d.remaining ? messages.onlyNLeft(d.remaining) : messages.tierSoldOut),
    extras: (d) => ({ field: 'quantity', remaining: d.remaining ?? 0 }),
  },
  too_many_held: {
    code: 'UNPROCESSABLE',
    status: 422,
    message: (d) => messages.tooManyHeld(d.held),
    extras: () => ({ field: 'quantity' }),
  },
  // 422 for tickets; the spec's application submit answers the same with a 400 (answers_missing).
  form_missing: {
    code: 'UNPROCESSABLE',
    status: 422,
    message: () => messages.formFieldsMissing,
    extras: (d) => ({ field: `formAnswers.${d.fieldIds[0]}`, fields: d.fieldIds }),
  },
  form_invalid: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => `${formField('formAnswers', d.fieldId)} ${d.why}`,
    extras: (d) => ({ field: formField('formAnswers', d.fieldId) }),
  },
  already_rsvpd: fixed('INVALID_STATE', messages.alreadyRsvpd, { field: 'email' }),
  return_urls_required: {
    code: 'INVALID_INPUT',
    status: 400,
    message: () => messages.urlsRequiredWithDonation,
    extras: (d) => ({ field: d.field }),
  },

  donations_not_enabled: fixed('INVALID_INPUT', messages.donationsNotEnabled, { field: 'donation' }),
  donation_not_listed: {
    code: 'INVALID_DONATION_AMOUNT',
    status: 400,
    message: (d) => messages.donationNotListed(d.amounts),
    extras: (d) => ({ field: 'donation.amount', amounts: d.amounts }),
  },
  donation_below_minimum: {
    code: 'INVALID_DONATION_AMOUNT',
    status: 400,
    message: (d) => messages.donationBelowMinimum(d.minimum),
    extras: (d) => ({ field: 'donation.amount', minimum: d.minimum }),
  },
  donor_email_required: fixed('INVALID_INPUT', messages.donorEmailRequired, { field: 'customer.email' }),
  donation_currency_mismatch: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.donationCurrencyMismatch(d.currency),
    extras: () => ({ field: 'donation' }),
  },
  product_not_found: fixed('NOT_FOUND', messages.productNotFound),
  product_inactive: fixed('INVALID_INPUT', messages.productInactive, { field: 'sku' }),
  product_free: fixed('INVALID_INPUT', messages.productFree, { field: 'sku' }),

  payments_unavailable: fixed('SERVICE_UNAVAILABLE', messages.paymentsUnavailable),
  payment_processor_error: fixed('PAYMENT_PROCESSOR_ERROR', messages.paymentProcessorError),
  invalid_stripe_signature: {
    code: 'INVALID_SIGNATURE',
    status: 400,
    message: () => messages.stripeSignatureHelp,
    extras: (d) => ({ reason: d.reason }),
  },

  invite_only: fixed('FEATURE_NOT_ENABLED', messages.inviteOnly),
  segment_not_found: fixed('NOT_FOUND', messages.segmentNotFound),
  segment_closed: fixed('INVALID_INPUT', messages.segmentClosed, { field: 'segmentId' }),
  answers_missing: {
    code: 'INVALID_INPUT',
    status: 400,
    message: () => messages.applicationFieldsMissing,
    extras: (d) => ({ field: `answers.${d.fieldIds[0]}`, fields: d.fieldIds }),
  },
  answer_invalid: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.applicationAnswerInvalid(formField('answers', d.fieldId), d.why ?? 'is invalid'),
    extras: (d) => ({ field: formField('answers', d.fieldId) }),
  },
  billing_cycle_required: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.billingCycleRequired(d.offered),
    extras: (d) => ({ field: 'billingCycle', offered: d.offered }),
  },
  billing_cycle_not_offered: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.billingCycleNotOffered(d.offered),
    extras: (d) => ({ field: 'billingCycle', offered: d.offered }),
  },
  already_member: fixed('ALREADY_MEMBER', messages.alreadyMember),
  application_pending: fixed('APPLICATION_PENDING', messages.applicationPending),
  banned: fixed('APPLICANT_BANNED', messages.applicantBanned),
  request_not_found: fixed('NOT_FOUND', messages.applicationNotFound),
  request_rejected: fixed('UNPROCESSABLE', messages.applicationRejected),
  request_cancelled: fixed('UNPROCESSABLE', messages.applicationCancelled),
  request_awaiting_payment: fixed('UNPROCESSABLE', messages.applicationAwaitingPayment),
  request_approved: fixed('UNPROCESSABLE', messages.applicationApproved),
  member_not_found: fixed('NOT_FOUND', messages.memberNotFound),
  not_accepted: fixed('INVALID_STATE', messages.notAnAcceptedMember),
  founder: fixed('INVALID_STATE', messages.founderCannotBeRemoved),
  founder_only_roles: fixed('FOUNDER_ONLY', messages.founderOnlyRoles),
  founder_only_remove_admin: fixed('FOUNDER_ONLY', messages.founderOnlyRemoveAdmin),
  founder_only_member_keys: fixed('FOUNDER_ONLY', messages.founderOnlyMemberKeys, { field: 'scopes' }),
  founder_role_fixed: fixed('INVALID_STATE', messages.founderRoleFixed),
  role_not_accepted: fixed('INVALID_STATE', messages.notAnAcceptedMemberRole),

  not_payment_pending: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.applicationNotAwaitingPayment(d.status),
    extras: (d) => ({ field: 'requestId', status: d.status }),
  },
  no_price_for_cycle: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.segmentNoPriceForCycle(d.cycle),
    extras: (d) => ({ field: 'requestId', billingCycle: d.cycle }),
  },
  checkout_segment_closed: fixed('INVALID_INPUT', messages.segmentClosed, { field: 'requestId' }),

  rules_version_mismatch: {
    code: 'RULES_VERSION_MISMATCH',
    status: 400,
    message: (d) => messages.rulesVersionMismatch(d.asked, d.currentVersion),
    extras: (d) => ({ field: 'rulesVersion', currentVersion: d.currentVersion }),
  },
  not_a_member: fixed('NOT_A_MEMBER', messages.notAMember, { field: 'userId' }),

  installment_unit: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.installmentUnit(d.missing),
    extras: (d) => ({ field: d.missing[0], fields: d.missing }),
  },
  installment_partial: {
    code: 'INVALID_INPUT',
    status: 400,
    message: () => messages.installmentPartial,
    extras: (d) => ({ field: d.field }),
  },
  renews_needs_plan: {
    code: 'INVALID_INPUT',
    status: 400,
    message: () => messages.renewsAnnuallyNeedsPlan,
    extras: (d) => ({ field: d.field }),
  },
  segment_name_taken: fixed('SEGMENT_NAME_TAKEN', messages.segmentNameTaken, { field: 'name' }),
  domain_taken: {
    code: 'DOMAIN_TAKEN',
    status: 409,
    message: (d) => messages.domainTaken(d.field),
    extras: (d) => ({ field: d.field }),
  },
  domain_of_platform: {
    code: 'INVALID_INPUT',
    status: 400,
    message: (d) => messages.domainOfPlatform(d.field),
    extras: (d) => ({ field: d.field }),
  },

  invalid_cursor: fixed('INVALID_INPUT', messages.invalidCursor, { field: 'cursor' }),

  friend_request_limit: {
    code: 'FRIEND_REQUEST_LIMIT',
    status: 409,
    message: (d) => messages.friendRequestLimit(d.max),
  },
  friend_request_cooldown: {
    code: 'FRIEND_REQUEST_COOLDOWN',
    status: 409,
    message: () => messages.friendRequestCooldown,
    extras: (d) => ({ retryAfter: d.retryAfter }),
    headers: (d) => ({ 'Retry-After': String(d.retryAfter) }),
  },
  friend_request_self: fixed('FRIEND_REQUEST_SELF', messages.friendRequestSelf, { field: 'usertag' }),
  friend_request_exists: fixed('FRIEND_REQUEST_EXISTS', messages.friendRequestExists),
  already_friends: fixed('ALREADY_FRIENDS', messages.alreadyFriends),
  user_not_found: fixed('NOT_FOUND', messages.userNotFound),
  friend_request_not_found: fixed('NOT_FOUND', messages.friendRequestNotFound),

  conversation_needs_others: fixed('INVALID_INPUT', messages.conversationNeedsOthers, { field: 'usertags' }),
  conversation_user_not_found: {
    code: 'NOT_FOUND',
    status: 404,
    message: () => messages.userNotFound,
    extras: (d) => ({ field: 'usertags', usertag: d.usertag }),
  },
  conversation_not_found: fixed('NOT_FOUND', messages.conversationNotFound),
  message_not_in_conversation: fixed('INVALID_INPUT', messages.messageNotInConversation, { field: 'upTo' }),

  broadcasts_not_enabled: fixed('FEATURE_NOT_ENABLED', messages.featureNotEnabled('Broadcasts')),
  broadcast_not_found: fixed('NOT_FOUND', messages.broadcastNotFound),
  broadcast_segment_unknown: {
    code: 'UNPROCESSABLE',
    status: 422,
    message: (d) => messages.broadcastSegmentUnknown(d.segmentId),
    extras: (d) => ({ field: 'audience.segmentIds', segmentId: d.segmentId }),
  },
  broadcast_audience_empty: fixed('UNPROCESSABLE', messages.broadcastAudienceEmpty, { field: 'audience' }),
  broadcast_content_empty: {
    code: 'INVALID_INPUT',
    status: 400,
    message: () => messages.broadcastContentEmpty,
    extras: (d) => ({ field: d.field }),
  },
  broadcast_not_cancellable: {
    code: 'INVALID_STATE',
    status: 409,
    message: (d) => messages.broadcastNotCancellable(d.status),
    extras: (d) => ({ status: d.status }),
  },
  broadcast_limit: {
    code: 'RATE_LIMITED',
    status: 429,
    message: (d) => messages.broadcastLimit(d.limit),
    extras: (d) => ({ retryAfter: d.retryAfter }),
    headers: (d) => ({
      'Retry-After': String(d.retryAfter),
      'X-RateLimit-Limit': String(d.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(d.resetAt),
    }),
  },

  invites_need_invite_only: {
    code: 'INVALID_STATE',
    status: 409,
    message: (d) => messages.invitesNeedInviteOnly(d.accessibility),
    extras: (d) => ({ accessibility: d.accessibility }),
  },
  invite_not_found: fixed('NOT_FOUND', messages.inviteNotFound),
  invite_segment_unknown: fixed('UNPROCESSABLE', messages.inviteSegmentUnknown, { field: 'segmentId' }),
  invite_segment_paid: fixed('UNPROCESSABLE', messages.inviteSegmentPaid, { field: 'segmentId' }),

  email_in_use: fixed('EMAIL_IN_USE', messages.emailInUse, { field: 'email' }),
  phone_in_use: fixed('PHONE_IN_USE', messages.phoneInUse, { field: 'phone' }),
  usertag_taken: fixed('USERTAG_TAKEN', messages.usertagTaken, { field: 'usertag' }),
  oauth_not_linked: fixed('NOT_FOUND', messages.oauthNotLinked),
  last_sign_in_method: fixed('LAST_SIGN_IN_METHOD', messages.oauthLastSignInMethod),

  secret_key_not_found: fixed('NOT_FOUND', messages.secretKeyNotFound),
  webhook_receiver_not_found: fixed('NOT_FOUND', messages.webhookReceiverNotFound),
  webhook_delivery_not_found: fixed('NOT_FOUND', messages.webhookDeliveryNotFound),
  webhook_receiver_removed: fixed('INVALID_STATE', messages.webhookReceiverRemoved),
  webhook_receiver_not_enabled: {
    code: 'INVALID_STATE',
    status: 409,
    message: (d) => messages.webhookReceiverNotEnabled(d.status),
  },
  webhook_url_refused: { code: 'INVALID_INPUT', status: 400, message: (d) => d.why, extras: () => ({ field: 'url' }) },
} satisfies RefusalTable;

/** The refusal as the API's error. */
export function refusalError(refusal: Refusal): ApiError {
  const answer = (REFUSALS as RefusalTable)[refusal.reason] as RefusalAnswer<unknown>;
  return new ApiError(
    answer.code,
    answer.message(refusal.detail),
    answer.extras?.(refusal.detail),
    answer.headers?.(refusal.detail),
  );
}

/** A thrown Refusal as the API's error; anything else unchanged. */
export function asApiError(err: unknown): unknown {
  return err instanceof Refusal ? refusalError(err) : err;
}
