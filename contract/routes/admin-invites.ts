// The leader console's invite links (docs/leader-console.md, "Invite links"): how an INVITE_ONLY
// community takes members. A link is `/join/<code>` on the community's site; the code is shown once,
// at creation, and only its prefix afterwards (the database keeps its hash alone).
import { z } from 'zod';
import { IsoDateTime, Limit, Line, OptionalOffset, Uuid } from '../common.ts';
import { coded } from '../errors.ts';
import { route } from '../route.ts';
import { ADMIN_BASE, InAdminCommunity } from './admin.ts';

export const INVITE_LIMITS = {
  /** Default lifetime of a link when `expiresAt` is left out. */
  defaultDays: 7,
  /** How far ahead `expiresAt` may be. */
  maxDays: 365,
  maxUses: 100_000,
  note: 200,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

export const InviteStatus = z.enum(['ACTIVE', 'EXPIRED', 'REVOKED', 'USED_UP']);

export const InviteLink = z
  .object({
    id: z.string(),
    prefix: z.string().describe('the first characters of the code: how a link is told apart after creation'),
    status: InviteStatus.describe('ACTIVE until revoked, past `expiresAt`, or used `maxUses` times'),
    segmentId: z.string().nullable().describe('the segment new members are put in; null for none'),
    note: z.string().nullable(),
    expiresAt: z.string(),
    maxUses: z.int().nullable().describe('null: as many as come before `expiresAt`'),
    uses: z.int().describe('members who joined by it so far'),
    createdBy: z.object({ userId: z.string(), name: z.string().nullable() }),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'InviteLink' });
export type InviteLink = z.infer<typeof InviteLink>;

export const CreatedInviteLink = InviteLink.extend({
  code: z.string().describe('the code, shown this once: it cannot be read again'),
  url: z.string().describe("`/join/<code>` on the community's site, shown this once"),
}).meta({ id: 'CreatedInviteLink' });

export const CreateInviteLink = z
  .object({
    expiresAt: IsoDateTime.refine((v) => Date.parse(v) > Date.now(), {
      error: coded('INVALID_DATE', 'must be in the future'),
    })
      .refine((v) => Date.parse(v) <= Date.now() + INVITE_LIMITS.maxDays * DAY_MS, {
        error: coded('INVALID_DATE', `must be at most ${INVITE_LIMITS.maxDays} days ahead`),
      })
      .optional()
      .describe(`when the link stops working; default ${INVITE_LIMITS.defaultDays} days from now`),
    maxUses: z
      .int()
      .min(1)
      .max(INVITE_LIMITS.maxUses)
      .nullable()
      .optional()
      .describe('how many people may join by it; absent or null: no limit but the expiry'),
    segmentId: Uuid.optional().describe('a free segment of this community the new members are put in'),
    note: Line(INVITE_LIMITS.note).optional().describe("the leaders' own note: who the link is for"),
  })
  .strict()
  .meta({ id: 'CreateInviteLink' });
export type CreateInviteLink = z.infer<typeof CreateInviteLink>;

const NOTE =
  "For the community's founder and admins only (`403 NOT_A_LEADER` for anyone else), signed in on its own site; " +
  'writes only from that origin.';

export const createInviteLink = route({
  operationId: 'createInviteLink',
  method: 'post',
  path: `${ADMIN_BASE}/invites`,
  tag: 'Leader console',
  summary: 'Create an invite link',
  description:
    "A link `/join/<code>` on the community's site that makes a signed-in visitor an ACCEPTED member " +
    '(`member.approved`, `approvedBy` null). Only for an INVITE_ONLY community (`409 INVALID_STATE` otherwise). ' +
    'The answer carries the code and the URL this once; afterwards the link is listed by its prefix. ' +
    `A segment must be a free one of this community (\`422 UNPROCESSABLE\`, \`extras.field\` = \`segmentId\`). ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  body: CreateInviteLink,
  response: {
    status: 201,
    schema: CreatedInviteLink,
    description: 'The link, with its code shown once',
    holdsSecret: true,
  },
  errors: [400, 401, 403, 409, 413, 415, 422],
});

export const listInviteLinks = route({
  operationId: 'listInviteLinks',
  method: 'get',
  path: `${ADMIN_BASE}/invites`,
  tag: 'Leader console',
  summary: 'List invite links',
  description: `Every link of the community, newest first (ties by id), with its uses so far and status. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(InviteLink), description: 'A page of links', paginated: true },
  errors: [400, 401, 403],
});

export const revokeInviteLink = route({
  operationId: 'revokeInviteLink',
  method: 'delete',
  path: `${ADMIN_BASE}/invites/{inviteId}`,
  tag: 'Leader console',
  summary: 'Revoke an invite link',
  description:
    'The link stops working at once (its page says it was revoked); the members who joined by it stay. ' +
    `Revoking a revoked link answers it unchanged. Another community's link, or none, is 404. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity.extend({ inviteId: Uuid }),
  response: { status: 200, schema: InviteLink, description: 'The link, revoked' },
  errors: [400, 401, 403, 404],
});

export const ADMIN_INVITE_ROUTES = [createInviteLink, listInviteLinks, revokeInviteLink];
