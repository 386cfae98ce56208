// The leader console's members (docs/leader-console.md, "Members and the review queue"): the
// directory with private fields and its CSV export, the review queue of PENDING requests with
// their answers (approve, reject), kick, ban, and the admin role (the founder only). Approve,
// reject, kick and ban are the /v1 operations of contract/routes/applications.ts with the leader
// as the actor; their rules and webhooks are those.
import { z } from 'zod';
import { Limit, Line, OptionalOffset, Uuid } from '../common.ts';
import { route } from '../route.ts';
import { ADMIN_BASE, InAdminCommunity } from './admin.ts';
import { ApproveResult, BanResult, KickResult, OkResult } from './applications.ts';

const LEADER_NOTE =
  "For the community's founder and admins (`403 NOT_A_LEADER` for anyone else, a leader of another community " +
  "included); writes only from the community site's own origin. Every change writes one audit-log entry in its " +
  'transaction; a request that changes nothing (a repeat) writes none.';

export const MemberStatus = z.enum(['PENDING', 'ACCEPTED', 'REJECTED', 'BANNED']);
export const MemberRole = z.enum(['founder', 'admin', 'member']);

export const LeaderMember = z
  .object({
    userId: z.string(),
    membershipId: z.string(),
    name: z.string(),
    usertag: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    role: MemberRole,
    status: MemberStatus,
    segment: z.object({ id: z.string(), name: z.string() }).nullable(),
    requestedAt: z.string().describe('when the membership was asked for (the last application; kept on approval)'),
    joinedAt: z.string().nullable().describe('when it was ACCEPTED (null when it never was)'),
    kickedAt: z.string().nullable().describe('set while the member is out by a kick (status REJECTED)'),
    bannedAt: z.string().nullable(),
  })
  .meta({ id: 'LeaderMember' });
export type LeaderMember = z.infer<typeof LeaderMember>;

export const ReviewAnswer = z.object({
  fieldId: z.string(),
  label: z.string().describe("the form field's label (the field id when the form no longer has it)"),
  answer: z.unknown(),
});

export const LeaderReviewRequest = z
  .object({
    requestId: z.string(),
    userId: z.string(),
    name: z.string(),
    usertag: z.string(),
    email: z.string().describe('the address the application was made with'),
    segment: z.object({ id: z.string(), name: z.string() }),
    answers: z.array(ReviewAnswer).describe("in the form's order, then any the form no longer has"),
    source: z.string().nullable(),
    requestedAt: z.string(),
  })
  .meta({ id: 'LeaderReviewRequest' });
export type LeaderReviewRequest = z.infer<typeof LeaderReviewRequest>;

const Search = Line(100)
  .min(1)
  .describe('case-insensitive part of the name, usertag or e-mail (`%` and `_` are literal characters, not wildcards)');
const DirectoryFilter = { q: Search.optional(), status: MemberStatus.optional().describe('one status only') };

const Reason = z
  .string()
  .trim()
  .max(1000)
  .describe('internal note, kept on the audit trail and the audit log; never sent to the person');
const ReasonBody = z.object({ reason: Reason.optional() }).strict();

const WithUser = InAdminCommunity.extend({ userId: Uuid });
const WithRequest = InAdminCommunity.extend({ requestId: Uuid });

export const adminListMembers = route({
  operationId: 'adminListMembers',
  method: 'get',
  path: `${ADMIN_BASE}/members`,
  tag: 'Leader console',
  summary: "The community's members with their private fields",
  description:
    'Every membership of the community, any status (PENDING, ACCEPTED, REJECTED, BANNED; `status` keeps one), oldest ' +
    'request first (ties by membership id), each with the private fields the public directory never shows: e-mail, ' +
    'phone, role, status, segment, when they asked and joined, kicked or banned. `q` searches the name, usertag and ' +
    'e-mail. Page with `limit` and `offset`; `X-Total-Count` and `Link` as on every list. `Cache-Control: no-store`. ' +
    LEADER_NOTE,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0'), ...DirectoryFilter }).strict(),
  response: { status: 200, schema: z.array(LeaderMember), description: 'A page of members', paginated: true },
  errors: [400, 401, 403],
});

export const MEMBER_CSV_HEADER = [
  'user_id',
  'name',
  'usertag',
  'email',
  'phone',
  'role',
  'status',
  'segment',
  'requested_at',
  'joined_at',
  'kicked_at',
  'banned_at',
] as const;

export const adminExportMembers = route({
  operationId: 'adminExportMembers',
  method: 'get',
  path: `${ADMIN_BASE}/members/export`,
  tag: 'Leader console',
  summary: 'The member directory as CSV',
  description:
    `The same members as the directory (\`q\` and \`status\` filter alike), all of them, as \`text/csv\` (RFC 4180, ` +
    `CRLF, a header row \`${MEMBER_CSV_HEADER.join(',')}\`) with \`Content-Disposition: attachment\`. A cell a ` +
    'spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a CR) starts with an apostrophe. ' +
    'Written in batches of 500 as they are read, so a large community is never held in memory. ' +
    LEADER_NOTE,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z.object(DirectoryFilter).strict(),
  response: { status: 200, schema: z.string(), description: 'The CSV file', contentType: 'text/csv' },
  errors: [400, 401, 403],
});

