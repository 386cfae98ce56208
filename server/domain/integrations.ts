// The leader console's integrations (docs/leader-console.md, "Integrations"): a community's secret
// keys and webhook receivers as its founder and admins manage them. The keys and the receivers
// are the CLI's (domain/api-keys.ts, webhooks/endpoints.ts, webhooks/deliveries.ts); what this
// adds is the community's fence (an id of another community is not found) and one audit entry per
// change, written in the change's transaction. Secrets go into the audit log by prefix only.
import type { Scope } from '../../contract/enums.ts';
import { afterCommit, type Db, type Trx } from '../db/index.ts';
import type { WebhookDeliveryStatus } from '../db/schema.ts';
import {
  countDeliveries,
  getDelivery,
  listAttempts,
  listDeliveries,
  replayDelivery,
  resendFailed,
  type AttemptSummary,
  type DeliverySummary,
} from '../webhooks/deliveries.ts';
import {
  checkEndpointUrl,
  findCommunityEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateSecretIn,
  setEndpointStatusIn,
  updateEndpoint,
  type CheckedUrl,
  type EndpointSummary,
} from '../webhooks/endpoints.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import type { ReceiverPolicy } from '../webhooks/ssrf.ts';
import { wakeWorkers } from '../webhooks/wake.ts';
import { createSecretKey, listApiKeys, revokeApiKey, type ApiKeySummary } from './api-keys.ts';
import { recordAudit, type AuditActor } from './audit-log.ts';
import { Refusal } from './refusal.ts';

/** The community a leader acts on, and who they are (the audit log's actor). */
export interface ConsoleActor extends AuditActor {
  communityTag: string;
  role: 'founder' | 'admin';
}

/**
 * The scopes that let a key kick and ban (`/v1` members): a key removes any admin, so an admin who
 * could make one would get round "admins are peers" (docs/leader-console.md, "Who may remove whom").
 */
export const MEMBER_REMOVING_SCOPES: readonly Scope[] = ['WRITE_MEMBERS', 'ADMIN'];

/** What the audit log keeps of a secret: enough to tell two apart, far too little to use one. */
const secretPrefix = (secret: string) => `${secret.slice(0, secret.startsWith('whsec_') ? 12 : 14)}…`;

// ---------------------------------------------------------------------------------------------
// Secret keys

export type ConsoleKey = Omit<ApiKeySummary, 'communityTag' | 'kind'>;
const toConsoleKey = ({ communityTag: _t, kind: _k, ...key }: ApiKeySummary): ConsoleKey => key;

export async function listSecretKeys(db: Db | Trx, communityTag: string): Promise<ConsoleKey[]> {
  return (await listApiKeys(db, communityTag)).filter((k) => k.kind === 'secret').map(toConsoleKey);
}

async function secretKeyOf(db: Db | Trx, actor: ConsoleActor, keyId: string): Promise<ConsoleKey> {
  const key = (await listSecretKeys(db, actor.communityTag)).find((k) => k.id === keyId);
  if (!key) throw new Refusal('secret_key_not_found');
  return key;
}

export async function createConsoleKey(
  trx: Trx,
  actor: ConsoleActor,
  input: { name?: string; scopes: Scope[] },
): Promise<{ key: ConsoleKey; secret: string }> {
  if (actor.role !== 'founder' && input.scopes.some((s) => MEMBER_REMOVING_SCOPES.includes(s)))
    throw new Refusal('founder_only_member_keys');
  const created = await createSecretKey(trx, actor.communityId, input.scopes, input.name ?? null);
  const key = await secretKeyOf(trx, actor, created.id);
  await recordAudit(trx, actor, {
    action: 'key.create',
    targetType: 'api_key',
    targetId: key.id,
    after: { prefix: key.prefix, name: key.name, scopes: key.scopes },
  });
  return { key, secret: created.key };
}

/**
 * Revokes a key; `forget` drops it from the key cache once the revocation has committed, so this
 * process refuses it from the next request on. Revoking a revoked key changes (and logs) nothing.
 */
