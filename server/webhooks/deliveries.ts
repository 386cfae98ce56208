// Reading the outbox (deliveries and their attempt log) and sending again: replay one delivery in
// any state, or resend every permanently failed delivery of an endpoint since a time. Both keep
// the delivery id (receivers deduplicate on it) and start a new round with the full schedule.
import type { Db, Trx } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import type { WebhookAttemptOutcome, WebhookDeliveryStatus } from '../db/schema.ts';
import { WebhookAdminError, getEndpoint } from './endpoints.ts';

export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = [
  'PENDING',
  'SUCCEEDED',
  'PERMANENTLY_FAILED',
  'CANCELLED',
];

export interface DeliverySummary {
  id: string;
  endpointId: string;
  event: string;
  eventId: string;
  status: WebhookDeliveryStatus;
  /** Attempts in the current round, and ever. */
  attempts: number;
  totalAttempts: number;
  round: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
}

export interface AttemptSummary {
  number: number;
  round: number;
  outcome: WebhookAttemptOutcome;
  startedAt: string;
  durationMs: number | null;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
}

function deliveries(db: Db | Trx) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'e.name',
      'd.event_id',
      'd.status',
      'd.attempts',
      'd.total_attempts',
      'd.round',
      'd.next_attempt_at',
      'd.lease_token',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.created_at',
    ]);
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveries>['executeTakeFirstOrThrow']>>;

const toSummary = (r: DeliveryRow): DeliverySummary => ({
  id: r.id,
  endpointId: r.endpoint_id,
  event: r.name,
  eventId: r.event_id,
  status: r.status,
  attempts: r.attempts,
  totalAttempts: r.total_attempts,
  round: r.round,
  // While a worker holds it, next_attempt_at is its lease, not a schedule.
  nextAttemptAt: r.status === 'PENDING' && !r.lease_token ? r.next_attempt_at : null,
  lastAttemptAt: r.last_attempt_at,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
});

export async function listDeliveries(
  db: Db,
  endpointId: string,
  opts: { status?: WebhookDeliveryStatus; since?: string; limit?: number; offset?: number } = {},
): Promise<DeliverySummary[]> {
  await getEndpointIncludingRemoved(db, endpointId);
  let q = deliveries(db)
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(opts.limit ?? 50)
    .offset(opts.offset ?? 0);
  if (opts.status) q = q.where('d.status', '=', opts.status);
  if (opts.since) q = q.where('d.created_at', '>=', opts.since);
  return (await q.execute()).map(toSummary);
}

/** How many deliveries `listDeliveries` pages through (with the same status filter). */
export async function countDeliveries(db: Db, endpointId: string, status?: WebhookDeliveryStatus): Promise<number> {
  let q = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('endpoint_id', '=', endpointId);
  if (status) q = q.where('status', '=', status);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function getDelivery(db: Db | Trx, id: string): Promise<DeliverySummary> {
  const row = await deliveries(db).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw new WebhookAdminError(`delivery ${id} not found (see \`svc webhook deliveries <endpointId>\`)`);
  return toSummary(row);
}

export async function listAttempts(db: Db, deliveryId: string): Promise<AttemptSummary[]> {
  await getDelivery(db, deliveryId);
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('number')
    .execute();
  return rows.map((r) => ({
    number: r.number,
    round: r.round,
    outcome: r.outcome,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    statusCode: r.status_code,
    responseBody: r.response_body,
    error: r.error,
  }));
}

async function getEndpointIncludingRemoved(db: Db, id: string): Promise<void> {
  const row = await db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).executeTakeFirst();
  if (!row) throw new WebhookAdminError(`webhook endpoint ${id} not found (see \`svc webhook list\`)`);
}

export async function replayDelivery(db: Db | Trx, deliveryId: string): Promise<DeliverySummary> {
  const delivery = await getDelivery(db, deliveryId);
  const endpoint = await getEndpoint(db, delivery.endpointId);
  if (endpoint.status !== 'ENABLED') {
    throw new WebhookAdminError(
      `endpoint ${endpoint.id} is ${endpoint.status.toLowerCase()}; enable it first with \`svc webhook enable ${endpoint.id}\``,
    );
  }
  const now = nowIso();
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'PENDING',
      attempts: 0,
      round: eb('round', '+', 1),
      next_attempt_at: now,
      // Clearing the lease means an attempt still in flight from before cannot overwrite this round.
      lease_token: null,
      previous_lease_token: null,
      updated_at: now,
    }))
    .where('id', '=', deliveryId)
    .execute();
  return getDelivery(db, deliveryId);
}

/** Requeues every PERMANENTLY_FAILED delivery of the endpoint created at or after `since`. */
export async function resendFailed(db: Db | Trx, endpointId: string, since: string): Promise<string[]> {
  const endpoint = await getEndpoint(db, endpointId);
  if (endpoint.status !== 'ENABLED') {
    throw new WebhookAdminError(
      `endpoint ${endpoint.id} is ${endpoint.status.toLowerCase()}; enable it first with \`svc webhook enable ${endpoint.id}\``,
    );
  }
  const now = nowIso();
  const rows = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'PENDING',
      attempts: 0,
      round: eb('round', '+', 1),
      next_attempt_at: now,
      lease_token: null,
      previous_lease_token: null,
      updated_at: now,
    }))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'PERMANENTLY_FAILED')
    .where('created_at', '>=', since)
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort();
}