export const adminListRequests = route({
  operationId: 'adminListRequests',
  method: 'get',
  path: `${ADMIN_BASE}/members/requests`,
  tag: 'Leader console',
  summary: 'The review queue',
  description:
    'The PENDING membership requests, oldest first (ties by id), each with the applicant, the segment and the form ' +
    "answers labelled by the segment's form. Paid requests waiting for their payment are not here: the payment " +
    `decides them. Page with \`limit\` and \`offset\`. \`Cache-Control: no-store\`. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(LeaderReviewRequest), description: 'A page of requests', paginated: true },
  errors: [400, 401, 403],
});

export const adminApproveRequest = route({
  operationId: 'adminApproveRequest',
  method: 'post',
  path: `${ADMIN_BASE}/members/requests/{requestId}/approve`,
  tag: 'Leader console',
  summary: 'Approve a request',
  description:
    '`POST /v1/.../applications/{requestId}/approve` with the leader as the actor: the same outcomes and refusals, ' +
    "`member.approved` with `approvedBy` the leader's user id, the notification and the welcome e-mail, all in one " +
    'transaction with the audit entry `member.approve`. Approving again answers the same ids and writes and emits ' +
    `nothing. Takes no body. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: WithRequest,
  response: { status: 200, schema: ApproveResult, description: 'The membership' },
  errors: [400, 401, 403, 404, 409, 422],
});

export const adminRejectRequest = route({
  operationId: 'adminRejectRequest',
  method: 'post',
  path: `${ADMIN_BASE}/members/requests/{requestId}/reject`,
  tag: 'Leader console',
  summary: 'Reject a request',
  description:
    '`POST /v1/.../applications/{requestId}/reject` with the leader as the actor: `member.rejected` with `rejectedBy` ' +
    "the leader's user id, the applicant told without the reason; audit entry `member.reject` (with the reason). " +
    `Rejecting again changes nothing (the first reason stays). ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: WithRequest,
  body: ReasonBody,
  response: { status: 200, schema: OkResult, description: 'Rejected' },
  errors: [400, 401, 403, 404, 409, 415, 422],
});

export const adminKickMember = route({
  operationId: 'adminKickMember',
  method: 'post',
  path: `${ADMIN_BASE}/members/{userId}/kick`,
  tag: 'Leader console',
  summary: 'Kick a member',
  description:
    "`POST /v1/.../members/{userId}/kick` with the leader as the actor (`member.kicked` with `kickedBy` the leader's " +
    'user id; audit entry `member.kick`). The founder cannot be kicked (`409 INVALID_STATE`); an admin can be kicked ' +
    'by the founder only (`403 FOUNDER_ONLY` for an admin), and leaves as a member (a kicked admin who is accepted ' +
    `again is not an admin). ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: WithUser,
  body: ReasonBody,
  response: { status: 200, schema: KickResult, description: 'Removed' },
  errors: [400, 401, 403, 404, 409, 415],
});

export const adminBanMember = route({
  operationId: 'adminBanMember',
  method: 'post',
  path: `${ADMIN_BASE}/members/{userId}/ban`,
  tag: 'Leader console',
  summary: 'Ban a member or applicant',
  description:
    "`POST /v1/.../members/{userId}/ban` with the leader as the actor (`member.banned` with `bannedBy` the leader's " +
    'user id; audit entry `member.ban`). The founder cannot be banned (`409 INVALID_STATE`); an admin can be banned by ' +
    `the founder only (\`403 FOUNDER_ONLY\`). ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: WithUser,
  body: ReasonBody,
  response: { status: 200, schema: BanResult, description: 'Banned' },
  errors: [400, 401, 403, 404, 409, 415],
});

export const MemberRoleChange = z
  .object({ role: z.enum(['admin', 'member']).describe('`admin` promotes, `member` demotes') })
  .strict();

export const MemberRoleResult = z
  .object({ userId: z.string(), role: z.enum(['admin', 'member']) })
  .meta({ id: 'MemberRole' });

export const adminSetMemberRole = route({
  operationId: 'adminSetMemberRole',
  method: 'put',
  path: `${ADMIN_BASE}/members/{userId}/role`,
  tag: 'Leader console',
  summary: 'Make a member an admin, or an admin a member',
  description:
    'The founder only: an admin gets `403 FOUNDER_ONLY`. The member must be ACCEPTED (`409 INVALID_STATE` otherwise); ' +
    "the founder's own role never changes (`409 INVALID_STATE`); a user with no membership here is 404. Setting the " +
    'role a member already has answers 200 and writes nothing. Audit entry `member.role` with the role before and ' +
    `after. No webhook (the catalog has no role event). ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: WithUser,
  body: MemberRoleChange,
  response: { status: 200, schema: MemberRoleResult, description: 'The role now' },
  errors: [400, 401, 403, 404, 409, 415],
});

export const ADMIN_MEMBER_ROUTES = [
  adminListMembers,
  adminExportMembers,
  adminListRequests,
  adminApproveRequest,
  adminRejectRequest,
  adminKickMember,
  adminBanMember,
  adminSetMemberRole,
];
