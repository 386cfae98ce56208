// Rows the console's overview counts, written straight to their tables at chosen times: donations
// (each with the checkout it completed), RSVPs and membership requests.
import { newId, nowIso } from '../../../server/db/ids.ts';
import type { Db } from '../../../server/db/index.ts';
import { makeEvent, makeSegment, makeUser } from './factory.ts';

export async function insertDonation(
  db: Db,
  communityId: string,
  d: { amount: number; currency: string; at: string; refunded?: boolean },
): Promise<void> {
  const checkout = newId();
  await db
    .insertInto('checkout_sessions')
    .values({
      id: checkout,
      community_id: communityId,
      gateway: 'local',
      processor_session_id: `cs_${checkout}`,
      checkout_url: null,
      purpose_kind: 'donation',
      purpose: '{}',
      line_items: '[]',
      currency: d.currency,
      amount_total: d.amount,
      customer_email: null,
      success_url: 'http://example.com/ok',
      cancel_url: 'http://example.com/cancel',
      status: 'COMPLETED',
      expires_at: d.at,
      created_at: d.at,
      closed_at: d.at,
      transaction_id: `pi_${checkout}`,
    })
    .execute();
  await db
    .insertInto('donations')
    .values({
      id: newId(),
      community_id: communityId,
      target_type: 'EVENT',
      target_id: newId(),
      checkout_session_id: checkout,
      transaction_id: `pi_${checkout}`,
      amount: d.amount,
      currency: d.currency,
      sidecar: 0,
      donor_email: null,
      donor_user_id: null,
      received_at: d.at,
      refunded_at: d.refunded ? d.at : null,
    })
    .execute();
}

/** An event with a free tier, for RSVPs. */
export async function rsvpEvent(db: Db, communityId: string, startDate?: string) {
  const e = await makeEvent(db, communityId, { startDate, tiers: [{ priceCents: 0 }] });
  return { ...e, tierId: e.tierIds[0] };
}

let seq = 0;
export async function insertTicket(
  db: Db,
  communityId: string,
  event: { id: string; tierId: string },
  t: { at: string; kind?: 'RSVP' | 'PAID'; refunded?: boolean },
): Promise<void> {
  await db
    .insertInto('tickets')
    .values({
      id: newId(),
      community_id: communityId,
      event_id: event.id,
      tier_id: event.tierId,
      kind: t.kind ?? 'RSVP',
      checkout_session_id: null,
      email: `guest${++seq}-${Date.now()}@example.com`,
      name: 'Guest',
      user_id: null,
      form_answers: null,
      created_at: t.at,
      refunded_at: t.refunded ? t.at : null,
      checked_in_at: null,
    })
    .execute();
}

export async function insertRequest(
  db: Db,
  communityId: string,
  status: 'PENDING' | 'PAYMENT_PENDING' | 'APPROVED' | 'REJECTED',
): Promise<void> {
  const user = await makeUser(db);
  await db
    .insertInto('membership_requests')
    .values({
      id: newId(),
      community_id: communityId,
      segment_id: await makeSegment(db, communityId),
      user_id: user.id,
      email: `${user.usertag}@example.com`,
      answers: '{}',
      source: null,
      billing_cycle: null,
      status,
      reason: null,
      created_at: nowIso(),
      decided_at: null,
      decided_by: null,
    })
    .execute();
}
