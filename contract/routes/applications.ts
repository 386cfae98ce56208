// Membership requests: a server submits an application to a segment, reviews it (approve,
// reject), and removes members (kick, ban). Decisions the spec leaves open: docs/api.md,
// "Membership requests".
import { z } from 'zod';
import { CommunityTag, Line, ReturnUrl, Uuid } from '../common.ts';
import { BillingCycle } from '../enums.ts';
import { route, WIDGET_ACTIONS_BASE } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

const Reason = z
  .string()
  .trim()
  .max(1000)
  .describe('internal note, stored on the audit trail; never sent to the person');
const OptionalReasonBody = z.object({ reason: Reason.optional() }).strict();

export const SubmitApplicationBody = z
  .object({
    answers: z
      .record(z.string().max(64), z.unknown())
      .describe(
        'answers keyed by form field id. The e-mail field and the first short-text field whose label contains "name" are ' +
          'required whatever the form says; a segment whose form lacks them takes them as `email` and `name`.',
      ),
    source: Line(200)
      .optional()
      .describe('free-form attribution (a campaign, a page); persisted and sent in member.requested'),
    billingCycle: BillingCycle.optional().describe(
      'required when the segment offers more than one cycle; must be one it offers',
    ),
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

export const ApproveResult = z
  .object({ ok: z.literal(true), membershipId: Uuid, userId: Uuid })
  .meta({ id: 'ApplicationApproved' });
export const OkResult = z.object({ ok: z.literal(true) });
export const KickResult = z.object({ ok: z.literal(true), kickedAt: z.iso.datetime() });
export const BanResult = z.object({ ok: z.literal(true), bannedAt: z.iso.datetime() });

const SUBMIT_DESCRIPTION =
  'Records an application to the segment and answers 201. Accepts `Idempotency-Key`.\n\n' +
  '- **Answers** are keyed by form field id and checked as tier form answers are (types, options, required; unknown ' +
  'ids refused). The form\'s first `email` field and its first `short_text` field whose label contains "name" (any ' +
  "case) are required whatever the form says: they are the applicant's address and name. A segment without a form, or " +
  "whose form lacks one of them, takes them as `email` and `name`. Missing answers are `400 INVALID_INPUT` (the spec's " +
  '400) with `extras.field` `answers.<id>` and `extras.fields`. Answers are stored trimmed, empty optional ones dropped.\n' +
  '- **The account**: the address (lower-cased) finds the user, or creates one with the name answered, a usertag made ' +
  'from it and no password (a password reset sets one). An existing account is matched, never renamed.\n' +
  '- **Billing cycle**: a segment offers `MONTHLY`, `QUARTERLY`, `YEARLY`, `ONE_TIME` for each of its prices that is set, ' +
  'and `INSTALLMENT_PLAN` when it has a plan; none offered is a free segment. Offering more than one, `billingCycle` is ' +
  'required; one sent must be offered (a free segment takes none): else `400 INVALID_INPUT` on `billingCycle` with ' +
  '`extras.offered`. Offering exactly one, it is used.\n' +
  '- **Outcome**: a free auto-approving segment (`autoApprove`) in an OPEN, live community (one with a founder: ' +
  'auto-approval admits people nobody looks at, so a community nobody owns reviews everything) is ' +
  'APPROVED at once: membership ACCEPTED, `member.approved` (approvedBy null), the `membership.approved` notification ' +
  'and a welcome e-mail; answer `{success, requestId, requestStatus, segmentName, segmentId}`. Any other free segment ' +
  'is PENDING (membership PENDING, `member.requested` with `source`, a "received" e-mail). A paid segment answers ' +
  '`{success, requestId, paymentRequired: true, segmentId, segmentName}` with the request PAYMENT_PENDING and no ' +
  'membership yet, emitting nothing until it is paid (POST /apply/checkout).\n' +
  '- **Refusals**, checked in this order (community, segment, answers, cycle, then the address), nothing written when ' +
  'any fails: INVITE_ONLY communities have no apply route (`403 FEATURE_NOT_ENABLED` "This community is invite-only"); ' +
  'no such segment is 404; a closed segment (`isActive: false`) is `400 INVALID_INPUT` (`extras.field` = `segmentId`); ' +
  '`400 ALREADY_MEMBER` for an address with an ACCEPTED membership here (any segment: changing segment is not a ' +
  'submit); `400 APPLICATION_PENDING` for one with a PENDING membership, or when a concurrent submit of the same address ' +
  'won; `403 APPLICANT_BANNED` for a banned address.\n' +
  '- A new submit from an address whose request is still PAYMENT_PENDING (an abandoned checkout) closes that one as ' +
  'CANCELLED and goes on, so an abandoned checkout locks no one out. A REJECTED applicant and a kicked member may apply ' +
  'again (the same membership starts over, `createdAt` the new submission); a banned address never can.\n' +
  '- A segment has no member capacity in v1: it never sells out (the founding cap only ends the founding price); ' +
  'closing it is how a community stops taking members into it.\n' +
  '- One open (PENDING or PAYMENT_PENDING) request per person and community: concurrent submits of one address make one ' +
  'account and one request.';

export const submitApplication = route({
  operationId: 'submitApplication',
  method: 'post',
  path: `${base}/segments/{segmentId}/submit`,
  tag: 'Segments',
  summary: 'Apply to a segment',
  description: SUBMIT_DESCRIPTION,
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ segmentId: Uuid }),
  body: SubmitApplicationBody,
  response: {
    status: 201,
    schema: z.union([SubmitFreeResult, SubmitPaidResult]),
    description: 'The request, approved, pending or waiting for payment',
  },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const approveApplication = route({
  operationId: 'approveApplication',
  method: 'post',
  path: `${base}/applications/{requestId}/approve`,
  tag: 'Applications',
  summary: 'Approve an application',
  description:
    'A PENDING request becomes APPROVED and its membership ACCEPTED (accepted now, `createdAt` kept at the submission); ' +
    '`member.approved` fires with `approvedBy` the id of the API key (the identity a server call has), with the ' +
    '`membership.approved` notification and a welcome e-mail. Approving an APPROVED request again answers 200 with the ' +
    'same ids and fires, notifies and e-mails nothing (concurrent approvals make one change, one event). A REJECTED ' +
    'request is `422 UNPROCESSABLE` (the spec), and so is a PAYMENT_PENDING one (its payment accepts it) or a CANCELLED ' +
    'one. An unknown request id, or another community\'s, is 404 "Application not found in this community". There is no ' +
    'list endpoint in v1: request ids come from the submit answer and `member.requested`. Takes no body.',
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
    'A PENDING (or unpaid PAYMENT_PENDING) request becomes REJECTED, with its membership (an unpaid request gets a ' +
    'REJECTED membership, so the person sees the answer); `member.rejected` fires and the applicant is e-mailed that it ' +
    'was not accepted. `reason` (up to 1000 characters) is stored on the request only, never in an e-mail, a webhook or ' +
    'any response. Rejecting a REJECTED request again is 200 and changes nothing (the first reason stays). An APPROVED ' +
    "request is 422 (kick the member instead). Unknown or another community's request: 404.",
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
    'The ACCEPTED membership becomes REJECTED (`platforms.svc.status` KICKED, docs/decisions/0012-a-kick-leaves-rejected.md) ' +
    "and leaves the directory at once (the write clears the community's read cache); `member.kicked` fires; the reason " +
    '(up to 1000 characters), the key that acted and the time go on the audit trail. The person may apply again (the ' +
    'next submit starts over; a kicked admin comes back with the member role). Kicking again answers the first ' +
    '`kickedAt` and records and emits nothing. No e-mail is ' +
    'sent. 404 "Member not found in this community" when the user has no membership here; `409 INVALID_STATE` for one ' +
    'that is not ACCEPTED (an applicant is rejected, not kicked; a banned member stays banned), or the founder.',
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
    'Irreversible (there is no unban in v1): from PENDING, ACCEPTED, REJECTED or only an unpaid request, the membership ' +
    "becomes BANNED (`platforms.svc.status` BANNED), leaves the directory at once, the person's open applications are " +
    'closed (CANCELLED; approving one is 422), and the address can never apply again (`403 APPLICANT_BANNED`). ' +
    '`member.banned` fires; the reason, the key that acted and the time go on the audit trail. Banning again answers the ' +
    'first `bannedAt` and records and emits nothing. No e-mail is sent. 404 "Member not found in this community" when ' +
    'the user has neither a membership nor an application here; `409 INVALID_STATE` for the founder.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity.extend({ userId: Uuid }),
  body: OptionalReasonBody,
  response: { status: 200, schema: BanResult, description: 'Banned' },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const ApplyCheckoutBody = z
  .object({
    requestId: Uuid.describe('a PAYMENT_PENDING request of this community (from the paid submit)'),
    origin: Line(2048)
      .optional()
      .describe(
        "`scheme://host[:port]` of the page the applicant came from: one of the community's embed origins or its hosted " +
          'site (custom domain or `<tag>.localhost`). Success returns to `<origin>/?svc_apply=success&session={CHECKOUT_SESSION_ID}`, ' +
          "cancel to `<origin>/?svc_apply=cancelled&request=<requestId>`. Without it, the landing URL's origin, else the hosted site.",
      ),
  })
  .strict();

export const ApplyCheckoutResult = z
  .object({
    checkoutUrl: z.string().describe('send the applicant here'),
    sessionId: z.string().describe("the processor's session id (what {CHECKOUT_SESSION_ID} becomes)"),
  })
  .meta({ id: 'ApplyCheckoutResponse' });

const APPLY_CHECKOUT_DESCRIPTION =
  'Opens the payment of a PAYMENT_PENDING request at the price of its billing cycle; answers `{checkoutUrl, sessionId}`. ' +
  'The same `Idempotency-Key` (or `X-Idempotency-Key`) answers the same session.\n\n' +
  '- **Which requests**: a PAYMENT_PENDING request of this community; any other status is `400 INVALID_INPUT` ' +
  "(`extras.field` = `requestId`, `extras.status`); an unknown id or another community's is 404. The segment must still " +
  "price the request's billing cycle (a PATCH may have set it to null since), else `400 INVALID_INPUT` naming the " +
  'cycle; a closed segment is 400. Payments off: `503 SERVICE_UNAVAILABLE`; the processor refused: ' +
  '`502 PAYMENT_PROCESSOR_ERROR`.\n' +
  '- **One open checkout per request**: asking again while it is open answers that same checkout (no second session, no ' +
  'second founding spot); once it expired or was cancelled, a new one opens.\n' +
  '- **Prices** (minor units), fixed into the checkout and the billing record at purchase: MONTHLY / QUARTERLY / YEARLY ' +
  'charge `priceMonthly` / `priceQuarterly` / `priceYearly` (the founding price while spots are left) every period, a ' +
  'subscription giving 1 / 3 / 12 months of access, extended by each renewal. ONE_TIME charges `priceOneTime` once, for ' +
  '`accessDurationMonths` (none set: no end). INSTALLMENT_PLAN charges `installmentCount` times ' +
  '`floor(installmentTotalPrice / installmentCount)` every `installmentIntervalMonths`, the remainder added to the ' +
  'first charge (1000 in 3: 334, 333, 333), for `accessDurationMonths` from the first charge; with ' +
  '`installmentRenewsAnnually` the next cycle starts when the access ends (its first charge carries the remainder again).\n' +
  '- **Founding prices** (`foundingPriceMonthly/Quarterly/Yearly`; ONE_TIME and installments have none) apply instead ' +
  'of the regular price while `foundingMemberCount < foundingMemberCap` (a null cap: while the price is set). A spot is ' +
  'taken when the checkout opens, given back when it expires or is cancelled, kept when it is paid ' +
  '(docs/decisions/0017-founding-spot-taken-when-checkout-opens.md).\n' +
  '- **Price changes**: an existing member keeps paying what they bought, for every renewal of that subscription; the ' +
  'new price applies to new checkouts, including a member who buys again after their access ended.\n' +
  "- **Completion** (never the redirect: a verified Stripe event, or the local page's Pay), once however often or " +
  'concurrently it is delivered: the request APPROVED, the membership ACCEPTED, `member.approved` with ' +
  '`approvedBy: null` (the payment approved it), the `membership.approved` notification, the welcome e-mail, and a ' +
  "billing record (cycle, price per charge, founding, access until, next charge, installments paid, the processor's " +
  'subscription id) with its first charge. A payment for a request a reviewer REJECTED meanwhile, or by a banned person, ' +
  'admits nobody, gives the founding spot back and is logged (`paid membership not granted`) for a person to refund.\n' +
  "- **Refunds**: a full refund of the purchase's payment ends the membership as a kick would (REJECTED, KICKED, may " +
  'apply again), `member.kicked` with `kickedBy: null` and "payment refunded" on the audit trail, the billing REFUNDED ' +
  "and a founding spot given back. Refunds of a subscription's later invoices are not mapped in v1.\n" +
  '- **End of access**: a subscription that ends (Stripe `customer.subscription.deleted`, or an installment plan after ' +
  'its last charge) keeps access until its paid period is over (a plan stopped early: until its unpaid installment was ' +
  'due); the server then ends the membership within 10 minutes (or at once with `svc payments lapse`), like a kick ' +
  '("access ended", `member.kicked`, kickedBy null). Renewals with the local gateway: `svc payments renew` ' +
  '(docs/payments.md).';

export const applyCheckout = route({
  operationId: 'applyCheckout',
  method: 'post',
  path: `${base}/apply/checkout`,
  tag: 'Segments',
  summary: 'Open the checkout of a paid application',
  description:
    `${APPLY_CHECKOUT_DESCRIPTION}\n\n` +
    "`origin` must be one of the community's origins (an embed origin, its landing URL's origin, or a hosted site: a " +
    "registered domain or `<tag>.localhost` on the platform's scheme and port); anything else (another host, a path, " +
    "another scheme) is `400 INVALID_INPUT` on `origin`. Without it: the landing URL's origin, else the first " +
    'registered domain, else `<tag>.localhost`.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: InCommunity,
  body: ApplyCheckoutBody,
  response: { status: 200, schema: ApplyCheckoutResult, description: 'The checkout to send the applicant to' },
  errors: [400, 401, 403, 404, 409, 415, 429, 502, 503],
});

export const APPLICATION_ROUTES = [
  submitApplication,
  approveApplication,
  rejectApplication,
  kickMember,
  banMember,
  applyCheckout,
];

// <svc-apply>'s writes: the same submit and checkout as widget actions, for a page with only the
// publishable key (or the hosted site). See docs/api.md "Widget actions" and docs/widgets.md.
const actions = WIDGET_ACTIONS_BASE;

export const WidgetApplyCheckoutBody = z
  .object({
    requestId: Uuid.describe('a PAYMENT_PENDING request of this community (from the paid submit)'),
    successUrl: ReturnUrl.describe(
      "where the applicant comes back after paying: on the calling page's origin or another embed origin " +
        '(`{CHECKOUT_SESSION_ID}` is filled in)',
    ),
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
    `${SUBMIT_DESCRIPTION}\n\n` +
    'The same submit as `POST /v1/.../segments/{segmentId}/submit`, for <svc-apply>, called with the publishable key ' +
    'from an embed origin or keyless on the hosted site. Anyone with the page may apply any address, as on the hosted ' +
    'application form: what it can do is what /v1 submit does for that address, bounded by the per-IP budget. A ' +
    'signed-in visitor applies with the e-mail typed in the form, like anyone. The rules are shown by the widget, not ' +
    'accepted here: `POST /rules/accept` needs an ACCEPTED member, so a community that records acceptance does so from ' +
    'its server once the member is accepted (`member.approved`).',
  auth: { kind: 'widget' },
  params: InCommunity.extend({ segmentId: Uuid }),
  body: SubmitApplicationBody,
  response: {
    status: 201,
    schema: z.union([SubmitFreeResult, SubmitPaidResult]),
    description: 'The request, approved, pending or waiting for payment',
  },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const widgetApplyCheckout = route({
  operationId: 'widgetApplyCheckout',
  method: 'post',
  path: `${actions}/apply/checkout`,
  tag: 'Community site',
  summary: 'Pay for an application from a widget',
  description:
    `${APPLY_CHECKOUT_DESCRIPTION}\n\n` +
    "The checkout of `POST /v1/.../apply/checkout` for <svc-apply>, with the widget's own return URLs instead of " +
    '`origin` (the page it is on, with `svc_apply=success|cancelled&svc_segment=<id>`, so the applicant comes back to ' +
    "the widget): both must be on the calling page's origin or another of the community's own origins (else " +
    "`400 INVALID_INPUT` naming the field, nothing opened), so a checkout in the community's name cannot send anyone " +
    'elsewhere.',
  auth: { kind: 'widget' },
  params: InCommunity,
  body: WidgetApplyCheckoutBody,
  response: { status: 200, schema: ApplyCheckoutResult, description: 'The checkout to send the applicant to' },
  errors: [400, 401, 403, 404, 409, 415, 429, 502, 503],
});

export const APPLICATION_WIDGET_ROUTES = [widgetSubmitApplication, widgetApplyCheckout];
