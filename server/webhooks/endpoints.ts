// Receiver endpoints: register (the signing secret is returned here and never again), list,
// rotate the secret with an overlap window, enable, disable and remove. What the CLI and the
// importer call; no HTTP here.
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES, isWebhookEventName } from '../../contract/webhook-events.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import type { WebhookEndpointStatus } from '../db/schema.ts';
import { newSigningSecret, type SecretBox } from './secret-box.ts';
import { checkReceiverUrl, type ReceiverPolicy } from './ssrf.ts';

/** The overlap during which deliveries are signed with the old and the new secret. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A refused request from an admin: bad URL, unknown event, unknown endpoint. The message says what to do. */
export class WebhookAdminError extends Error {}

export interface EndpointSummary {
  id: string;
  communityTag: string;
  url: string;
  description: string | null;
  events: string[];
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  /** While a rotation overlaps: until when the previous secret still signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

export interface CreatedEndpoint extends EndpointSummary {
  /** Shown once. */
  secret: string;
  /** False when the host name did not resolve at registration (it is checked again at every connect). */
  resolved: boolean;
}

/** `["*"]` or a list of catalog names; an empty list or an unknown name is refused. */
export function normaliseEvents(events: readonly string[] | undefined): string[] {
  if (!events || events.length === 0 || events.includes(ALL_EVENTS)) return [ALL_EVENTS];
  const unknown = events.filter((e) => !isWebhookEventName(e));
  if (unknown.length > 0) {
    throw new WebhookAdminError(
      `unknown event ${unknown.join(', ')}; known events: ${WEBHOOK_EVENT_NAMES.join(', ')} (or * for all)`,
    );
  }
  return [...new Set(events)];
}

export interface EndpointInput {
  communityId: string;
  url: string;
  events?: readonly string[];
  description?: string | null;
}

export async function createEndpoint(
  db: Db | Trx,
  box: SecretBox,
  policy: ReceiverPolicy,
  input: EndpointInput,
): Promise<CreatedEndpoint> {
  const events = normaliseEvents(input.events);
  const checked = await checkEndpointUrl(input.url, policy);
  return insertEndpoint(db, box, { ...input, events }, checked);
}

/** The SSRF check of a receiver URL at registration (it resolves the host: run it outside a transaction). */
export async function checkEndpointUrl(url: string, policy: ReceiverPolicy): Promise<CheckedUrl> {
  return checkReceiverUrl(url, policy).catch((err: Error) => {
    throw new WebhookAdminError(err.message);
  });
}
export type CheckedUrl = Awaited<ReturnType<typeof checkReceiverUrl>>;

