// Broadcasts: one-shot e-mails to a community's members (issue 17; docs/api.md "Broadcasts").
// The API writes and reads `broadcasts` rows; the dispatcher (server/broadcasts) sends them.
import { z } from 'zod';
import { CommunityTag, Email, IsoDateTime, Limit, Line, OptionalOffset, Uuid } from '../common.ts';
import { coded } from '../errors.ts';
import { Broadcast, BroadcastStatus } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });
const InBroadcast = InCommunity.extend({ broadcastId: Uuid });

export const BROADCAST_LIMITS = {
  subject: 200,
  html: 200_000,
  text: 100_000,
  segments: 100,
  /** How far ahead `sendAt` may be. */
  scheduleDays: 30,
} as const;

/** Sends per rolling 24 h per community (the spec's figure); tests never count. */
export const BROADCASTS_PER_DAY = 5;

const DAY_MS = 24 * 60 * 60 * 1000;

const SendAt = IsoDateTime.refine((v) => Date.parse(v) > Date.now(), {
  error: coded('INVALID_DATE', 'must be in the future'),
})
  .refine((v) => Date.parse(v) <= Date.now() + BROADCAST_LIMITS.scheduleDays * DAY_MS, {
    error: coded('INVALID_DATE', `must be at most ${BROADCAST_LIMITS.scheduleDays} days ahead`),
  })
  .describe(`schedules the send (in the future, at most ${BROADCAST_LIMITS.scheduleDays} days ahead); default now`);

export const CreateBroadcast = z
  .object({
    subject: Line(BROADCAST_LIMITS.subject).min(1, 'must not be empty').describe('one line; `{{name}}` allowed'),
    html: z
      .string()
      .max(BROADCAST_LIMITS.html)
      .optional()
      .describe('HTML, sanitized on write like article content; `{{name}}` allowed'),
    text: z
      .string()
      .max(BROADCAST_LIMITS.text)
      .optional()
      .describe('the plain-text part; derived from `html` when absent'),
    audience: z
      .object({
        segmentIds: z
          .array(Uuid)
          .min(1, 'must list at least one segment; leave `audience` out to send to every member')
          .max(BROADCAST_LIMITS.segments),
      })
      .strict()
      .optional()
      .describe('the members of these segments; absent = every ACCEPTED member'),
    sendAt: SendAt.optional(),
    testTo: Email.optional().describe('sends one copy marked [TEST] to this address instead; never counts'),
  })
  .strict()
  // Cross-field rules answer like every body rule: 400 naming the field (as updateSegment's plan).
  .superRefine((body, ctx) => {
    if (body.html === undefined && body.text === undefined)
      ctx.addIssue({ code: 'custom', path: ['html'], message: 'html or text is required (or both)' });
    if (body.testTo !== undefined && body.sendAt !== undefined)
      ctx.addIssue({ code: 'custom', path: ['sendAt'], message: 'a test send goes at once; leave sendAt out' });
  })
  .meta({ id: 'CreateBroadcast' });
export type CreateBroadcast = z.infer<typeof CreateBroadcast>;

export const BroadcastQueued = z
  .object({
    id: Uuid,
    status: z.enum(['QUEUED', 'SCHEDULED']),
    recipients: z.int().describe('the audience now (1 for a test send)'),
    sendAt: IsoDateTime,
  })
  .meta({ id: 'BroadcastQueued' });

const ACCESS_NOTE =
  'Every broadcast route needs a secret key with `WRITE_BROADCASTS` (or `ADMIN`); the publishable key is refused. ' +
  "Without the broadcasts feature (`broadcasts` in the community's `features`) every route answers " +
  '`403 FEATURE_NOT_ENABLED` after the key, scope and input checks.';

