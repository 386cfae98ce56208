// The leader console's integrations: secret keys, webhook receivers, deliveries (replay, resend).
// The rules and the audit entries are in domain/integrations.ts; here HTTP in and out.
import * as routes from '../../contract/routes/admin-integrations.ts';
import * as integrations from '../domain/integrations.ts';
import type { Leader } from '../http/leader.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { offsetPage } from '../http/pagination.ts';
import { DEFAULT_ROTATION_OVERLAP_MS } from '../webhooks/endpoints.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };

const actorOf = (leader: Leader): integrations.ConsoleActor => ({
  userId: leader.userId,
  communityId: leader.communityId,
  communityTag: leader.communityTag,
  role: leader.role,
});

function webhookDeps(deps: RouteDeps) {
  if (!deps.webhooks) throw new Error('the leader console needs RouteDeps.webhooks (server/app.ts)');
  return deps.webhooks;
}

async function listSecretKeys({ leader }: HandlerContext<typeof routes.listSecretKeys>, { db }: RouteDeps) {
  return { body: await integrations.listSecretKeys(db, leader.communityTag), headers: NO_STORE };
}

async function createSecretKey({ leader, body, transaction }: HandlerContext<typeof routes.createSecretKey>) {
  return transaction(async (trx) => ({
    status: 201,
    body: await integrations.createConsoleKey(trx, actorOf(leader), body),
    headers: NO_STORE,
  }));
}

async function revokeSecretKey(
  { leader, params, transaction }: HandlerContext<typeof routes.revokeSecretKey>,
  { keys, communityChanges }: RouteDeps,
) {
  // Once committed: forgotten here, and (with Redis) by every other process at once.
  const revoked = (id: string) => {
    keys.forget(id);
    communityChanges?.announce(leader.communityId);
  };
  return transaction(async (trx) => ({
    body: await integrations.revokeConsoleKey(trx, actorOf(leader), params.keyId, revoked),
    headers: NO_STORE,
  }));
}

async function listWebhookReceivers({ leader }: HandlerContext<typeof routes.listWebhookReceivers>, { db }: RouteDeps) {
  return { body: await integrations.listReceivers(db, leader.communityTag), headers: NO_STORE };
}

async function createWebhookReceiver(
  { leader, body, transaction }: HandlerContext<typeof routes.createWebhookReceiver>,
  deps: RouteDeps,
) {
  const { secrets, policy } = webhookDeps(deps);
  // Before the transaction: the check resolves the host name, and no connection waits on DNS.
  const url = await integrations.checkReceiverUrl(body.url, policy);
  return transaction(async (trx) => ({
    status: 201,
    body: await integrations.createReceiver(trx, actorOf(leader), secrets, { ...body, url }),
    headers: NO_STORE,
  }));
}

async function getWebhookReceiver(
  { leader, params }: HandlerContext<typeof routes.getWebhookReceiver>,
  { db }: RouteDeps,
) {
  return { body: await integrations.receiverOf(db, actorOf(leader), params.endpointId), headers: NO_STORE };
}

async function updateWebhookReceiver(
  { leader, params, body, transaction }: HandlerContext<typeof routes.updateWebhookReceiver>,
  deps: RouteDeps,
) {
  // A receiver of another community is not found before its new URL is looked up.
  await integrations.receiverOf(deps.db, actorOf(leader), params.endpointId);
  const url =
    body.url === undefined ? undefined : await integrations.checkReceiverUrl(body.url, webhookDeps(deps).policy);
  return transaction(async (trx) => ({
    body: await integrations.updateReceiver(trx, actorOf(leader), params.endpointId, { ...body, url }),
    headers: NO_STORE,
  }));
}

const statusHandler =
  (status: 'ENABLED' | 'DISABLED' | 'REMOVED') =>
  async ({
    leader,
    params,
    transaction,
  }: HandlerContext<
    typeof routes.enableWebhookReceiver | typeof routes.disableWebhookReceiver | typeof routes.deleteWebhookReceiver
  >) =>
    transaction(async (trx) => ({
      body: await integrations.setReceiverStatus(trx, actorOf(leader), params.endpointId, status),
      headers: NO_STORE,
    }));

async function rotateWebhookSecret(
  { leader, params, body, transaction }: HandlerContext<typeof routes.rotateWebhookSecret>,
  deps: RouteDeps,
) {
  const overlapMs = body.overlapSeconds === undefined ? DEFAULT_ROTATION_OVERLAP_MS : body.overlapSeconds * 1000;
  return transaction(async (trx) => ({
    body: await integrations.rotateReceiverSecret(
      trx,
      actorOf(leader),
      webhookDeps(deps).secrets,
      params.endpointId,
      overlapMs,
    ),
    headers: NO_STORE,
  }));
}

async function listWebhookDeliveries(
  { leader, params, query }: HandlerContext<typeof routes.listWebhookDeliveries>,
  { db }: RouteDeps,
) {
  const offset = query.offset ?? 0;
  const page = await integrations.listReceiverDeliveries(db, actorOf(leader), params.endpointId, {
    status: query.status,
    limit: query.limit,
    offset,
  });
  return {
    body: page.items,
    headers: NO_STORE,
    page: offsetPage(page.items.length, page.total, query.limit, offset),
  };
}

async function getWebhookDelivery(
  { leader, params }: HandlerContext<typeof routes.getWebhookDelivery>,
  { db }: RouteDeps,
) {
  return {
    body: await integrations.deliveryWithAttempts(db, actorOf(leader), params.endpointId, params.deliveryId),
    headers: NO_STORE,
  };
}

async function replayWebhookDelivery({
  leader,
  params,
  transaction,
}: HandlerContext<typeof routes.replayWebhookDelivery>) {
  return transaction(async (trx) => ({
    status: 202,
    body: await integrations.replayReceiverDelivery(trx, actorOf(leader), params.endpointId, params.deliveryId),
    headers: NO_STORE,
  }));
}

async function resendWebhookDeliveries({
  leader,
  params,
  body,
  transaction,
}: HandlerContext<typeof routes.resendWebhookDeliveries>) {
  const since = new Date(body.since).toISOString();
  return transaction(async (trx) => ({
    status: 202,
    body: { requeued: await integrations.resendReceiverDeliveries(trx, actorOf(leader), params.endpointId, since) },
    headers: NO_STORE,
  }));
}

export const integrationHandlers = {
  listSecretKeys,
  createSecretKey,
  revokeSecretKey,
  listWebhookReceivers,
  createWebhookReceiver,
  getWebhookReceiver,
  updateWebhookReceiver,
  enableWebhookReceiver: statusHandler('ENABLED'),
  disableWebhookReceiver: statusHandler('DISABLED'),
  rotateWebhookSecret,
  deleteWebhookReceiver: statusHandler('REMOVED'),
  listWebhookDeliveries,
  getWebhookDelivery,
  replayWebhookDelivery,
  resendWebhookDeliveries,
} satisfies Handlers<RoutesOf<typeof routes>>;