/** Registers an endpoint whose URL `checkEndpointUrl` passed; the secret is in the answer only. */
export async function insertEndpoint(
  db: Db | Trx,
  box: SecretBox,
  input: EndpointInput,
  checked: CheckedUrl,
): Promise<CreatedEndpoint> {
  const events = normaliseEvents(input.events);
  const community = await db
    .selectFrom('communities')
    .select(['tag'])
    .where('id', '=', input.communityId)
    .executeTakeFirst();
  if (!community) throw new WebhookAdminError('community not found');
  const id = newId();
  const secret = newSigningSecret();
  const now = nowIso();
  const row = {
    id,
    community_id: input.communityId,
    url: checked.url.href,
    description: input.description ?? null,
    events: JSON.stringify(events),
    status: 'ENABLED' as const,
    disabled_reason: null,
    secret_ciphertext: box.seal(secret, id),
    previous_secret_ciphertext: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return { ...toSummary({ ...row, community_tag: community.tag }), secret, resolved: checked.resolved };
}

/**
 * Changes what an endpoint receives and where: a new URL (already through `checkEndpointUrl`),
 * events, description. Deliveries already made keep going to the endpoint, now at its new URL.
 */
export async function updateEndpoint(
  trx: Trx,
  id: string,
  change: { url?: CheckedUrl; events?: readonly string[]; description?: string | null },
): Promise<EndpointSummary> {
  await getEndpoint(trx, id);
  await trx
    .updateTable('webhook_endpoints')
    .set({
      ...(change.url ? { url: change.url.url.href } : {}),
      ...(change.events ? { events: JSON.stringify(normaliseEvents(change.events)) } : {}),
      ...(change.description !== undefined ? { description: change.description } : {}),
      updated_at: nowIso(),
    })
    .where('id', '=', id)
    .execute();
  return getEndpoint(trx, id);
}

/** An endpoint of this community (removed ones included), or null: ids of other communities are not there. */
export async function findCommunityEndpoint(
  db: Db | Trx,
  communityId: string,
  id: string,
): Promise<EndpointSummary | null> {
  const row = await summaries(db).where('w.id', '=', id).where('w.community_id', '=', communityId).executeTakeFirst();
  return row ? toSummary(row) : null;
}

type SummaryRow = {
  id: string;
  community_tag: string;
  url: string;
  description: string | null;
  events: string;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
};

function toSummary(r: SummaryRow): EndpointSummary {
  const overlapping = r.previous_secret_expires_at && Date.parse(r.previous_secret_expires_at) > Date.now();
  return {
    id: r.id,
    communityTag: r.community_tag,
    url: r.url,
    description: r.description,
    events: parseJson<string[]>(r.events, []),
    status: r.status,
    disabledReason: r.disabled_reason,
    previousSecretExpiresAt: overlapping ? r.previous_secret_expires_at : null,
    createdAt: r.created_at,
  };
}

function summaries(db: Db | Trx) {
  return db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('communities as c', 'c.id', 'w.community_id')
    .select([
      'w.id',
      'c.tag as community_tag',
      'w.url',
      'w.description',
      'w.events',
      'w.status',
      'w.disabled_reason',
      'w.previous_secret_expires_at',
      'w.created_at',
    ]);
}

export async function listEndpoints(
  db: Db,
  opts: { communityTag?: string; includeRemoved?: boolean } = {},
): Promise<EndpointSummary[]> {
  let q = summaries(db).orderBy('c.tag').orderBy('w.created_at');
  if (opts.communityTag) q = q.where('c.tag', '=', opts.communityTag);
  if (!opts.includeRemoved) q = q.where('w.status', '!=', 'REMOVED');
  return (await q.execute()).map(toSummary);
}

export async function getEndpoint(db: Db | Trx, id: string): Promise<EndpointSummary> {
  const row = await summaries(db).where('w.id', '=', id).executeTakeFirst();
  if (!row) throw new WebhookAdminError(`webhook endpoint ${id} not found (see \`svc webhook list\`)`);
  if (row.status === 'REMOVED') {
    throw new WebhookAdminError(
      `webhook endpoint ${id} has been removed; its deliveries stay readable but cannot be sent (register the receiver again with \`svc webhook add\`)`,
    );
  }
  return toSummary(row);
}

/**
 * A new secret, returned once. The old one keeps signing alongside it for `overlapMs`, so a
 * receiver can deploy the new secret without rejecting deliveries in between; 0 ends it at once.
 */
export async function rotateSecret(
  db: Db,
  box: SecretBox,
  id: string,
  overlapMs = DEFAULT_ROTATION_OVERLAP_MS,
): Promise<CreatedEndpoint> {
  return db.transaction().execute((trx) => rotateSecretIn(trx, box, id, overlapMs));
}

/** `rotateSecret` inside the caller's transaction (the console writes its audit entry with it). */
export async function rotateSecretIn(
  trx: Trx,
  box: SecretBox,
  id: string,
  overlapMs = DEFAULT_ROTATION_OVERLAP_MS,
): Promise<CreatedEndpoint> {
  await getEndpoint(trx, id);
  const current = await trx
    .selectFrom('webhook_endpoints')
    .select(['secret_ciphertext'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const secret = newSigningSecret();
  const now = nowIso();
  await trx
    .updateTable('webhook_endpoints')
    .set({
      secret_ciphertext: box.seal(secret, id),
      previous_secret_ciphertext: overlapMs > 0 ? current.secret_ciphertext : null,
      previous_secret_expires_at: overlapMs > 0 ? new Date(Date.now() + overlapMs).toISOString() : null,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
  return { ...(await getEndpoint(trx, id)), secret, resolved: true };
}

async function setStatus(
  db: Db,
  id: string,
  status: WebhookEndpointStatus,
  reason: string | null,
): Promise<EndpointSummary> {
  return db.transaction().execute((trx) => setEndpointStatusIn(trx, id, status, reason));
}

/**
 * Enables, disables or removes an endpoint inside the caller's transaction; anything but ENABLED
 * cancels its pending deliveries, and REMOVED also erases its secrets.
 */
export async function setEndpointStatusIn(
  trx: Trx,
  id: string,
  status: WebhookEndpointStatus,
  reason: string | null,
): Promise<EndpointSummary> {
  await getEndpoint(trx, id);
  const now = nowIso();
  const wipe =
    status === 'REMOVED'
      ? { secret_ciphertext: null, previous_secret_ciphertext: null, previous_secret_expires_at: null }
      : {};
  await trx
    .updateTable('webhook_endpoints')
    .set({ status, disabled_reason: reason, updated_at: now, ...wipe })
    .where('id', '=', id)
    .execute();
  if (status !== 'ENABLED') {
    // Nothing more goes to an endpoint that is off; `svc webhook resend`/`replay` can send it later.
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'CANCELLED', lease_token: null, next_attempt_at: null, updated_at: now })
      .where('endpoint_id', '=', id)
      .where('status', '=', 'PENDING')
      .execute();
  }
  return status === 'REMOVED' ? { ...(await summaryOfRemoved(trx, id)) } : getEndpoint(trx, id);
}

async function summaryOfRemoved(trx: Trx, id: string): Promise<EndpointSummary> {
  return toSummary(await summaries(trx).where('w.id', '=', id).executeTakeFirstOrThrow());
}

/**
 * False when an enabled endpoint's secret does not open with this key: the process was started
 * with another SVC_ENCRYPTION_KEY (or key file) than the one the secrets were stored with.
 */
export async function secretsReadable(db: Db, box: SecretBox): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret_ciphertext'])
    .where('status', '=', 'ENABLED')
    .where('secret_ciphertext', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  if (!row) return true;
  try {
    box.open(row.secret_ciphertext!, row.id);
    return true;
  } catch {
    return false;
  }
}

export const enableEndpoint = (db: Db, id: string) => setStatus(db, id, 'ENABLED', null);
export const disableEndpoint = (db: Db, id: string, reason = 'disabled by an admin') =>
  setStatus(db, id, 'DISABLED', reason);
/** Stops all deliveries and forgets the secrets; the delivery and attempt history stays readable. */
export const removeEndpoint = (db: Db, id: string) => setStatus(db, id, 'REMOVED', null);