export const createBroadcast = route({
  operationId: 'createBroadcast',
  method: 'post',
  path: `${base}/broadcasts`,
  tag: 'Broadcasts',
  summary: 'Send or schedule a broadcast e-mail',
  description:
    'Queues one e-mail to every ACCEPTED member, or to the members of `audience.segmentIds`; members who unsubscribed ' +
    "from the community's broadcasts are left out. `202 {id, status, recipients, sendAt}`: QUEUED for an immediate " +
    'send, SCHEDULED with `sendAt`. Accepts `Idempotency-Key`.\n\n' +
    `- \`subject\`: one line, 1-${BROADCAST_LIMITS.subject} characters after trimming.\n` +
    `- \`html\` (at most ${BROADCAST_LIMITS.html} characters, sanitized like article content) and/or \`text\` (at most ` +
    `${BROADCAST_LIMITS.text}); neither is \`400 INVALID_INPUT\` with \`extras.field\` = \`html\`, and so is nothing to ` +
    'send (an html empty once sanitized and no text, or a blank text alone; the field is the part given). Without `text` the ' +
    "text part is derived from the html. `{{name}}` (in the subject, html or text) becomes each recipient's name.\n" +
    `- \`audience.segmentIds\`: 1-${BROADCAST_LIMITS.segments} segment ids of this community; an unknown one is ` +
    '`422 UNPROCESSABLE` with `extras.field` = `audience.segmentIds`. An audience with nobody in it is ' +
    '`422 UNPROCESSABLE` (`extras.field` = `audience`).\n' +
    `- \`sendAt\`: an ISO 8601 date-time in the future, at most ${BROADCAST_LIMITS.scheduleDays} days ahead ` +
    '(`400 INVALID_DATE` otherwise).\n' +
    '- `testTo`: sends one copy marked [TEST] to that address (no `sendAt`). A test never counts toward the limit; ' +
    'tests have their own budget of 20 per hour per community.\n\n' +
    `The limit: at most ${BROADCASTS_PER_DAY} sends in any rolling 24 h per community, each counted at its \`sendAt\` ` +
    '(cancelled ones and tests never). The 202 carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`; a send that ' +
    'does not fit is `429 RATE_LIMITED` with `Retry-After` (seconds until it would fit), `X-RateLimit-Reset` (that ' +
    'time, epoch seconds) and `extras.retryAfter`, and changes nothing. ' +
    ACCESS_NOTE,
  auth: { kind: 'apiKey', scope: 'WRITE_BROADCASTS' },
  params: InCommunity,
  body: CreateBroadcast,
  response: { status: 202, schema: BroadcastQueued, description: 'Queued or scheduled' },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429],
});

export const listBroadcasts = route({
  operationId: 'listBroadcasts',
  method: 'get',
  path: `${base}/broadcasts`,
  tag: 'Broadcasts',
  summary: 'List broadcasts',
  description:
    'Every broadcast of the community, test sends and cancelled ones included, newest first (by creation, ties by id). ' +
    'Page with `limit` and `offset`; `X-Total-Count` and `Link` as on every list; `status` keeps one status. ' +
    ACCESS_NOTE,
  auth: { kind: 'apiKey', scope: 'WRITE_BROADCASTS' },
  params: InCommunity,
  query: z
    .object({ limit: Limit, offset: OptionalOffset.describe('default 0'), status: BroadcastStatus.optional() })
    .strict(),
  response: { status: 200, schema: z.array(Broadcast), description: 'A page of broadcasts', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const getBroadcast = route({
  operationId: 'getBroadcast',
  method: 'get',
  path: `${base}/broadcasts/{broadcastId}`,
  tag: 'Broadcasts',
  summary: 'Get one broadcast',
  description:
    "Its status (QUEUED, SCHEDULED, SENDING, SENT, CANCELLED) and counts. Another community's broadcast, or none, is " +
    `404 "Broadcast not found in this community". ${ACCESS_NOTE}`,
  auth: { kind: 'apiKey', scope: 'WRITE_BROADCASTS' },
  params: InBroadcast,
  response: { status: 200, schema: Broadcast, description: 'The broadcast' },
  errors: [400, 401, 403, 404, 429],
});

export const cancelBroadcast = route({
  operationId: 'cancelBroadcast',
  method: 'delete',
  path: `${base}/broadcasts/{broadcastId}`,
  tag: 'Broadcasts',
  summary: 'Cancel a scheduled broadcast',
  description:
    'A SCHEDULED broadcast becomes CANCELLED (200, the broadcast) and stops counting toward the limit. One that is ' +
    'QUEUED, SENDING or SENT is `409 INVALID_STATE`: it is being sent or was sent. Cancelling a CANCELLED broadcast ' +
    "again answers 200 with it unchanged. Another community's broadcast, or none, is 404. Accepts `Idempotency-Key`. " +
    ACCESS_NOTE,
  auth: { kind: 'apiKey', scope: 'WRITE_BROADCASTS' },
  params: InBroadcast,
  response: { status: 200, schema: Broadcast, description: 'The broadcast, cancelled' },
  errors: [400, 401, 403, 404, 409, 429],
});

export const BROADCAST_ROUTES = [createBroadcast, listBroadcasts, getBroadcast, cancelBroadcast];
