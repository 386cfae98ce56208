// `svc webhook ...`: outgoing webhook receivers (add, list, enable, disable, remove, rotate the
// signing secret) and their delivery log (deliveries, attempts, replay, resend). A signing secret
// is printed once, when it is made; lists never show one. Replay and resend send at once from
// this process (with the same worker code the server runs) unless --queue-only leaves the
// sending to the server's delivery worker.
import type { Command } from 'commander';
import pino from 'pino';
import { IsoDateTime } from '../../contract/common.ts';
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES } from '../../contract/webhook-events.ts';
import { parseDuration } from '../shared/duration.ts';
import type { Db } from '../db/index.ts';
import type { WebhookDeliveryStatus, WebhookEndpointStatus } from '../db/schema.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import { createLogger } from '../http/logger.ts';
import {
  DELIVERY_STATUSES,
  getDelivery,
  listAttempts,
  listDeliveries,
  replayDelivery,
  resendFailed,
  type AttemptSummary,
  type DeliverySummary,
} from '../webhooks/deliveries.ts';
import {
  createEndpoint,
  disableEndpoint,
  enableEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  type EndpointSummary,
} from '../webhooks/endpoints.ts';
import type { AttemptResult } from '../webhooks/send.ts';
import { systemLookup } from '../webhooks/ssrf.ts';
import { DeliveryWorker } from '../webhooks/worker.ts';
import { CliError, note, out, printJson, table, withDatabase, type CliContext, type JsonOption } from './runtime.ts';
import { sayWhatMoved } from './console-moved.ts';

const MAX_DESCRIPTION = 1000;
const MAX_LIST = 1000;
const BODY_EXCERPT_CHARS = 80;

// ---------------------------------------------------------------------------------------------
// Option parsing: every value is checked before the database is opened.

function parseEvents(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (events.length === 0)
    throw new CliError(
      `--events needs at least one event name, or * for all (known: ${WEBHOOK_EVENT_NAMES.join(', ')})`,
    );
  // Unknown names are refused by createEndpoint, with the list of known ones.
  return events;
}

/** `24h`, `30m`, `90s`, `1d`; `0` or `0s` ends the old secret at once. */
function parseOverlap(value: string): number {
  const ms = value.trim() === '0' ? 0 : parseDuration(value);
  if (ms === null)
    throw new CliError(
      `--overlap must be a duration such as 24h, 30m or 90s, or 0 to end the old secret at once (got "${value}")`,
    );
  return ms;
}

/** A duration (`2h` = two hours ago) or an ISO 8601 date-time with offset; returns ISO 8601 UTC. */
function parseSince(value: string, now = Date.now()): string {
  const ms = parseDuration(value);
  if (ms !== null) return new Date(now - ms).toISOString();
  if (IsoDateTime.safeParse(value.trim()).success) return new Date(value.trim()).toISOString();
  throw new CliError(
    `--since must be a duration such as 2h or 7d (meaning that long ago) or an ISO 8601 date-time such as 2025-06-01T00:00:00Z (got "${value}")`,
  );
}

function parseStatus(value: string | undefined): WebhookDeliveryStatus | undefined {
  if (value === undefined) return undefined;
  const status = value.trim().toUpperCase();
  if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new CliError(`unknown --status "${value}" (valid: ${DELIVERY_STATUSES.join(', ')})`);
  }
  return status as WebhookDeliveryStatus;
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= MAX_LIST))
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIST} (got "${value}")`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Lookups with messages that say what to do

async function communityId(db: Db, tag: string): Promise<string> {
  const row = await findCommunityByTag(db, tag);
  if (!row) throw new CliError(`community "${tag}" not found`);
  return row.id;
}

interface EndpointRow {
  id: string;
  url: string;
  status: WebhookEndpointStatus;
  community_tag: string;
}

/** Any endpoint, removed ones included (their delivery history stays readable). */
async function findEndpoint(db: Db, id: string): Promise<EndpointRow> {
  const row = await db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('communities as c', 'c.id', 'w.community_id')
    .select(['w.id', 'w.url', 'w.status', 'c.tag as community_tag'])
    .where('w.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new CliError(`no webhook endpoint with id ${id} (see \`svc webhook list --all\`)`);
  return row;
}

const removedMessage = (id: string, what: string) =>
  `webhook endpoint ${id} has been removed, so ${what}. Its delivery history stays readable; ` +
  'to receive deliveries again, register the receiver anew with `svc webhook add`.';

