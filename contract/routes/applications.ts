// Membership requests: a server submits an application to a segment, reviews it (approve,
// reject), and removes members (kick, ban). Decisions the spec leaves open: docs/api.md,
// "Membership requests".
import { z } from 'zod';
import { CommunityTag, Line, ReturnUrl, Uuid } from '../common.ts';
import { BillingCycle } from '../enums.ts';
import { route, WIDGET_ACTIONS_BASE } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

const Reason = z.string().trim().max(1000).describe('internal note, stored on the audit trail; never sent to the person');
const OptionalReasonBody = z.object({ reason: Reason.optional() }).strict();

export const SubmitApplicationBody = z
  .object({
    answers: z.record(z.string().max(64), z.unknown())
      .describe('answers keyed by form field id. The e-mail field and the first short-text field whose label contains "name" are ' +
        'required whatever the form says; a segment whose form lacks them takes them as `email` and `name`.'),
    source: Line(200).optional().describe('free-form attribution (a campaign, a page); persisted and sent in member.requested'),
    billingCycle: BillingCycle.optional().describe('required when the segment offers more than one cycle; must be one it offers'),
  })
  .strict();

export const SubmitFreeResult = z
  .object({
    success: z.literal(true),
    requestId: Uuid,
    requestStatus: z.enum(['APPROVED', 'PENDING']),
    segmentName: z.string(),
    segmentId: Uuid,
  })
  .meta({ id: 'ApplicationSubmitted' });

export const SubmitPaidResult = z
  .object({
    success: z.literal(true),
    requestId: Uuid,
    paymentRequired: z.literal(true),
    segmentId: Uuid,
    segmentName: z.string(),
  })
  .meta({ id: 'ApplicationPaymentRequired' });

export const ApproveResult = z.object({ ok: z.literal(true), membershipId: Uuid, userId: Uuid }).meta({ id: 'ApplicationApproved' });
export const OkResult = z.object({ ok: z.literal(true) });
export const KickResult = z.object({ ok: z.literal(true), kickedAt: z.iso.datetime() });
export const BanResult = z.object({ ok: z.literal(true), bannedAt: z.iso.datetime() });

export const submitApplication = route({
  operationId: 'submitApplication',
  method: 'post',
  path: `${base}/segments/{segmentId}/submit`,
  tag: 'Segments',
  summary: 'Apply to a segment',
  description:
    'Creates or matches the applicant\'s account by e-mail (no password) and records the request. A free segment that ' +
    'auto-approves, in an OPEN community with a founder, is APPROVED at once (membership ACCEPTED, `member.approved`); ' +
    'any other free segment is PENDING review (`member.requested`); a paid segment answers `paymentRequired: true` ' +
    'with the request in PAYMENT_PENDING (the checkout is POST /apply/checkout). 400 `ALREADY_MEMBER` for an ACCEPTED ' +
    'address, 400 `APPLICATION_PENDING` for an address under review, 400 `INVALID_INPUT` for missing or malformed ' +
    'answers, a closed segment or a bad `billingCycle`; 403 `FEATURE_NOT_ENABLED` in an INVITE_ONLY community; 403 ' +
    '`APPLICANT_BANNED` for a banned address.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ segmentId: Uuid }),
  body: SubmitApplicationBody,
  response: { status: 201, schema: z.union([SubmitFreeResult, SubmitPaidResult]), description: 'The request, approved, pending or waiting for payment' },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const approveApplication = route({
  operationId: 'approveApplication',
  method: 'post',
  path: `${base}/applications/{requestId}/approve`,
  tag: 'Applications',
  summary: 'Approve an application',
  description:
    'A PENDING request becomes APPROVED and its membership ACCEPTED; `member.approved` fires with `approvedBy` the id ' +
    'of the API key. Approving an APPROVED request again answers the same ids and fires nothing. A REJECTED, ' +
    'cancelled or unpaid (PAYMENT_PENDING) request is 422.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ requestId: Uuid }),
  response: { status: 200, schema: ApproveResult, description: 'The membership' },
  errors: [400, 401, 403, 404, 409, 422, 429],
});

export const rejectApplication = route({
  operationId: 'rejectApplication',
  method: 'post',
  path: `${base}/applications/{requestId}/reject`,
  tag: 'Applications',
  summary: 'Reject an application',
  description:
    'A PENDING (or unpaid PAYMENT_PENDING) request becomes REJECTED, with its membership; `member.rejected` fires and the ' +
    'applicant is e-mailed without the reason. Rejecting a REJECTED request again changes nothing. An APPROVED request ' +
    'is 422 (kick the member instead).',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ requestId: Uuid }),
  body: OptionalReasonBody,
  response: { status: 200, schema: OkResult, description: 'Rejected' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429],
});

