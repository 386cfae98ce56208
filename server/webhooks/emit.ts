// emit(): the transactional outbox. The event row and one delivery per subscribed, enabled
// endpoint are written with the caller's transaction, so a rolled-back change emits nothing and
// a committed change is always delivered (the worker picks deliveries up from the table).
import {
  ALL_EVENTS,
  WEBHOOK_EVENTS,
  type WebhookEventData,
  type WebhookEventName,
} from '../../contract/webhook-events.ts';
import { afterCommit, type Trx } from '../db/index.ts';
import { nowIso, parseJson } from '../db/ids.ts';
import { newDeliveryId, newEventId } from './ids.ts';
import { wakeWorkers } from './wake.ts';

export interface EmitCommunity {
  id: string;
  tag: string;
}
export interface Emitted {
  eventId: string;
  deliveryIds: string[];
}

/**
 * Records `event` for `community` inside `trx`. The data is checked against the catalog in
 * contract/webhook-events.ts: a payload outside its contract is a bug, and failing here rolls the
 * caller's change back rather than sending receivers something undocumented.
 */
export async function emit<E extends WebhookEventName>(
  trx: Trx,
  community: EmitCommunity,
  event: E,
  data: WebhookEventData<E>,
): Promise<Emitted> {
  const payload = WEBHOOK_EVENTS[event].parse(data);
  const now = nowIso();
  const eventId = newEventId();
  await trx
    .insertInto('webhook_events')
    .values({
      id: eventId,
      community_id: community.id,
      community_tag: community.tag,
      name: event,
      data: JSON.stringify(payload),
      created_at: now,
    })
    .execute();

  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('community_id', '=', community.id)
    .where('status', '=', 'ENABLED')
    .execute();
  const subscribed = endpoints.filter((e) => {
    const names = parseJson<string[]>(e.events, []);
    return names.includes(ALL_EVENTS) || names.includes(event);
  });
  if (subscribed.length === 0) return { eventId, deliveryIds: [] };

  const rows = subscribed.map((e) => ({
    id: newDeliveryId(),
    event_id: eventId,
    endpoint_id: e.id,
    community_id: community.id,
    status: 'PENDING' as const,
    next_attempt_at: now,
    lease_token: null,
    previous_lease_token: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  }));
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  afterCommit(trx, wakeWorkers);
  return { eventId, deliveryIds: rows.map((r) => r.id) };
}