/** An endpoint that is not removed, with a clear message when it is. */
async function liveEndpoint(db: Db, id: string, what: string): Promise<EndpointRow> {
  const row = await findEndpoint(db, id);
  if (row.status === 'REMOVED') throw new CliError(removedMessage(id, what));
  return row;
}

// ---------------------------------------------------------------------------------------------
// Sending now, from this process

export interface SentAttempt {
  deliveryId: string;
  number: number;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

const toSent = (deliveryId: string, number: number, r: AttemptResult): SentAttempt => ({
  deliveryId,
  number,
  ok: r.ok,
  statusCode: r.statusCode,
  durationMs: r.durationMs,
  error: r.error,
  responseBody: r.responseBody,
});

/**
 * One attempt of each delivery right now, recorded in the attempt log like any other (the worker
 * sends SVC_WEBHOOK_CONCURRENCY at a time). Deliveries that a running server's worker claimed
 * first are left to it: no outcome for them. The worker is never started, so it claims nothing else.
 */
async function sendNow(db: Db, ctx: CliContext, ids: string[]): Promise<SentAttempt[]> {
  if (ids.length === 0) return [];
  const worker = new DeliveryWorker({
    db,
    dialect: ctx.dialect,
    config: ctx.config.webhooks,
    secrets: ctx.secrets(),
    // Only errors (an attempt that cannot be signed or recorded); stderr, so --json output stays clean.
    logger: createLogger('error', pino.destination({ dest: 2, sync: true })),
  });
  try {
    return (await worker.deliverNow(ids)).map((o) => toSent(o.deliveryId, o.number, o.result));
  } finally {
    await worker.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Human output

const eventList = (events: string[]) => (events.includes(ALL_EVENTS) ? '* (all events)' : events.join(', '));
const oneLine = (text: string, max = BODY_EXCERPT_CHARS) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const ms = (n: number | null) => (n === null ? '-' : `${n} ms`);

function endpointStatus(e: EndpointSummary): string {
  if (e.status === 'DISABLED') return `disabled${e.disabledReason ? ` (${e.disabledReason})` : ''}`;
  return e.status.toLowerCase();
}

function endpointNote(e: EndpointSummary): string {
  const parts: string[] = [];
  if (e.previousSecretExpiresAt) parts.push(`previous secret signs until ${e.previousSecretExpiresAt}`);
  if (e.description) parts.push(e.description);
  return parts.join('; ') || '-';
}

/** What one attempt did, in a sentence. */
function describeAttempt(a: SentAttempt): string {
  if (a.ok) return `attempt ${a.number}: the receiver answered ${a.statusCode} in ${a.durationMs} ms. Delivered.`;
  const error = a.error ?? 'no 2xx answer';
  const status = a.statusCode === null || error.includes(String(a.statusCode)) ? '' : ` (HTTP ${a.statusCode})`;
  return `attempt ${a.number} failed after ${a.durationMs} ms: ${error}${status}.`;
}

/** What happens next to a delivery, after an attempt from here or none. */
function describeState(d: DeliverySummary): string {
  switch (d.status) {
    case 'SUCCEEDED':
      return 'Delivered.';
    case 'PERMANENTLY_FAILED':
      return 'No retries are left: the delivery is PERMANENTLY_FAILED.';
    case 'CANCELLED':
      return 'The delivery was cancelled: its endpoint is no longer enabled.';
    default:
      return d.nextAttemptAt
        ? `It stays PENDING; the server's delivery worker retries it at ${d.nextAttemptAt} (then on the rest of the schedule).`
        : 'It is PENDING: a delivery worker (a running server) holds it and is sending it now.';
  }
}

// ---------------------------------------------------------------------------------------------
// Commands

type AddOptions = JsonOption & { community: string; url: string; events?: string; description?: string };

async function webhookAdd(opts: AddOptions): Promise<void> {
  const events = parseEvents(opts.events);
  if (opts.description !== undefined && opts.description.length > MAX_DESCRIPTION) {
    throw new CliError(`--description is longer than ${MAX_DESCRIPTION} characters`);
  }
  const created = await withDatabase(async (db, ctx) =>
    createEndpoint(
      db,
      ctx.secrets(),
      { allowPrivate: ctx.config.webhooks.allowPrivate, lookup: systemLookup },
      {
        communityId: await communityId(db, opts.community),
        url: opts.url,
        events,
        description: opts.description ?? null,
      },
    ),
  );
  if (opts.json) {
    printJson(created);
  } else {
    out(`Registered webhook endpoint ${created.id} for community ${created.communityTag}`);
    out(`  url:          ${created.url}`);
    out(`  events:       ${eventList(created.events)}`);
    if (created.description) out(`  description:  ${created.description}`);
    out(`  secret:       ${created.secret}`);
  }
  if (!created.resolved) {
    note(
      `note: ${new URL(created.url).hostname} does not resolve right now. The endpoint is registered; its address is checked at every delivery.`,
    );
  }
  note(
    'warning: this signing secret is shown only once and cannot be recovered. Store it now (receivers verify Svc-Signature with it).',
  );
}

async function webhookList(opts: JsonOption & { community?: string; all?: boolean }): Promise<void> {
  const endpoints = await withDatabase(async (db) => {
    if (opts.community) await communityId(db, opts.community);
    return listEndpoints(db, { communityTag: opts.community, includeRemoved: opts.all === true });
  });
  if (opts.json) {
    printJson(endpoints);
    return;
  }
  if (endpoints.length === 0) {
    out(opts.all ? 'No webhook endpoints.' : 'No webhook endpoints (add --all to include removed ones).');
    return;
  }
  out(
    table(
      ['ID', 'COMMUNITY', 'STATUS', 'EVENTS', 'CREATED', 'URL', 'NOTE'],
      endpoints.map((e) => [
        e.id,
        e.communityTag,
        endpointStatus(e),
        e.events.join(','),
        e.createdAt,
        e.url,
        endpointNote(e),
      ]),
    ),
  );
}

async function webhookRemove(id: string, opts: JsonOption): Promise<void> {
  const result = await withDatabase(async (db) => {
    const before = await findEndpoint(db, id);
    if (before.status === 'REMOVED') {
      const [removed] = (await listEndpoints(db, { communityTag: before.community_tag, includeRemoved: true })).filter(
        (e) => e.id === id,
      );
      return { endpoint: removed, changed: false };
    }
    return { endpoint: await removeEndpoint(db, id), changed: true };
  });
  if (opts.json) printJson({ ...result.endpoint, changed: result.changed });
  else if (!result.changed) out(`Webhook endpoint ${id} (${result.endpoint.url}) was already removed.`);
  else
    out(
      `Removed webhook endpoint ${id} (${result.endpoint.url}) of community ${result.endpoint.communityTag}. Pending deliveries to it are cancelled.`,
    );
}

async function webhookEnable(id: string, opts: JsonOption): Promise<void> {
  const result = await withDatabase(async (db) => {
    await liveEndpoint(db, id, 'it cannot be enabled');
    const before = await getEndpoint(db, id);
    return { endpoint: await enableEndpoint(db, id), changed: before.status !== 'ENABLED' };
  });
  if (opts.json) printJson({ ...result.endpoint, changed: result.changed });
  else if (!result.changed) out(`Webhook endpoint ${id} (${result.endpoint.url}) was already enabled.`);
  else out(`Enabled webhook endpoint ${id} (${result.endpoint.url}).`);
}

async function webhookDisable(id: string, opts: JsonOption & { reason?: string }): Promise<void> {
  const result = await withDatabase(async (db) => {
    await liveEndpoint(db, id, 'it cannot be disabled');
    const before = await getEndpoint(db, id);
    if (before.status === 'DISABLED' && opts.reason === undefined) return { endpoint: before, changed: false };
    return { endpoint: await disableEndpoint(db, id, opts.reason), changed: before.status !== 'DISABLED' };
  });
  if (opts.json) printJson({ ...result.endpoint, changed: result.changed });
  else if (!result.changed)
    out(`Webhook endpoint ${id} (${result.endpoint.url}) was already disabled (${result.endpoint.disabledReason}).`);
  else out(`Disabled webhook endpoint ${id} (${result.endpoint.url}). Pending deliveries to it are cancelled.`);
}

async function webhookRotateSecret(id: string, opts: JsonOption & { overlap: string }): Promise<void> {
  const overlapMs = parseOverlap(opts.overlap);
  const rotated = await withDatabase(async (db, ctx) => {
    await liveEndpoint(db, id, 'it has no secret to rotate');
    return rotateSecret(db, ctx.secrets(), id, overlapMs);
  });
  // `resolved` is about registration; a rotation does not look the host up.
  const { resolved: _resolved, ...endpoint } = rotated;
  if (opts.json) {
    printJson({ ...endpoint, overlapMs });
  } else {
    out(`Rotated the signing secret of webhook endpoint ${id} (${endpoint.url})`);
    out(`  secret:           ${endpoint.secret}`);
    out(
      `  previous secret:  ${endpoint.previousSecretExpiresAt ? `also signs deliveries until ${endpoint.previousSecretExpiresAt}` : 'no longer signs deliveries'}`,
    );
  }
  note('warning: this signing secret is shown only once and cannot be recovered. Store it now.');
}

async function webhookDeliveries(
  id: string,
  opts: JsonOption & { status?: string; since?: string; limit?: string },
): Promise<void> {
  const status = parseStatus(opts.status);
  const since = opts.since === undefined ? undefined : parseSince(opts.since);
  const limit = parseLimit(opts.limit);
  const deliveries = await withDatabase(async (db) => {
    await findEndpoint(db, id);
    return listDeliveries(db, id, { status, since, limit });
  });
  if (opts.json) {
    printJson(deliveries);
    return;
  }
  if (deliveries.length === 0) {
    out(`No deliveries for webhook endpoint ${id}${status || since ? ' that match' : ''}.`);
    return;
  }
  out(
    table(
      ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'CREATED', 'NEXT ATTEMPT', 'LAST RESULT'],
      deliveries.map((d) => [
        d.id,
        d.event,
        d.status,
        d.round > 1 ? `${d.totalAttempts} (round ${d.round})` : String(d.totalAttempts),
        d.createdAt,
        d.nextAttemptAt ?? '-',
        d.lastError ?? (d.lastStatusCode === null ? '-' : String(d.lastStatusCode)),
      ]),
    ),
  );
}

async function webhookAttempts(id: string, opts: JsonOption): Promise<void> {
  const { delivery, endpoint, attempts } = await withDatabase(async (db) => {
    const d = await getDelivery(db, id);
    return { delivery: d, endpoint: await findEndpoint(db, d.endpointId), attempts: await listAttempts(db, id) };
  });
  if (opts.json) {
    printJson({ delivery, attempts });
    return;
  }
  out(`Delivery ${delivery.id} (${delivery.event}) to ${endpoint.url}`);
  out(
    `  status: ${delivery.status}, round ${delivery.round}, ${delivery.totalAttempts} attempt${delivery.totalAttempts === 1 ? '' : 's'} in all`,
  );
  out();
  if (attempts.length === 0) {
    out('No attempts yet.');
    return;
  }
  printAttempts(attempts);
}

async function webhookReplay(id: string, opts: JsonOption & { queueOnly?: boolean }): Promise<void> {
  const result = await withDatabase(async (db, ctx) => {
    const before = await getDelivery(db, id);
    const endpoint = await liveEndpoint(db, before.endpointId, `delivery ${id} cannot be replayed`);
    await replayDelivery(db, id);
    const [attempt] = opts.queueOnly ? [] : await sendNow(db, ctx, [id]);
    return { endpoint, attempt: attempt ?? null, delivery: await getDelivery(db, id) };
  });
  if (opts.json) {
    printJson({ delivery: result.delivery, attempt: result.attempt });
    return;
  }
  const d = result.delivery;
  out(`Replaying delivery ${d.id} (${d.event}) to ${result.endpoint.url}: round ${d.round}.`);
  if (result.attempt) {
    out(`${capital(describeAttempt(result.attempt))}${result.attempt.ok ? '' : ` ${describeState(d)}`}`);
  } else if (opts.queueOnly) {
    out("Queued; the server's delivery worker sends it.");
  } else {
    out(`Not sent from here: a running server's worker took it first. ${describeState(d)}`);
  }
}

async function webhookResend(id: string, opts: JsonOption & { since: string; queueOnly?: boolean }): Promise<void> {
  const since = parseSince(opts.since);
  const result = await withDatabase(async (db, ctx) => {
    await liveEndpoint(db, id, 'nothing can be resent to it');
    const ids = await resendFailed(db, id, since);
    const attempts = opts.queueOnly ? [] : await sendNow(db, ctx, ids);
    return { ids, attempts };
  });
  const succeeded = result.attempts.filter((a) => a.ok).length;
  const summary = {
    endpointId: id,
    since,
    requeued: result.ids,
    sent: result.attempts.length,
    succeeded,
    failed: result.attempts.length - succeeded,
    attempts: result.attempts,
  };
  if (opts.json) {
    printJson(summary);
    return;
  }
  if (result.ids.length === 0) {
    out(`No permanently failed deliveries of webhook endpoint ${id} created since ${since}.`);
    return;
  }
  out(
    `Requeued ${plural(result.ids.length, 'delivery', 'deliveries')} of webhook endpoint ${id} created since ${since}.`,
  );
  if (opts.queueOnly) {
    out("The server's delivery worker sends them.");
    return;
  }
  out(
    `Sent now: ${summary.sent}; ${succeeded} succeeded, ${summary.failed} failed (retried on the schedule by the server's delivery worker).`,
  );
  const elsewhere = result.ids.length - summary.sent;
  if (elsewhere > 0)
    out(`${plural(elsewhere, 'delivery was', 'deliveries were')} taken by a running server's worker first.`);
  for (const a of result.attempts.filter((x) => !x.ok)) out(`  ${a.deliveryId}: ${describeAttempt(a)}`);
}

// ---------------------------------------------------------------------------------------------
// The command table

interface OptionDef {
  flags: string;
  description: string;
  defaultValue?: string;
  required?: boolean;
}

interface CommandDef {
  name: string;
  description: string;
  argument?: { name: string; description: string };
  /** In the order `--help` lists them. */
  options: OptionDef[];
  /** Commander's arguments: the `argument` if there is one, then the parsed options. */
  action: (...args: never[]) => Promise<void>;
}

const required = (flags: string, description: string): OptionDef => ({ flags, description, required: true });
const optional = (flags: string, description: string, defaultValue?: string): OptionDef => ({
  flags,
  description,
  defaultValue,
});
const json = (description: string): OptionDef => optional('--json', description);
const ENDPOINT_ARGUMENT = { name: '<endpointId>', description: 'the endpoint id (see `svc webhook list`)' };
const DELIVERY_ARGUMENT = {
  name: '<deliveryId>',
  description: 'the delivery id, del_... (see `svc webhook deliveries`)',
};
const SINCE = 'an ISO 8601 date-time, or a duration such as 2h or 7d meaning that long ago';

const WEBHOOK_COMMANDS: CommandDef[] = [
  {
    name: 'add',
    description:
      "Register a receiver URL for a community. Prints the endpoint's signing secret once; only its ciphertext is stored.",
    options: [
      required('--community <tag>', 'community tag'),
      required(
        '--url <url>',
        'the receiver, https:// and on a public address (http:// and private addresses only with SVC_ALLOW_PRIVATE_WEBHOOKS=true)',
      ),
      optional(
        '--events <list>',
        `comma-separated event names, or * for every event, present and future (default: *). Known: ${WEBHOOK_EVENT_NAMES.join(', ')}`,
      ),
      optional('--description <text>', 'a note to recognise the endpoint by'),
      json('print the endpoint as JSON, including the secret'),
    ],
    action: webhookAdd,
  },
  {
    name: 'list',
    description:
      'List webhook endpoints (enabled and disabled; --all adds removed ones). Never prints a signing secret.',
    options: [
      optional('--community <tag>', 'only the endpoints of this community'),
      optional('--all', 'include removed endpoints'),
      json('print the endpoints as JSON'),
    ],
    action: webhookList,
  },
  {
    name: 'remove',
    description:
      'Remove an endpoint for good: nothing more is sent to it, pending deliveries are cancelled and its secrets are erased. ' +
      'Its delivery history stays readable. Removing it again is a no-op.',
    argument: ENDPOINT_ARGUMENT,
    options: [json('print the endpoint as JSON')],
    action: webhookRemove,
  },
  {
    name: 'enable',
    description:
      'Enable an endpoint again: new events are delivered to it. Deliveries cancelled while it was off stay cancelled; ' +
      'send them with `svc webhook replay`.',
    argument: ENDPOINT_ARGUMENT,
    options: [json('print the endpoint as JSON')],
    action: webhookEnable,
  },
  {
    name: 'disable',
    description:
      'Disable an endpoint: nothing is sent to it and its pending deliveries are cancelled until `svc webhook enable`.',
    argument: ENDPOINT_ARGUMENT,
    options: [
      optional(
        '--reason <text>',
        'why, shown by `svc webhook list` (default: "disabled by an admin"; on a disabled endpoint it replaces the reason)',
      ),
      json('print the endpoint as JSON'),
    ],
    action: webhookDisable,
  },
  {
    name: 'rotate-secret',
    description:
      'Make a new signing secret (printed once). During the overlap deliveries carry signatures with both the new and the old ' +
      'secret, so the receiver can switch without rejecting any.',
    argument: ENDPOINT_ARGUMENT,
    options: [
      optional(
        '--overlap <duration>',
        'how long the old secret keeps signing: 24h, 30m, 90s, 1d, or 0 to end it at once',
        '24h',
      ),
      json('print the endpoint as JSON, including the new secret'),
    ],
    action: webhookRotateSecret,
  },
  {
    name: 'deliveries',
    description: "List an endpoint's deliveries, newest first (removed endpoints too).",
    argument: { name: '<endpointId>', description: 'the endpoint id (see `svc webhook list --all`)' },
    options: [
      optional('--status <status>', `only deliveries in this state: ${DELIVERY_STATUSES.join(', ')}`),
      optional('--since <when>', `only deliveries created since then: ${SINCE}`),
      optional('--limit <n>', `at most this many (1-${MAX_LIST})`, '50'),
      json('print the deliveries as JSON'),
    ],
    action: webhookDeliveries,
  },
  {
    name: 'attempts',
    description:
      'Show the attempt log of a delivery: every attempt with its round, outcome, start, duration, status code, error and ' +
      'the start of the response body.',
    argument: DELIVERY_ARGUMENT,
    options: [json('print {delivery, attempts} as JSON, with the whole stored response bodies')],
    action: webhookAttempts,
  },
  {
    name: 'replay',
    description:
      'Send one delivery again, whatever its state, with the same Svc-Delivery-Id (receivers deduplicate on it). ' +
      'It starts a new round with the full retry schedule, and one attempt is made right away from here.',
    argument: DELIVERY_ARGUMENT,
    options: [
      optional('--queue-only', "only requeue it; a running server's delivery worker sends it"),
      json('print {delivery, attempt} as JSON; attempt is null when nothing was sent from here'),
    ],
    action: webhookReplay,
  },
  {
    name: 'resend',
    description:
      'Requeue every PERMANENTLY_FAILED delivery of an endpoint created since a time, keeping their delivery ids, ' +
      'and make one attempt of each right away from here.',
    argument: ENDPOINT_ARGUMENT,
    options: [
      required('--since <when>', `deliveries created since then: ${SINCE}`),
      optional('--queue-only', "only requeue them; a running server's delivery worker sends them"),
      json('print {endpointId, since, requeued, sent, succeeded, failed, attempts} as JSON'),
    ],
    action: webhookResend,
  },
];

export function registerWebhookCommands(program: Command): void {
  const webhook = program
    .command('webhook')
    .description(
      'Manage outgoing webhooks: receiver endpoints, signing secrets, and the delivery log (replay, resend).',
    );
  sayWhatMoved(webhook, 'webhook');
  for (const def of WEBHOOK_COMMANDS) {
    const command = webhook.command(def.name).description(def.description);
    if (def.argument) command.argument(def.argument.name, def.argument.description);
    for (const o of def.options) {
      if (o.required) command.requiredOption(o.flags, o.description);
      else if (o.defaultValue !== undefined) command.option(o.flags, o.description, o.defaultValue);
      else command.option(o.flags, o.description);
    }
    command.action(def.action as (...args: unknown[]) => Promise<void>);
  }
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A table of attempts, each followed by its error and a one-line excerpt of the response body. */
function printAttempts(attempts: AttemptSummary[]): void {
  const [header, ...rows] = table(
    ['#', 'ROUND', 'OUTCOME', 'STARTED', 'DURATION', 'STATUS'],
    attempts.map((a) => [
      String(a.number),
      String(a.round),
      a.outcome,
      a.startedAt,
      ms(a.durationMs),
      a.statusCode === null ? '-' : String(a.statusCode),
    ]),
  ).split('\n');
  out(header);
  rows.forEach((row, i) => {
    const a = attempts[i];
    out(row);
    if (a.error) out(`    error: ${oneLine(a.error, 200)}`);
    if (a.responseBody) out(`    body:  ${oneLine(a.responseBody)}`);
  });
}
