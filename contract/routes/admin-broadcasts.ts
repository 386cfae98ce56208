// The leader console's broadcasts (docs/leader-console.md, "Broadcasts"): the API of the broadcasts
// issue (contract/routes/broadcasts.ts: the same body, limit, validation and answers) for a
// community's founder and admins on its site, plus what the console shows while composing: the
// sends left in the 24 h window and a preview of one recipient's copy.
import { z } from 'zod';
import { Limit, OptionalOffset, Uuid } from '../common.ts';
import { Broadcast, BroadcastStatus } from '../resources.ts';
import { route } from '../route.ts';
import { ADMIN_BASE, InAdminCommunity } from './admin.ts';
import { BROADCASTS_PER_DAY, BroadcastQueued, CreateBroadcast } from './broadcasts.ts';

const InLeaderBroadcast = InAdminCommunity.extend({ broadcastId: Uuid });

export const BroadcastAllowance = z
  .object({
    limit: z.int().describe(`sends per rolling 24 h (${BROADCASTS_PER_DAY})`),
    used: z.int().describe('counted sends in the busiest 24 h window a send now would join'),
    remaining: z.int().describe('sends that fit now'),
    nextSendAt: z.string().describe('the earliest time a send fits: now when `remaining` > 0'),
  })
  .meta({ id: 'BroadcastAllowance' });

export const BroadcastPreview = z
  .object({
    subject: z.string(),
    html: z.string().nullable().describe('null for a text-only broadcast'),
    text: z.string(),
    recipients: z.int().describe('who it would reach now (1 for a test send)'),
  })
  .meta({ id: 'BroadcastPreview' });

const NOTE =
  "For the community's founder and admins only (`403 NOT_A_LEADER` for anyone else), signed in on its own site; " +
  'writes only from that origin. Without the broadcasts feature every route answers `403 FEATURE_NOT_ENABLED`.';

export const listLeaderBroadcasts = route({
  operationId: 'listLeaderBroadcasts',
  method: 'get',
  path: `${ADMIN_BASE}/broadcasts`,
  tag: 'Leader console',
  summary: 'List broadcasts (console)',
  description: `As \`listBroadcasts\`: newest first, tests and cancelled ones included; \`status\` keeps one. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z
    .object({ limit: Limit, offset: OptionalOffset.describe('default 0'), status: BroadcastStatus.optional() })
    .strict(),
  response: { status: 200, schema: z.array(Broadcast), description: 'A page of broadcasts', paginated: true },
  errors: [400, 401, 403],
});

export const AudienceSegment = z
  .object({
    id: Uuid,
    name: z.string(),
    active: z.boolean().describe('false for a closed segment: nobody joins it, its members are still reached'),
  })
  .meta({ id: 'AudienceSegment' });

// Declared (so mounted) before getLeaderBroadcast, whose `{broadcastId}` would otherwise take `audiences`.
export const listBroadcastAudiences = route({
  operationId: 'listBroadcastAudiences',
  method: 'get',
  path: `${ADMIN_BASE}/broadcasts/audiences`,
  tag: 'Leader console',
  summary: 'Segments a broadcast may go to',
  description:
    "Every segment of the community, closed ones included, in the site's order: the ids `audience.segmentIds` " +
    `takes. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  response: { status: 200, schema: z.array(AudienceSegment), description: "The community's segments" },
  errors: [401, 403],
});

// Declared (so mounted) before getLeaderBroadcast, whose `{broadcastId}` would otherwise take `allowance`.
export const getBroadcastAllowance = route({
  operationId: 'getBroadcastAllowance',
  method: 'get',
  path: `${ADMIN_BASE}/broadcasts/allowance`,
  tag: 'Leader console',
  summary: 'Sends left in the 24 h window',
  description:
    `The limit of ${BROADCASTS_PER_DAY} sends per rolling 24 h judged as a send now would be: \`remaining\` > 0 exactly ` +
    `when a send now is accepted; otherwise \`nextSendAt\` is when one fits. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  response: { status: 200, schema: BroadcastAllowance, description: 'The allowance now' },
  errors: [401, 403],
});

export const getLeaderBroadcast = route({
  operationId: 'getLeaderBroadcast',
  method: 'get',
  path: `${ADMIN_BASE}/broadcasts/{broadcastId}`,
  tag: 'Leader console',
  summary: 'Get one broadcast (console)',
  description: `As \`getBroadcast\`. Another community's broadcast, or none, is 404. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InLeaderBroadcast,
  response: { status: 200, schema: Broadcast, description: 'The broadcast' },
  errors: [400, 401, 403, 404],
});

export const sendLeaderBroadcast = route({
  operationId: 'sendLeaderBroadcast',
  method: 'post',
  path: `${ADMIN_BASE}/broadcasts`,
  tag: 'Leader console',
  summary: 'Send, schedule or test a broadcast (console)',
  description:
    'As `createBroadcast`, with the same body, validation, limit (`429 RATE_LIMITED` with `Retry-After` when it does ' +
    'not fit; `X-RateLimit-*` on the 202) and test budget. Writes an audit entry (`broadcast.send`, ' +
    `\`broadcast.schedule\` or \`broadcast.test\`) with the change. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  body: CreateBroadcast,
  response: { status: 202, schema: BroadcastQueued, description: 'Queued or scheduled' },
  errors: [400, 401, 403, 409, 413, 415, 422, 429],
});

export const previewLeaderBroadcast = route({
  operationId: 'previewLeaderBroadcast',
  method: 'post',
  path: `${ADMIN_BASE}/broadcasts/preview`,
  tag: 'Leader console',
  summary: 'Preview a broadcast',
  description:
    'The subject, html and text one recipient would get, for the signed-in leader as the sample recipient ' +
    '(`{{name}}` is their name; the html sanitized as on send; the footer added, its unsubscribe link a placeholder ' +
    "that unsubscribes nobody), and how many the audience reaches now. The body is the send's and is validated " +
    `alike; nothing is stored, sent or counted, and no audit entry is written. ${NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  body: CreateBroadcast,
  response: { status: 200, schema: BroadcastPreview, description: 'One rendered copy' },
  errors: [400, 401, 403, 413, 415, 422],
});

export const cancelLeaderBroadcast = route({
  operationId: 'cancelLeaderBroadcast',
  method: 'delete',
  path: `${ADMIN_BASE}/broadcasts/{broadcastId}`,
  tag: 'Leader console',
  summary: 'Cancel a scheduled broadcast (console)',
  description:
    'As `cancelBroadcast`: SCHEDULED becomes CANCELLED (an audit entry `broadcast.cancel`); QUEUED, SENDING or SENT ' +
    `is \`409 INVALID_STATE\`; a CANCELLED one is answered unchanged (no entry). ${NOTE}`,
  auth: { kind: 'leader' },
  params: InLeaderBroadcast,
  response: { status: 200, schema: Broadcast, description: 'The broadcast, cancelled' },
  errors: [400, 401, 403, 404, 409, 415],
});

export const ADMIN_BROADCAST_ROUTES = [
  listLeaderBroadcasts,
  listBroadcastAudiences,
  getBroadcastAllowance,
  getLeaderBroadcast,
  sendLeaderBroadcast,
  previewLeaderBroadcast,
  cancelLeaderBroadcast,
];