export async function revokeConsoleKey(
  trx: Trx,
  actor: ConsoleActor,
  keyId: string,
  forget: (keyId: string) => void,
): Promise<ConsoleKey> {
  const before = await secretKeyOf(trx, actor, keyId);
  if (before.revokedAt) return before;
  await revokeApiKey(trx, keyId);
  const after = await secretKeyOf(trx, actor, keyId);
  await recordAudit(trx, actor, {
    action: 'key.revoke',
    targetType: 'api_key',
    targetId: keyId,
    before: { prefix: before.prefix, revokedAt: null },
    after: { prefix: after.prefix, revokedAt: after.revokedAt },
  });
  afterCommit(trx, () => forget(keyId));
  return after;
}

// ---------------------------------------------------------------------------------------------
// Webhook receivers

export type ConsoleReceiver = Omit<EndpointSummary, 'communityTag'>;
const toReceiver = ({ communityTag: _t, ...receiver }: EndpointSummary): ConsoleReceiver => receiver;
const audited = (r: ConsoleReceiver) => ({
  url: r.url,
  events: r.events,
  description: r.description,
  status: r.status,
});

export async function listReceivers(db: Db, communityTag: string): Promise<ConsoleReceiver[]> {
  return (await listEndpoints(db, { communityTag })).map(toReceiver);
}

/** A receiver of this community, deleted ones included; another community's id is not found. */
export async function receiverOf(db: Db | Trx, actor: ConsoleActor, id: string): Promise<ConsoleReceiver> {
  const found = await findCommunityEndpoint(db, actor.communityId, id);
  if (!found) throw new Refusal('webhook_receiver_not_found');
  return toReceiver(found);
}

async function liveReceiverOf(trx: Trx, actor: ConsoleActor, id: string): Promise<ConsoleReceiver> {
  const receiver = await receiverOf(trx, actor, id);
  if (receiver.status === 'REMOVED') throw new Refusal('webhook_receiver_removed');
  return receiver;
}

/** The SSRF guard's check at registration. It resolves the host name: call it before the transaction. */
export async function checkReceiverUrl(url: string, policy: ReceiverPolicy): Promise<CheckedUrl> {
  return checkEndpointUrl(url, policy).catch((err: Error) => {
    throw new Refusal('webhook_url_refused', { why: err.message });
  });
}

export async function createReceiver(
  trx: Trx,
  actor: ConsoleActor,
  box: SecretBox,
  input: { url: CheckedUrl; events?: string[]; description?: string | null },
): Promise<{ receiver: ConsoleReceiver; secret: string }> {
  const {
    secret,
    resolved: _resolved,
    ...created
  } = await insertEndpoint(
    trx,
    box,
    {
      communityId: actor.communityId,
      url: input.url.url.href,
      events: input.events,
      description: input.description ?? null,
    },
    input.url,
  );
  const receiver = toReceiver(created);
  await recordAudit(trx, actor, {
    action: 'webhook.create',
    targetType: 'webhook_endpoint',
    targetId: receiver.id,
    after: { ...audited(receiver), secret: secretPrefix(secret) },
  });
  return { receiver, secret };
}

export async function updateReceiver(
  trx: Trx,
  actor: ConsoleActor,
  id: string,
  change: { url?: CheckedUrl; events?: string[]; description?: string | null },
): Promise<ConsoleReceiver> {
  const before = await liveReceiverOf(trx, actor, id);
  const after = toReceiver(await updateEndpoint(trx, id, change));
  await recordAudit(trx, actor, {
    action: 'webhook.update',
    targetType: 'webhook_endpoint',
    targetId: id,
    before: audited(before),
    after: audited(after),
  });
  return after;
}

const STATUS_ACTIONS = { ENABLED: 'webhook.enable', DISABLED: 'webhook.disable', REMOVED: 'webhook.delete' } as const;

/**
 * Enable, disable or delete. Asking for the status it already has changes (and logs) nothing; a
 * deleted receiver cannot be enabled or disabled.
 */
export async function setReceiverStatus(
  trx: Trx,
  actor: ConsoleActor,
  id: string,
  status: 'ENABLED' | 'DISABLED' | 'REMOVED',
): Promise<ConsoleReceiver> {
  const before = await receiverOf(trx, actor, id);
  if (before.status === status) return before;
  if (before.status === 'REMOVED') throw new Refusal('webhook_receiver_removed');
  const reason = status === 'DISABLED' ? 'disabled by a leader' : null;
  const after = toReceiver(await setEndpointStatusIn(trx, id, status, reason));
  await recordAudit(trx, actor, {
    action: STATUS_ACTIONS[status],
    targetType: 'webhook_endpoint',
    targetId: id,
    before: audited(before),
    after: status === 'REMOVED' ? null : audited(after),
  });
  return after;
}

