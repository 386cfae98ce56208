import { z } from 'zod';
import { AmountCents, CommunityTag, Email, Line, Uuid } from '../common.ts';
import { coded } from '../errors.ts';
import { Segment, SegmentForm } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });
const InSegment = InCommunity.extend({ segmentId: Uuid });

/**
 * What `check-email` reports for an address (the spec leaves the values open): the status of
 * its membership in this community, or NONE. PAYMENT_PENDING is a paid application waiting for
 * its checkout (reported once paid applications exist).
 */
export const CHECK_EMAIL_STATUSES = ['NONE', 'PENDING', 'PAYMENT_PENDING', 'ACCEPTED', 'REJECTED', 'BANNED'] as const;
export const CheckEmailStatus = z.enum(CHECK_EMAIL_STATUSES);
export type CheckEmailStatus = z.infer<typeof CheckEmailStatus>;

export const CheckEmailResult = z
  .object({
    exists: z.boolean().describe('true when the address has a membership (any status) in this community'),
    status: CheckEmailStatus,
  })
  .meta({ id: 'CheckEmailResult' });

/** A price offered, in the smallest currency unit; null stops offering it. */
const OfferPrice = AmountCents.min(1, {
  error: coded('INVALID_AMOUNT', 'must be at least 1; send null to stop offering this price'),
});

/** The installment plan: these four are sent together or not at all. */
export const INSTALLMENT_FIELDS = [
  'installmentTotalPrice',
  'installmentCount',
  'installmentIntervalMonths',
  'installmentRenewsAnnually',
] as const;

export const SegmentPatch = z
  .object({
    name: Line(100).min(1),
    priceMonthly: OfferPrice.nullable(),
    priceQuarterly: OfferPrice.nullable(),
    priceYearly: OfferPrice.nullable(),
    priceOneTime: OfferPrice.nullable(),
    installmentTotalPrice: OfferPrice.nullable(),
    installmentCount: z.int().min(2).max(60).nullable(),
    installmentIntervalMonths: z.int().min(1).max(12).nullable(),
    installmentRenewsAnnually: z.boolean(),
    accessDurationMonths: z.int().min(1).max(120).nullable(),
    isActive: z.boolean(),
  })
  .partial()
  .strict()
  .meta({ id: 'SegmentPatch' });
export type SegmentPatch = z.infer<typeof SegmentPatch>;

export const listPublicSegments = route({
  operationId: 'listPublicSegments',
  method: 'get',
  path: `${base}/segments/public`,
  tag: 'Segments',
  summary: 'List the segments open to new members',
  description:
    "Active segments (member tiers) in display order (`sort_order`, then name), with every field of the spec's Segment; " +
    '`hasForm` is true when the segment has a form. Not paged: a community has few. Cached like the other public reads; a ' +
    "PATCH in this process clears the community's cache at once.",
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  response: { status: 200, schema: z.array(Segment), description: 'Active segments' },
  errors: [401, 403, 429],
});

export const getSegmentForm = route({
  operationId: 'getSegmentForm',
  method: 'get',
  path: `${base}/segments/{segmentId}/form`,
  tag: 'Segments',
  summary: "Get a segment's application form",
  description:
    'A segment without a form answers `{segmentId, schema: []}`. Also answers for an inactive segment (a form already ' +
    'open in a browser can still be read; submitting is where a closed segment is refused). A segment of another ' +
    'community, or none, is 404 "Segment not found in this community".',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InSegment,
  response: { status: 200, schema: SegmentForm, description: 'The form' },
  errors: [400, 401, 403, 404, 429],
});

export const checkSegmentEmail = route({
  operationId: 'checkSegmentEmail',
  method: 'get',
  path: `${base}/segments/{segmentId}/check-email`,
  tag: 'Segments',
  summary: 'Check whether an e-mail address already has a membership',
  description:
    'Lets an application form say "you are already a member" or "your application is pending" before the visitor ' +
    'fills it in. `status` is the membership status of the address in this community, whichever segment it is in, or ' +
    'NONE; the segment in the path only has to exist (404 otherwise). `status` is never null.\n\n' +
    '- `NONE` (`exists: false`): no membership of this community for the address (no account, or an account that never ' +
    'applied: the answer never says which).\n' +
    '- `PENDING`: an application waiting for review. `PAYMENT_PENDING`: a paid application waiting for its checkout (the ' +
    'address has no membership here, or a REJECTED one).\n' +
    '- `ACCEPTED`: a member. `REJECTED`: turned down, or a member who was kicked (both may apply again). `BANNED`.\n\n' +
    'The address is compared case-insensitively; an invalid or missing one is `400 INVALID_EMAIL` (`extras.field` = ' +
    '`email`). With the publishable key, REJECTED and BANNED read as NONE (`exists: false`); a secret key sees every ' +
    'status (docs/decisions/0011-check-email-hides-rejected-and-banned.md). Answers carry `Cache-Control: no-store` and ' +
    'are kept out of the read cache.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InSegment,
  query: z.object({ email: Email }).strict(),
  response: {
    status: 200,
    schema: CheckEmailResult,
    description: 'Whether the address has a membership, and its status',
  },
  errors: [400, 401, 403, 404, 429],
});

export const updateSegment = route({
  operationId: 'updateSegment',
  method: 'patch',
  path: `${base}/segments/{segmentId}`,
  tag: 'Segments',
  summary: 'Change a segment',
  description:
    'Every field optional; only those sent change. Accepts `Idempotency-Key`.\n\n' +
    "- `name`: trimmed, 1-100; another segment's name is `409 SEGMENT_NAME_TAKEN`.\n" +
    '- `priceMonthly`, `priceQuarterly`, `priceYearly`, `priceOneTime`: an integer >= 1 in the smallest currency unit, or ' +
    'null to stop offering that price (0, negative or fractional: `400 INVALID_AMOUNT`). A founding price applies only ' +
    'while its regular price is offered; it is not writable here.\n' +
    '- The installment plan is one unit: `installmentTotalPrice`, `installmentCount` (2-60), `installmentIntervalMonths` ' +
    '(1-12) and `installmentRenewsAnnually` are sent together or not at all (some only: `400 INVALID_INPUT` naming the ' +
    'missing ones, `extras.field` the first, `extras.fields` all). The three numbers are all set (a plan) or all null ' +
    '(no plan); a mix is a 400 naming the first null. The database holds the same rule.\n' +
    '- `accessDurationMonths`: 1-120 or null. `installmentRenewsAnnually: true` needs a plan and an access duration (the ' +
    'cycle repeats every `accessDurationMonths`), judged on the segment as it will be after the patch: removing the ' +
    'duration of a renewing plan is a 400 naming `accessDurationMonths`.\n' +
    '- `isActive: false` closes the segment to new members (it leaves the public list and submit refuses it with a 400) ' +
    'and leaves existing memberships alone; `true` reopens it.\n' +
    '- Unknown fields, including the read-only `foundingMemberCount`, are a 400. Price changes apply to new ' +
    'subscriptions; an existing subscriber keeps their price.',
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: InSegment,
  body: SegmentPatch,
  response: { status: 200, schema: Segment, description: 'The segment as changed' },
  errors: [400, 401, 403, 404, 409, 429],
});

export const SEGMENT_ROUTES = [listPublicSegments, getSegmentForm, checkSegmentEmail, updateSegment];
