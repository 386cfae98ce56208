// The leader console's integrations (docs/leader-console.md, "Integrations"): the community's
// secret API keys, its webhook receivers, and their deliveries with the attempt log, replay and
// resend. A key's or a receiver's secret is in the answer that makes it and nowhere else, ever.
import { z } from 'zod';
import { HttpUrl, IsoDateTime, Limit, Line, OptionalOffset, Uuid } from '../common.ts';
import { Scope } from '../enums.ts';
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES } from '../webhook-events.ts';
import { route } from '../route.ts';
import { ADMIN_BASE, InAdminCommunity } from './admin.ts';

const LEADER_NOTE =
  "For the community's founder and admins only, signed in on the community's own site (writes only from the site's own " +
  'origin); anyone else gets `403 NOT_A_LEADER`. Every change is written to the audit log with it.';
const ONCE = 'The secret is in this answer only: it is stored hashed or encrypted and never shown again.';

/** How long the previous signing secret keeps signing after a rotation, at most. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

const InKey = InAdminCommunity.extend({ keyId: Uuid });
const InReceiver = InAdminCommunity.extend({ endpointId: Uuid });
const InDelivery = InReceiver.extend({
  deliveryId: z.string().regex(/^del_[0-9a-f]{32}$/, 'must be a delivery id (del_ and 32 hex digits)'),
});

export const SecretKey = z
  .object({
    id: z.string(),
    prefix: z.string().describe('the first characters of the key (`sk_live_AbC1…`), to recognise it by'),
    name: z.string().nullable(),
    scopes: z.array(Scope),
    createdAt: z.string(),
    lastUsedAt: z
      .string()
      .nullable()
      .describe('the last request the key authenticated, to the minute; null when never used'),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'SecretKey' });

export const CreatedSecretKey = z
  .object({ key: SecretKey, secret: z.string().describe(`the whole \`sk_live_\` key. ${ONCE}`) })
  .meta({ id: 'CreatedSecretKey' });

const EventName = z.enum([ALL_EVENTS, ...WEBHOOK_EVENT_NAMES] as [string, ...string[]], {
  error: `must be an event name (${WEBHOOK_EVENT_NAMES.join(', ')}) or * for every event`,
});
const Events = z
  .array(EventName)
  .min(1, 'must list at least one event, or * for every event')
  .max(WEBHOOK_EVENT_NAMES.length + 1)
  .describe('event names from the catalog, or `["*"]` for every event, present and future');
const Description = Line(1000).nullable().describe('a note to recognise the receiver by');

export const WebhookReceiver = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    status: z.enum(['ENABLED', 'DISABLED', 'REMOVED']),
    disabledReason: z.string().nullable(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .describe('during a rotation: until when deliveries are also signed with the previous secret'),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookReceiver' });

export const CreatedWebhookReceiver = z
  .object({
    receiver: WebhookReceiver,
    secret: z.string().describe(`the signing secret (\`whsec_...\`) receivers verify \`Svc-Signature\` with. ${ONCE}`),
  })
  .meta({ id: 'CreatedWebhookReceiver' });

const DeliveryStatus = z.enum(['PENDING', 'SUCCEEDED', 'PERMANENTLY_FAILED', 'CANCELLED']);

export const WebhookDelivery = z
  .object({
    id: z.string().describe('`del_...`, the `Svc-Delivery-Id` of every attempt'),
    event: z.string(),
    eventId: z.string(),
    status: DeliveryStatus,
    attempts: z.number().int().describe('attempts in the current round'),
    totalAttempts: z.number().int(),
    round: z.number().int().describe('1, plus one per replay or resend'),
    nextAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookAttempt = z
  .object({
    number: z.number().int(),
    round: z.number().int(),
    outcome: z.enum(['SUCCEEDED', 'FAILED', 'ABANDONED']),
    startedAt: z.string(),
    durationMs: z.number().int().nullable(),
    statusCode: z.number().int().nullable(),
    responseBody: z.string().nullable().describe("the first 4 KiB of the receiver's answer"),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDeliveryDetail = z
  .object({ delivery: WebhookDelivery, attempts: z.array(WebhookAttempt) })
  .meta({ id: 'WebhookDeliveryDetail' });

const TAG = 'Leader console' as const;
const auth = { kind: 'leader' } as const;

// ---------------------------------------------------------------------------------------------
// Secret keys

export const listSecretKeys = route({
  operationId: 'listSecretKeys',
  method: 'get',
  path: `${ADMIN_BASE}/keys`,
  tag: TAG,
  summary: "The community's secret keys",
  description: `Every secret key, live and revoked, oldest first, by prefix with its scopes and last use; never a secret. ${LEADER_NOTE}`,
  auth,
  params: InAdminCommunity,
  response: { status: 200, schema: z.array(SecretKey), description: 'The keys' },
  errors: [401, 403],
});

export const createSecretKey = route({
  operationId: 'createSecretKey',
  method: 'post',
  path: `${ADMIN_BASE}/keys`,
  tag: TAG,
  summary: 'Create a secret key',
  description:
    `A new \`sk_live_\` key for \`/v1\` with these scopes. Only the founder may give a key \`WRITE_MEMBERS\` or \`ADMIN\` ` +
    '(an admin gets `403 FOUNDER_ONLY` naming `scopes`): with those a key removes admins, which admins may not do to each other. ' +
    `${ONCE} ${LEADER_NOTE}`,
  auth,
  params: InAdminCommunity,
  body: z
    .object({
      name: Line(100).min(1, 'must not be empty').optional().describe('a label to recognise the key by'),
      scopes: z
        .array(Scope)
        .min(1, 'must list at least one scope')
        .max(5)
        .describe('ADMIN satisfies every scope; a key gets no scope it is not given'),
    })
    .strict(),
  response: {
    status: 201,
    schema: CreatedSecretKey,
    description: 'The key, with its secret this once',
    holdsSecret: true,
  },
  errors: [400, 401, 403],
});

export const revokeSecretKey = route({
  operationId: 'revokeSecretKey',
  method: 'post',
  path: `${ADMIN_BASE}/keys/{keyId}/revoke`,
  tag: TAG,
  summary: 'Revoke a secret key',
  description:
    'The key stops working at once on this server, and within `SVC_KEY_CACHE_MS` (5 s) on every other. ' +
    `Revoking a revoked key changes nothing. ${LEADER_NOTE}`,
  auth,
  params: InKey,
  response: { status: 200, schema: SecretKey, description: 'The key, revoked' },
  errors: [401, 403, 404],
});

// ---------------------------------------------------------------------------------------------
// Webhook receivers

export const listWebhookReceivers = route({
  operationId: 'listWebhookReceivers',
  method: 'get',
  path: `${ADMIN_BASE}/webhooks`,
  tag: TAG,
  summary: "The community's webhook receivers",
  description: `Enabled and disabled receivers, oldest first (deleted ones are not listed); never a secret. ${LEADER_NOTE}`,
  auth,
  params: InAdminCommunity,
  response: { status: 200, schema: z.array(WebhookReceiver), description: 'The receivers' },
  errors: [401, 403],
});

export const createWebhookReceiver = route({
  operationId: 'createWebhookReceiver',
  method: 'post',
  path: `${ADMIN_BASE}/webhooks`,
  tag: TAG,
  summary: 'Register a webhook receiver',
  description:
    'The URL must be `https://` on a public address (the SSRF guard of docs/webhooks.md; a refused URL is `400` with ' +
    `\`extras.field\` \`url\`). ${ONCE} ${LEADER_NOTE}`,
  auth,
  params: InAdminCommunity,
  body: z
    .object({
      url: HttpUrl,
      events: Events.optional().describe('default `["*"]`, every event'),
      description: Description.optional(),
    })
    .strict(),
  response: {
    status: 201,
    schema: CreatedWebhookReceiver,
    description: 'The receiver, with its secret this once',
    holdsSecret: true,
  },
  errors: [400, 401, 403],
});

export const getWebhookReceiver = route({
  operationId: 'getWebhookReceiver',
  method: 'get',
  path: `${ADMIN_BASE}/webhooks/{endpointId}`,
  tag: TAG,
  summary: 'One webhook receiver',
  description: `Deleted receivers too (their deliveries stay readable). ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  response: { status: 200, schema: WebhookReceiver, description: 'The receiver' },
  errors: [401, 403, 404],
});

export const updateWebhookReceiver = route({
  operationId: 'updateWebhookReceiver',
  method: 'patch',
  path: `${ADMIN_BASE}/webhooks/{endpointId}`,
  tag: TAG,
  summary: "Change a receiver's URL, events or description",
  description:
    'A new URL passes the SSRF guard as at registration. New events apply to events emitted from now on; deliveries ' +
    `already made go to the receiver's URL as it is when they are sent. ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  body: z
    .object({ url: HttpUrl.optional(), events: Events.optional(), description: Description.optional() })
    .strict()
    .refine((b) => Object.keys(b).length > 0, 'must change at least one of url, events, description'),
  response: { status: 200, schema: WebhookReceiver, description: 'The receiver' },
  errors: [400, 401, 403, 404, 409],
});

const statusChange = <O extends string>(
  operationId: O,
  verb: 'enable' | 'disable',
  summary: string,
  description: string,
) =>
  route({
    operationId,
    method: 'post',
    path: `${ADMIN_BASE}/webhooks/{endpointId}/${verb}`,
    tag: TAG,
    summary,
    description: `${description} ${LEADER_NOTE}`,
    auth,
    params: InReceiver,
    response: { status: 200, schema: WebhookReceiver, description: 'The receiver' },
    errors: [401, 403, 404, 409],
  });

export const enableWebhookReceiver = statusChange(
  'enableWebhookReceiver',
  'enable',
  'Enable a receiver',
  'New events are delivered to it again; deliveries cancelled while it was off stay cancelled (replay them).',
);
export const disableWebhookReceiver = statusChange(
  'disableWebhookReceiver',
  'disable',
  'Disable a receiver',
  'Nothing is sent to it and its pending deliveries are cancelled, until it is enabled.',
);

export const rotateWebhookSecret = route({
  operationId: 'rotateWebhookSecret',
  method: 'post',
  path: `${ADMIN_BASE}/webhooks/{endpointId}/rotate-secret`,
  tag: TAG,
  summary: "Rotate a receiver's signing secret",
  description:
    'A new secret. For `overlapSeconds` (default 86400, 24 h; 0 ends the old one at once) every delivery carries two ' +
    `\`v1=\` signatures in \`Svc-Signature\`, one per secret, so the receiver switches without rejecting any. ${ONCE} ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  body: z
    .object({
      overlapSeconds: z
        .number()
        .int('must be a whole number of seconds')
        .min(0)
        .max(MAX_ROTATION_OVERLAP_SECONDS)
        .optional(),
    })
    .strict(),
  response: {
    status: 200,
    schema: CreatedWebhookReceiver,
    description: 'The receiver, with its new secret this once',
    holdsSecret: true,
  },
  errors: [400, 401, 403, 404, 409],
});

export const deleteWebhookReceiver = route({
  operationId: 'deleteWebhookReceiver',
  method: 'delete',
  path: `${ADMIN_BASE}/webhooks/{endpointId}`,
  tag: TAG,
  summary: 'Delete a receiver',
  description:
    'Nothing more is sent to it, its pending deliveries are cancelled and its secrets erased; its delivery history ' +
    `stays readable. Deleting it again changes nothing. ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  response: { status: 200, schema: WebhookReceiver, description: 'The receiver, REMOVED' },
  errors: [401, 403, 404],
});

// ---------------------------------------------------------------------------------------------
// Deliveries

export const listWebhookDeliveries = route({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: `${ADMIN_BASE}/webhooks/{endpointId}/deliveries`,
  tag: TAG,
  summary: "A receiver's deliveries",
  description: `Newest first; \`status\` keeps one state. Each delivery's attempt log is its own read. ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  query: z.object({ status: DeliveryStatus.optional(), limit: Limit, offset: OptionalOffset }).strict(),
  response: { status: 200, schema: z.array(WebhookDelivery), description: 'A page of deliveries', paginated: true },
  errors: [400, 401, 403, 404],
});

export const getWebhookDelivery = route({
  operationId: 'getWebhookDelivery',
  method: 'get',
  path: `${ADMIN_BASE}/webhooks/{endpointId}/deliveries/{deliveryId}`,
  tag: TAG,
  summary: 'A delivery with its attempt log',
  description: `Every attempt: round, outcome, start, duration, status code, the start of the response body, error. ${LEADER_NOTE}`,
  auth,
  params: InDelivery,
  response: { status: 200, schema: WebhookDeliveryDetail, description: 'The delivery and its attempts' },
  errors: [400, 401, 403, 404],
});

export const replayWebhookDelivery = route({
  operationId: 'replayWebhookDelivery',
  method: 'post',
  path: `${ADMIN_BASE}/webhooks/{endpointId}/deliveries/{deliveryId}/replay`,
  tag: TAG,
  summary: 'Replay a delivery',
  description:
    'Sends the delivery again, in any state, with the same `Svc-Delivery-Id` and body and a fresh signature: a new round ' +
    "with the full retry schedule, queued for the server's delivery worker (its attempts appear in the log). The " +
    `receiver must be enabled (\`409\` otherwise). ${LEADER_NOTE}`,
  auth,
  params: InDelivery,
  response: { status: 202, schema: WebhookDelivery, description: 'The delivery, queued' },
  errors: [400, 401, 403, 404, 409],
});

export const resendWebhookDeliveries = route({
  operationId: 'resendWebhookDeliveries',
  method: 'post',
  path: `${ADMIN_BASE}/webhooks/{endpointId}/resend`,
  tag: TAG,
  summary: 'Resend failed deliveries',
  description:
    'Requeues every `PERMANENTLY_FAILED` delivery of the receiver created at or after `since`, each with its own id, ' +
    `as a replay does. The receiver must be enabled (\`409\` otherwise). ${LEADER_NOTE}`,
  auth,
  params: InReceiver,
  body: z.object({ since: IsoDateTime }).strict(),
  response: {
    status: 202,
    schema: z.object({ requeued: z.array(z.string()).describe('the delivery ids queued, sorted') }),
    description: 'What was queued',
  },
  errors: [400, 401, 403, 404, 409],
});

export const ADMIN_INTEGRATIONS_ROUTES = [
  listSecretKeys,
  createSecretKey,
  revokeSecretKey,
  listWebhookReceivers,
  createWebhookReceiver,
  getWebhookReceiver,
  updateWebhookReceiver,
  enableWebhookReceiver,
  disableWebhookReceiver,
  rotateWebhookSecret,
  deleteWebhookReceiver,
  listWebhookDeliveries,
  getWebhookDelivery,
  replayWebhookDelivery,
  resendWebhookDeliveries,
];
