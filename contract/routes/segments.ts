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
const OfferPrice = AmountCents.min(1, { error: coded('INVALID_AMOUNT', 'must be at least 1; send null to stop offering this price') });

/** The installment plan: these four are sent together or not at all. */
export const INSTALLMENT_FIELDS = [
  'installmentTotalPrice', 'installmentCount', 'installmentIntervalMonths', 'installmentRenewsAnnually',
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
  description: 'Active segments (member tiers) in display order, with every field. Not paged: a community has few.',
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
  description: 'A segment without a form answers with an empty schema.',
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
    'fills it in. `status` is the membership status of the address in this community, or NONE. Readable with the ' +
    'publishable key, so it tells anyone whether an address is a member: see docs/api.md.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InSegment,
  query: z.object({ email: Email }).strict(),
  response: { status: 200, schema: CheckEmailResult, description: 'Whether the address has a membership, and its status' },
  errors: [400, 401, 403, 404, 429],
});

export const updateSegment = route({
  operationId: 'updateSegment',
  method: 'patch',
  path: `${base}/segments/{segmentId}`,
  tag: 'Segments',
  summary: 'Change a segment',
  description:
    'Every field optional; only those sent change. A price set to null is no longer offered. The four installment ' +
    'fields (`installmentTotalPrice`, `installmentCount`, `installmentIntervalMonths`, `installmentRenewsAnnually`) ' +
    'are sent together or not at all; the three numbers are all set (a plan) or all null (no plan). ' +
    '`isActive: false` closes the segment to new members and leaves existing memberships alone.',
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: InSegment,
  body: SegmentPatch,
  response: { status: 200, schema: Segment, description: 'The segment as changed' },
  errors: [400, 401, 403, 404, 409, 429],
});

export const SEGMENT_ROUTES = [listPublicSegments, getSegmentForm, checkSegmentEmail, updateSegment];