export async function rotateReceiverSecret(
  trx: Trx,
  actor: ConsoleActor,
  box: SecretBox,
  id: string,
  overlapMs: number,
): Promise<{ receiver: ConsoleReceiver; secret: string }> {
  await liveReceiverOf(trx, actor, id);
  const { secret, resolved: _resolved, ...rotated } = await rotateSecretIn(trx, box, id, overlapMs);
  const receiver = toReceiver(rotated);
  await recordAudit(trx, actor, {
    action: 'webhook.rotate_secret',
    targetType: 'webhook_endpoint',
    targetId: id,
    after: { secret: secretPrefix(secret), previousSecretExpiresAt: receiver.previousSecretExpiresAt },
  });
  return { receiver, secret };
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export type ConsoleDelivery = Omit<DeliverySummary, 'endpointId'>;
const toDelivery = ({ endpointId: _e, ...delivery }: DeliverySummary): ConsoleDelivery => delivery;

export async function listReceiverDeliveries(
  db: Db,
  actor: ConsoleActor,
  endpointId: string,
  opts: { status?: WebhookDeliveryStatus; limit: number; offset: number },
): Promise<{ items: ConsoleDelivery[]; total: number }> {
  await receiverOf(db, actor, endpointId);
  const [items, total] = await Promise.all([
    listDeliveries(db, endpointId, opts),
    countDeliveries(db, endpointId, opts.status),
  ]);
  return { items: items.map(toDelivery), total };
}

async function deliveryOf(db: Db | Trx, actor: ConsoleActor, endpointId: string, deliveryId: string) {
  await receiverOf(db, actor, endpointId);
  const delivery = await getDelivery(db, deliveryId).catch(() => null);
  if (!delivery || delivery.endpointId !== endpointId) throw new Refusal('webhook_delivery_not_found');
  return delivery;
}

export async function deliveryWithAttempts(
  db: Db,
  actor: ConsoleActor,
  endpointId: string,
  deliveryId: string,
): Promise<{ delivery: ConsoleDelivery; attempts: AttemptSummary[] }> {
  const delivery = await deliveryOf(db, actor, endpointId, deliveryId);
  return { delivery: toDelivery(delivery), attempts: await listAttempts(db, deliveryId) };
}

async function enabledReceiverOf(trx: Trx, actor: ConsoleActor, endpointId: string): Promise<void> {
  const receiver = await receiverOf(trx, actor, endpointId);
  if (receiver.status !== 'ENABLED') throw new Refusal('webhook_receiver_not_enabled', { status: receiver.status });
}

/** The CLI's replay: the same delivery (id, body) in a new round; the worker is woken on commit. */
export async function replayReceiverDelivery(
  trx: Trx,
  actor: ConsoleActor,
  endpointId: string,
  deliveryId: string,
): Promise<ConsoleDelivery> {
  const before = await deliveryOf(trx, actor, endpointId, deliveryId);
  await enabledReceiverOf(trx, actor, endpointId);
  const after = await replayDelivery(trx, deliveryId);
  await recordAudit(trx, actor, {
    action: 'webhook.replay',
    targetType: 'webhook_delivery',
    targetId: deliveryId,
    before: { status: before.status, round: before.round },
    after: { status: after.status, round: after.round },
  });
  afterCommit(trx, wakeWorkers);
  return toDelivery(after);
}

/** The CLI's resend: every PERMANENTLY_FAILED delivery since `since`, requeued; none requeued changes (and logs) nothing. */
export async function resendReceiverDeliveries(
  trx: Trx,
  actor: ConsoleActor,
  endpointId: string,
  since: string,
): Promise<string[]> {
  await enabledReceiverOf(trx, actor, endpointId);
  const requeued = await resendFailed(trx, endpointId, since);
  if (requeued.length === 0) return requeued;
  await recordAudit(trx, actor, {
    action: 'webhook.resend',
    targetType: 'webhook_endpoint',
    targetId: endpointId,
    after: { since, requeued },
  });
  afterCommit(trx, wakeWorkers);
  return requeued;
}