export const kickMember = route({
  operationId: 'kickMember',
  method: 'post',
  path: `${base}/members/{userId}/kick`,
  tag: 'Members',
  summary: 'Remove a member',
  description:
    'The ACCEPTED membership becomes REJECTED (`platforms.svc.status` KICKED) and leaves the directory at once; ' +
    '`member.kicked` fires; the reason goes on the audit trail. The person may apply again. Kicking them again ' +
    'answers the first `kickedAt`. 404 when the user has no membership here; 409 for one that is not ACCEPTED, or the founder.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ userId: Uuid }),
  body: OptionalReasonBody,
  response: { status: 200, schema: KickResult, description: 'Removed' },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const banMember = route({
  operationId: 'banMember',
  method: 'post',
  path: `${base}/members/{userId}/ban`,
  tag: 'Members',
  summary: 'Ban a member or applicant',
  description:
    'Irreversible: the membership becomes BANNED, leaves the directory at once, any open application is closed, and ' +
    'the address can never apply again. `member.banned` fires; the reason goes on the audit trail. Banning again ' +
    'answers the first `bannedAt`. 404 when the user has neither a membership nor an application here; 409 for the founder.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ userId: Uuid }),
  body: OptionalReasonBody,
  response: { status: 200, schema: BanResult, description: 'Banned' },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const ApplyCheckoutBody = z
  .object({
    requestId: Uuid.describe('a PAYMENT_PENDING request of this community (from the paid submit)'),
    origin: Line(2048).optional()
      .describe('`scheme://host[:port]` of the page the applicant came from: one of the community\'s embed origins or its hosted ' +
        'site (custom domain or `<tag>.localhost`). Success returns to `<origin>/?svc_apply=success&session={CHECKOUT_SESSION_ID}`, ' +
        'cancel to `<origin>/?svc_apply=cancelled&request=<requestId>`. Without it, the community\'s hosted site.'),
  })
  .strict();

export const ApplyCheckoutResult = z.object({
  checkoutUrl: z.string().describe('send the applicant here'),
  sessionId: z.string().describe("the processor's session id (what {CHECKOUT_SESSION_ID} becomes)"),
}).meta({ id: 'ApplyCheckoutResponse' });

export const applyCheckout = route({
  operationId: 'applyCheckout',
  method: 'post',
  path: `${base}/apply/checkout`,
  tag: 'Segments',
  summary: 'Open the checkout of a paid application',
  description:
    'Opens the payment of a PAYMENT_PENDING request at the price of its billing cycle (the founding price while founding ' +
    'spots are left: one is held for the checkout and given back if it expires or is cancelled). MONTHLY, QUARTERLY and ' +
    'YEARLY are subscriptions; ONE_TIME a single payment; INSTALLMENT_PLAN `installmentCount` charges (the first carries ' +
    'the remainder of the division). Completion (never the redirect) accepts the membership and fires `member.approved`. ' +
    'The price is fixed at purchase: a later PATCH of the segment does not change it until renewal. The same ' +
    '`X-Idempotency-Key` answers the same session. 400 `INVALID_INPUT` when the request is not PAYMENT_PENDING, when the ' +
    'segment has no price for its billing cycle, or for an `origin` that is not one of the community\'s sites; 404 for an ' +
    'unknown request (or one of another community); 503 when payments are off.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity,
  body: ApplyCheckoutBody,
  response: { status: 200, schema: ApplyCheckoutResult, description: 'The checkout to send the applicant to' },
  errors: [400, 401, 403, 404, 409, 415, 429, 502, 503],
});

export const APPLICATION_ROUTES = [submitApplication, approveApplication, rejectApplication, kickMember, banMember, applyCheckout];

// <svc-apply>'s writes: the same submit and checkout as widget actions, for a page with only the
// publishable key (or the hosted site). See docs/api.md "Widget actions" and docs/widgets.md.
const actions = WIDGET_ACTIONS_BASE;

export const WidgetApplyCheckoutBody = z
  .object({
    requestId: Uuid.describe('a PAYMENT_PENDING request of this community (from the paid submit)'),
    successUrl: ReturnUrl.describe('where the applicant comes back after paying: on the calling page\'s origin or another embed origin ' +
      '(`{CHECKOUT_SESSION_ID}` is filled in)'),
    cancelUrl: ReturnUrl.describe('where the applicant comes back after cancelling: the same origins'),
  })
  .strict();

export const widgetSubmitApplication = route({
  operationId: 'widgetSubmitApplication',
  method: 'post',
  path: `${actions}/segments/{segmentId}/submit`,
  tag: 'Community site',
  summary: 'Apply to a segment from a widget',
  description:
    'The submit of POST /v1/.../segments/{segmentId}/submit for <svc-apply>: the same body, rules, outcomes and refusals ' +
    '(APPROVED, PENDING or `paymentRequired`; 400 `ALREADY_MEMBER`, `APPLICATION_PENDING`, `INVALID_INPUT`; 403 ' +
    '`FEATURE_NOT_ENABLED`, `APPLICANT_BANNED`), called with the publishable key from an embed origin or keyless on the ' +
    'hosted site. An inactive segment is 400 as on /v1.',
  auth: { kind: 'widget' },
  params: InCommunity.extend({ segmentId: Uuid }),
  body: SubmitApplicationBody,
  response: { status: 201, schema: z.union([SubmitFreeResult, SubmitPaidResult]), description: 'The request, approved, pending or waiting for payment' },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const widgetApplyCheckout = route({
  operationId: 'widgetApplyCheckout',
  method: 'post',
  path: `${actions}/apply/checkout`,
  tag: 'Community site',
  summary: 'Pay for an application from a widget',
  description:
    'The checkout of POST /v1/.../apply/checkout for <svc-apply>, with the widget\'s own return URLs instead of `origin`: ' +
    'both must be on the calling page\'s origin or one of the community\'s embed origins (else 400 naming the field), so ' +
    'a checkout in the community\'s name cannot send anyone elsewhere. Same refusals as /v1 otherwise.',
  auth: { kind: 'widget' },
  params: InCommunity,
  body: WidgetApplyCheckoutBody,
  response: { status: 200, schema: ApplyCheckoutResult, description: 'The checkout to send the applicant to' },
  errors: [400, 401, 403, 404, 409, 415, 429, 502, 503],
});

export const APPLICATION_WIDGET_ROUTES = [widgetSubmitApplication, widgetApplyCheckout];
