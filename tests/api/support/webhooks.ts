// Webhook test kit: real HTTP receivers on 127.0.0.1 that record every request, a worker with a
// compressed schedule, and helpers to emit and to wait for the outbox to settle.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import crypto from 'node:crypto';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { WebhookConfig } from '../../../server/config.ts';
import { transaction, type DatabaseHandle, type Db } from '../../../server/db/index.ts';
import { createLogger } from '../../../server/http/logger.ts';
import { emit } from '../../../server/webhooks/emit.ts';
import { createEndpoint } from '../../../server/webhooks/endpoints.ts';
import { SecretBox } from '../../../server/webhooks/secret-box.ts';
import { DeliveryWorker, type WorkerDeps } from '../../../server/webhooks/worker.ts';
import type { WebhookEventData, WebhookEventName } from '../../../contract/webhook-events.ts';
import { waitFor } from './wait.ts';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type ReceiverHandler = (req: IncomingMessage, res: ServerResponse, received: ReceivedRequest) => void;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Replaces what the receiver answers from now on. */
  handle(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

export async function startReceiver(
  handler: ReceiverHandler = (_q, res) => res.writeHead(204).end(),
): Promise<Receiver> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      current(req, res, received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    requests,
    handle(h) {
      current = h;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export const testSecretBox = (): SecretBox => new SecretBox(crypto.randomBytes(32));

export function webhookConfig(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    allowPrivate: true,
    retryDelaysMs: [50, 100, 150, 200, 250],
    timeoutMs: 2000,
    concurrency: 16,
    pollMs: 50,
    worker: true,
    ...overrides,
  };
}

export function startWorker(
  database: DatabaseHandle,
  secrets: SecretBox,
  config: Partial<WebhookConfig> = {},
  extra: Partial<WorkerDeps> = {},
): DeliveryWorker {
  const worker = new DeliveryWorker({
    db: database.db,
    dialect: database.dialect,
    config: webhookConfig(config),
    secrets,
    logger: createLogger('silent'),
    ...extra,
  });
  worker.start();
  return worker;
}

export async function addEndpoint(db: Db, secrets: SecretBox, communityId: string, url: string, events?: string[]) {
  return createEndpoint(db, secrets, { allowPrivate: true, lookup: async () => [] }, { communityId, url, events });
}

export async function emitOne<E extends WebhookEventName>(
  db: Db,
  community: { id: string; tag: string },
  event: E,
  data: WebhookEventData<E>,
) {
  return transaction(db, (trx) => emit(trx, community, event, data));
}

export const approved = (memberId: string = crypto.randomUUID()) => ({
  memberId,
  userId: crypto.randomUUID(),
  approvedAt: new Date().toISOString(),
  approvedBy: crypto.randomUUID(),
});

export { waitFor };

export async function deliveryRow(db: Db, id: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function attemptRows(db: Db, deliveryId: string) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('number')
    .execute();
}

/** The attempt log of a delivery once it has at least `n` rows. */
export const attemptsOnceLogged = (db: Db, deliveryId: string, n = 1) =>
  waitFor(async () => {
    const rows = await attemptRows(db, deliveryId);
    return rows.length >= n ? rows : null;
  }, `${n} logged attempt(s) of ${deliveryId}`);

const stripe = new Stripe('sk_test_not_used_for_network');

/**
 * Every delivery of `community`'s events, once all of them have succeeded, as `receiver` got
 * them: each signature verified with the endpoint's `secret` (the way a customer's Stripe SDK
 * would), and the Svc-Event header naming the body's event.
 */
export async function deliveredTo<T extends { event: string }>(
  db: Db,
  receiver: Receiver,
  community: { id: string; tag: string },
  secret: string,
): Promise<T[]> {
  const rows = await waitFor(async () => {
    const all = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('community_id', '=', community.id)
      .execute();
    return all.every((d) => d.status === 'SUCCEEDED') ? all : null;
  }, `deliveries of ${community.tag} to succeed`);
  const received = receiver.requests.filter((r) => JSON.parse(r.body).communityTag === community.tag);
  expect(received).toHaveLength(rows.length);
  return received.map((r) => {
    const verified = stripe.webhooks.constructEvent(
      r.body,
      r.headers['svc-signature'] as string,
      secret,
    ) as unknown as T;
    expect(r.headers['svc-event']).toBe(verified.event);
    return verified;
  });
}
