// Tickets for event tiers: free RSVPs, paid checkouts, and what a completed checkout issues.
//
// Capacity (migration 0012): `sold + held <= capacity`, held by conditional UPDATEs on the tier
// row, never by reading first. A free RSVP takes one seat into `sold`; a checkout moves
// `quantity` seats into `held`, and the payment moves them to `sold` (or its release frees them).
import type { FormField } from '../../contract/resources.ts';
import { sql } from 'kysely';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { ticketEmail } from '../mail/ticket-email.ts';
import type { CheckoutRecord, CheckoutRequest } from '../payments/gateway.ts';
import type { FulfilmentHandler, PaymentFacts } from '../payments/payments.ts';
import { emit } from '../webhooks/emit.ts';
import { checkDonationAmount, donationTarget, recordDonation, refundDonationOf } from './donations.ts';
import { checkFormAnswers, type FormAnswers } from './forms.ts';
import { notify } from './notifications.ts';
import { issueReceipt } from './receipts.ts';
import { Refusal } from './refusal.ts';
import { qrPngBase64, type TicketCodes } from './ticket-codes.ts';
import { accountContact } from './users.ts';

export interface Community {
  id: string;
  tag: string;
  name: string;
  brandColor: string | null;
}

interface TierContext {
  event: { id: string; slug: string; name: string; start_date: string; end_date: string | null };
  tier: {
    id: string;
    name: string;
    price_cents: number;
    currency: string;
    capacity: number | null;
    sold: number;
    held: number;
    is_active: number;
  };
  form: FormField[];
}

/** The event by slug and one of its tiers, checked for sale: exists, active, event not over. */
async function tierForSale(trx: Db | Trx, communityId: string, slug: string, tierId: string): Promise<TierContext> {
  const event = await trx
    .selectFrom('events')
    .select(['id', 'slug', 'name', 'start_date', 'end_date'])
    .where('community_id', '=', communityId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!event) throw new Refusal('event_not_found');
  const tier = await trx
    .selectFrom('tiers')
    .select(['id', 'name', 'price_cents', 'currency', 'capacity', 'sold', 'held', 'is_active'])
    .where('id', '=', tierId)
    .where('event_id', '=', event.id)
    .executeTakeFirst();
  if (!tier) throw new Refusal('tier_not_found');
  if (Number(tier.is_active) !== 1) throw new Refusal('tier_inactive');
  // An event is past once it has ended (or started, when it has no end).
  if (Date.parse(event.end_date ?? event.start_date) < Date.now()) throw new Refusal('event_past');
  const formRow = await trx.selectFrom('tier_forms').select('schema').where('tier_id', '=', tier.id).executeTakeFirst();
  return {
    event,
    tier: { ...tier, price_cents: Number(tier.price_cents), sold: Number(tier.sold), held: Number(tier.held) },
    form: parseJson<FormField[]>(formRow?.schema, []),
  };
}

function checkedAnswers(form: FormField[], answers: unknown): FormAnswers | null {
  if (form.length === 0 && (answers === undefined || answers === null)) return null;
  const check = checkFormAnswers(form, answers);
  if (check.ok) return check.answers;
  if (check.kind === 'missing') throw new Refusal('form_missing', { fieldIds: check.fieldIds });
  throw new Refusal('form_invalid', { fieldId: check.fieldId, why: check.reason });
}

/**
 * Takes `quantity` seats into `column` if they exist; false when the tier is full (or, for a new
 * RSVP or hold, no longer active: a paid order whose hold is gone may still be seated).
 */
async function takeSeats(
  trx: Trx,
  tierId: string,
  quantity: number,
  column: 'sold' | 'held',
  opts: { activeOnly?: boolean } = { activeOnly: true },
): Promise<boolean> {
  let q = trx
    .updateTable('tiers')
    .set(column === 'sold' ? { sold: sql`sold + ${quantity}` } : { held: sql`held + ${quantity}` })
    .where('id', '=', tierId)
    .where((eb) => eb.or([eb('capacity', 'is', null), eb(sql`sold + held + ${quantity}`, '<=', eb.ref('capacity'))]));
  if (opts.activeOnly) q = q.where('is_active', '=', 1);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function remainingSeats(trx: Trx, tierId: string): Promise<number | undefined> {
  const t = await trx
    .selectFrom('tiers')
    .select(['capacity', 'sold', 'held'])
    .where('id', '=', tierId)
    .executeTakeFirst();
  return t && t.capacity !== null ? Math.max(0, Number(t.capacity) - Number(t.sold) - Number(t.held)) : undefined;
}

export interface RsvpInput {
  slug: string;
  tierId: string;
  email: string;
  name: string;
  formAnswers?: unknown;
}

export interface RsvpResult {
  ok: true;
  rsvpId: string;
  tierId: string;
  qrCode: string;
  /** False when this e-mail address had already RSVP'd to the tier: the same RSVP is returned. */
  created: boolean;
}

/**
 * A free RSVP. One per e-mail address per tier: a repeat returns the first (and sends nothing).
 * The seat, the ticket, its e-mail, the visitor's notification and `rsvp.confirmed` commit together.
 */
export async function rsvp(trx: Trx, community: Community, codes: TicketCodes, input: RsvpInput): Promise<RsvpResult> {
  const ctx = await tierForSale(trx, community.id, input.slug, input.tierId);
  if (ctx.tier.price_cents > 0) throw new Refusal('tier_is_paid', { slug: input.slug });
  const answers = checkedAnswers(ctx.form, input.formAnswers);
  const email = input.email.trim().toLowerCase();
  const now = nowIso();
  const id = newId();
  // Insert first, counting only a new ticket: a repeat (or its concurrent twin, which waits on
  // the unique index) inserts nothing and takes no seat.
  const inserted = await trx
    .insertInto('tickets')
    .values({
      id,
      community_id: community.id,
      event_id: ctx.event.id,
      tier_id: ctx.tier.id,
      kind: 'RSVP',
      checkout_session_id: null,
      email,
      name: input.name.trim(),
      user_id: null,
      form_answers: answers ? JSON.stringify(answers) : null,
      created_at: now,
      refunded_at: null,
    })
    .onConflict((oc) => oc.columns(['tier_id', 'email']).where(sql.ref('kind'), '=', sql.lit('RSVP')).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
    const existing = await trx
      .selectFrom('tickets')
      .select('id')
      .where('tier_id', '=', ctx.tier.id)
      .where('email', '=', email)
      .where('kind', '=', 'RSVP')
      .executeTakeFirstOrThrow();
    return {
      ok: true,
      rsvpId: existing.id,
      tierId: ctx.tier.id,
      qrCode: await qrPngBase64(codes.codeFor(existing.id)),
      created: false,
    };
  }
  // The thrown error rolls the ticket back with the transaction.
  if (!(await takeSeats(trx, ctx.tier.id, 1, 'sold'))) throw new Refusal('sold_out', { remaining: 0 });

  const code = codes.codeFor(id);
  const qrCode = await qrPngBase64(code);
  await new OutboxMailer(trx).send(
    ticketEmail({
      community,
      to: email,
      name: input.name.trim(),
      event: ctx.event,
      tierName: ctx.tier.name,
      tickets: [{ id, code, qrPng: qrCode }],
    }),
  );
  const user = await trx
    .selectFrom('users')
    .select('id')
    .where(sql<string>`lower(email)`, '=', email)
    .executeTakeFirst();
  if (user) {
    await notify(trx, {
      userId: user.id,
      communityId: community.id,
      kind: 'rsvp.confirmed',
      data: { eventSlug: ctx.event.slug, eventName: ctx.event.name, tierName: ctx.tier.name, rsvpId: id },
    });
  }
  await emit(trx, community, 'rsvp.confirmed', {
    rsvpId: id,
    eventId: ctx.event.id,
    eventSlug: ctx.event.slug,
    tierId: ctx.tier.id,
    email,
    name: input.name.trim(),
    confirmedAt: now,
  });
  return { ok: true, rsvpId: id, tierId: ctx.tier.id, qrCode, created: true };
}

/** Sends an RSVP's ticket e-mail again, to the address it was made for (never to the caller). */
export async function resendTicketEmail(
  trx: Trx,
  community: Community,
  codes: TicketCodes,
  ticketId: string,
): Promise<void> {
  const t = await trx
    .selectFrom('tickets')
    .innerJoin('events', 'events.id', 'tickets.event_id')
    .innerJoin('tiers', 'tiers.id', 'tickets.tier_id')
    .select([
      'tickets.id',
      'tickets.email',
      'tickets.name',
      'events.name as event_name',
      'events.start_date',
      'tiers.name as tier_name',
    ])
    .where('tickets.id', '=', ticketId)
    .executeTakeFirst();
  if (!t) return;
  const code = codes.codeFor(t.id);
  await new OutboxMailer(trx).send(
    ticketEmail({
      community,
      to: t.email,
      name: t.name,
      event: { name: t.event_name, start_date: t.start_date },
      tierName: t.tier_name,
      tickets: [{ id: t.id, code, qrPng: await qrPngBase64(code) }],
    }),
  );
}

export interface TicketCheckoutInput {
  slug: string;
  tierId: string;
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  /** Optional here: Stripe asks the buyer for it, the local checkout page too. */
  email?: string;
  name?: string;
  formAnswers?: unknown;
  /** A sidecar donation in the tier's currency, minor units: its own line item, no minimum. */
  donation?: { amount: number };
  /**
   * A signed-in member buying as themselves (X-Svc-Auth-Token): their account's address is the
   * buyer's (`email` is ignored), their name the tickets' unless `name` is given, and the tickets
   * (and a sidecar donation) are theirs.
   */
  buyerUserId?: string | null;
}

/** The fulfilment purpose of a ticket checkout (checkout_sessions.purpose). */
export interface TicketsPurpose {
  kind: 'tickets';
  communityTag: string;
  eventId: string;
  eventSlug: string;
  eventName: string;
  tierId: string;
  tierName: string;
  quantity: number;
  unitAmount: number;
  name: string | null;
  formAnswers: FormAnswers | null;
  donationAmount: number;
  /** A free RSVP paid through a checkout because it carries a donation: issues an RSVP ticket. */
  rsvp: boolean;
  /** The member who buys as themselves; absent on checkouts opened before it existed. */
  buyerUserId?: string | null;
  [key: string]: unknown;
}

/** What a ticket checkout will sell, validated; its seats are taken by holdTicketSeats(). */
export interface TicketCheckoutPlan {
  request: CheckoutRequest;
  tierId: string;
  quantity: number;
}

/** Seats one caller may hold at once in one tier across its open checkouts (widget callers). */
export const MAX_HELD_PER_HOLDER = 10;

/**
 * Validates a ticket checkout and describes it for the payment gateway. Reads only: seats are
 * taken in the transaction that writes the checkout (holdTicketSeats), after the processor has
 * answered. `rsvpWithDonation` is the RSVP flow with a donation: a free tier, one seat, paid for
 * by the donation line alone.
 */
export async function planTicketCheckout(
  db: Db | Trx,
  community: Community,
  input: TicketCheckoutInput,
  opts: { rsvpWithDonation?: boolean } = {},
): Promise<TicketCheckoutPlan> {
  const ctx = await tierForSale(db, community.id, input.slug, input.tierId);
  if (opts.rsvpWithDonation ? ctx.tier.price_cents > 0 : ctx.tier.price_cents === 0) {
    throw new Refusal(opts.rsvpWithDonation ? 'tier_is_paid' : 'tier_is_free', { slug: input.slug });
  }
  const answers = checkedAnswers(ctx.form, input.formAnswers);
  if (input.donation) {
    // The event's donation settings decide; riding on a paid ticket lifts the 50 floor, riding
    // on a free RSVP does not (that checkout is the donation alone).
    const target = await donationTarget(db, community.id, 'EVENT', input.slug);
    checkDonationAmount(target!, input.donation.amount, { sidecar: !opts.rsvpWithDonation });
    // One event's donations add up in one currency (its summary's).
    if (target!.currency !== ctx.tier.currency.toUpperCase())
      throw new Refusal('donation_currency_mismatch', { currency: target!.currency });
  }
  // Fail early when the seats are plainly gone; the conditional UPDATE in holdTicketSeats decides.
  const remaining =
    ctx.tier.capacity === null ? null : Math.max(0, Number(ctx.tier.capacity) - ctx.tier.sold - ctx.tier.held);
  if (remaining !== null && remaining < input.quantity) throw new Refusal('sold_out', { remaining });
  const donationAmount = input.donation?.amount ?? 0;
  const buyer = input.buyerUserId ? await accountContact(db, input.buyerUserId) : null;
  const purpose: TicketsPurpose = {
    kind: 'tickets',
    communityTag: community.tag,
    eventId: ctx.event.id,
    eventSlug: ctx.event.slug,
    eventName: ctx.event.name,
    tierId: ctx.tier.id,
    tierName: ctx.tier.name,
    quantity: input.quantity,
    unitAmount: ctx.tier.price_cents,
    name: input.name?.trim() || buyer?.name || null,
    formAnswers: answers,
    donationAmount,
    rsvp: Boolean(opts.rsvpWithDonation),
    buyerUserId: buyer ? input.buyerUserId : null,
  };
  return {
    tierId: ctx.tier.id,
    quantity: input.quantity,
    request: {
      communityId: community.id,
      purpose,
      lineItems: [
        {
          name: `${ctx.event.name}: ${ctx.tier.name}${ctx.tier.price_cents === 0 ? ' (free)' : ''}`,
          unitAmount: ctx.tier.price_cents,
          quantity: input.quantity,
        },
        ...(donationAmount > 0
          ? [{ name: `Donation to ${community.name}`, unitAmount: donationAmount, quantity: 1 }]
          : []),
      ],
      currency: ctx.tier.currency,
      customerEmail: buyer?.email ?? (input.email?.trim().toLowerCase() || null),
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
    },
  };
}

/**
 * Holds the plan's seats for the checkout `checkoutId` (already written in `trx`). `holder` names
 * who asks (a widget caller: its IP or signed-in user) and caps what one caller can hold, so the
 * public widget cannot be used to make an event look sold out; servers (/v1) pass null.
 */
export async function holdTicketSeats(
  trx: Trx,
  plan: TicketCheckoutPlan,
  checkoutId: string,
  holder: string | null,
): Promise<void> {
  // Seats first: the UPDATE locks the tier row, so concurrent holds of one tier take turns and
  // the count below sees every earlier caller's committed holds (a throw rolls the seats back).
  if (!(await takeSeats(trx, plan.tierId, plan.quantity, 'held'))) {
    throw new Refusal('sold_out', { remaining: await remainingSeats(trx, plan.tierId) });
  }
  if (holder) {
    const held = await trx
      .selectFrom('ticket_holds')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('quantity'), eb.lit(0)).as('n'))
      .where('tier_id', '=', plan.tierId)
      .where('holder', '=', holder)
      .executeTakeFirstOrThrow();
    if (Number(held.n) + plan.quantity > MAX_HELD_PER_HOLDER)
      throw new Refusal('too_many_held', { held: Number(held.n) });
  }
  await trx
    .insertInto('ticket_holds')
    .values({
      checkout_session_id: checkoutId,
      tier_id: plan.tierId,
      quantity: plan.quantity,
      holder,
      created_at: nowIso(),
    })
    .execute();
}

/** Gives a checkout's held seats back; false when it held none (already moved). */
async function dropHold(trx: Trx, checkoutId: string, into: 'sold' | 'free'): Promise<boolean> {
  const hold = await trx
    .deleteFrom('ticket_holds')
    .where('checkout_session_id', '=', checkoutId)
    .returning(['tier_id', 'quantity'])
    .executeTakeFirst();
  if (!hold) return false;
  await trx
    .updateTable('tiers')
    .set(
      into === 'sold'
        ? { held: sql`held - ${hold.quantity}`, sold: sql`sold + ${hold.quantity}` }
        : { held: sql`held - ${hold.quantity}` },
    )
    .where('id', '=', hold.tier_id)
    .execute();
  return true;
}

/**
 * A ticket checkout's sidecar donation, when it has one: its donation row and `donation.received`,
 * and the payment's receipt (the tickets themselves are e-mailed apart, when they are issued).
 */
async function settleSidecarDonation(
  trx: Trx,
  community: { id: string; tag: string },
  checkout: CheckoutRecord,
  payment: PaymentFacts,
): Promise<void> {
  const p = checkout.purpose as TicketsPurpose;
  if (p.donationAmount <= 0) return;
  await recordDonation(trx, {
    communityId: community.id,
    communityTag: community.tag,
    targetType: 'EVENT',
    targetId: p.eventId,
    checkout,
    transactionId: payment.transactionId,
    amount: p.donationAmount,
    sidecar: true,
    donorUserId: p.buyerUserId ?? null,
  });
  await issueReceipt(trx, {
    checkout,
    transactionId: payment.transactionId,
    donation: { amount: p.donationAmount, standalone: false },
    userId: p.buyerUserId ?? null,
    name: p.name,
  });
}

export interface TicketsHandlerDeps {
  codes: TicketCodes;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** What a paid ticket checkout does when it is paid, abandoned or refunded. */
export function ticketsFulfilment(deps: TicketsHandlerDeps): FulfilmentHandler {
  return {
    async completed(trx, checkout, payment) {
      const p = checkout.purpose as TicketsPurpose;
      const community = await trx
        .selectFrom('communities')
        .select(['id', 'tag', 'name', 'theme_config'])
        .where('id', '=', checkout.communityId)
        .executeTakeFirst();
      if (!community) return;
      // No hold left means it was released (expired or cancelled) before the payment committed, in
      // whichever order the two raced: take the seats again if they are still there.
      const seated =
        (await dropHold(trx, checkout.id, 'sold')) ||
        (await takeSeats(trx, p.tierId, p.quantity, 'sold', { activeOnly: false }));
      const email = (checkout.customerEmail ?? '').toLowerCase();
      const now = nowIso();
      if (!seated) {
        // Paid after its hold was released, and the seats have gone since: issuing would break
        // capacity. The payment and its donation are recorded, and order.completed says
        // `seated: false` so a person (or the community's own system) refunds the tickets.
        deps.logger?.error(
          { checkoutId: checkout.id, transactionId: payment.transactionId },
          'paid after expiry and the tier is full: refund this payment',
        );
        await settleSidecarDonation(trx, community, checkout, payment);
        await emit(trx, community, 'order.completed', {
          orderId: checkout.id,
          eventId: p.eventId,
          eventSlug: p.eventSlug,
          tierId: p.tierId,
          quantity: p.quantity,
          ticketIds: [],
          seated: false,
          amount: checkout.amountTotal,
          currency: checkout.currency,
          donationAmount: p.donationAmount,
          customerEmail: email || null,
          transactionId: payment.transactionId,
          completedAt: now,
        });
        return;
      }
      const ids = Array.from({ length: p.quantity }, () => newId());
      const rows = ids.map((id) => ({
        id,
        community_id: community.id,
        event_id: p.eventId,
        tier_id: p.tierId,
        kind: (p.rsvp ? 'RSVP' : 'PAID') as 'RSVP' | 'PAID',
        checkout_session_id: checkout.id,
        email,
        name: p.name ?? email,
        user_id: p.buyerUserId ?? null,
        form_answers: p.formAnswers ? JSON.stringify(p.formAnswers) : null,
        created_at: now,
        refunded_at: null,
      }));
      if (p.rsvp) {
        // Already RSVP'd with this address: the donation stands, the seat goes back.
        const inserted = await trx
          .insertInto('tickets')
          .values(rows)
          .onConflict((oc) => oc.columns(['tier_id', 'email']).where(sql.ref('kind'), '=', sql.lit('RSVP')).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
          await trx
            .updateTable('tiers')
            .set({ sold: sql`sold - ${p.quantity}` })
            .where('id', '=', p.tierId)
            .execute();
          ids.length = 0;
        }
      } else {
        await trx.insertInto('tickets').values(rows).execute();
      }
      const event = await trx
        .selectFrom('events')
        .select(['id', 'slug', 'name', 'start_date', 'end_date'])
        .where('id', '=', p.eventId)
        .executeTakeFirstOrThrow();
      if (email && ids.length > 0) {
        const tickets = await Promise.all(
          ids.map(async (id) => {
            const code = deps.codes.codeFor(id);
            return { id, code, qrPng: await qrPngBase64(code) };
          }),
        );
        const brand = parseJson<{ brandColor?: string } | null>(community.theme_config, null)?.brandColor ?? null;
        await new OutboxMailer(trx).send(
          ticketEmail({
            community: { name: community.name, brandColor: brand },
            to: email,
            name: p.name ?? email,
            event,
            tierName: p.tierName,
            tickets,
          }),
        );
      }
      await emit(trx, community, 'order.completed', {
        orderId: checkout.id,
        eventId: p.eventId,
        eventSlug: p.eventSlug,
        tierId: p.tierId,
        quantity: p.quantity,
        ticketIds: ids,
        seated: true,
        amount: checkout.amountTotal,
        currency: checkout.currency,
        donationAmount: p.donationAmount,
        customerEmail: email || null,
        transactionId: payment.transactionId,
        completedAt: now,
      });
      await settleSidecarDonation(trx, community, checkout, payment);
      if (p.rsvp && ids.length > 0) {
        await emit(trx, community, 'rsvp.confirmed', {
          rsvpId: ids[0],
          eventId: p.eventId,
          eventSlug: p.eventSlug,
          tierId: p.tierId,
          email,
          name: p.name ?? email,
          confirmedAt: now,
        });
      }
    },

    async released(trx, checkout) {
      await dropHold(trx, checkout.id, 'free');
    },

    async refunded(trx, checkout, refund) {
      const p = checkout.purpose as TicketsPurpose;
      const now = nowIso();
      const refunded = await trx
        .updateTable('tickets')
        .set({ refunded_at: now })
        .where('checkout_session_id', '=', checkout.id)
        .where('refunded_at', 'is', null)
        .returning('id')
        .execute();
      // A refunded seat is sellable again.
      if (refunded.length > 0)
        await trx
          .updateTable('tiers')
          .set({ sold: sql`sold - ${refunded.length}` })
          .where('id', '=', p.tierId)
          .execute();
      await refundDonationOf(trx, checkout, refund.transactionId);
      const community = await trx
        .selectFrom('communities')
        .select(['id', 'tag'])
        .where('id', '=', checkout.communityId)
        .executeTakeFirst();
      if (community) {
        await emit(trx, community, 'order.refunded', {
          orderId: checkout.id,
          transactionId: refund.transactionId,
          amount: refund.amountRefunded,
          currency: checkout.currency,
          ticketIds: refunded.map((t) => t.id),
          refundedAt: now,
        });
      }
    },
  };
}

export interface VerifiedTicket {
  valid: boolean;
  ticket?: {
    id: string;
    kind: 'RSVP' | 'PAID';
    eventSlug: string;
    tierId: string;
    tierName: string;
    name: string;
    email: string;
    refunded: boolean;
    issuedAt: string;
  };
}

/** What the door sees for a scanned code: genuine, of this community, and not refunded. */
export async function verifyTicketCode(
  db: Db,
  communityId: string,
  codes: TicketCodes,
  code: string,
): Promise<VerifiedTicket> {
  const id = codes.ticketIdOf(code);
  if (!id) return { valid: false };
  const row = await db
    .selectFrom('tickets')
    .innerJoin('events', 'events.id', 'tickets.event_id')
    .innerJoin('tiers', 'tiers.id', 'tickets.tier_id')
    .select([
      'tickets.id',
      'tickets.kind',
      'tickets.tier_id',
      'tickets.name',
      'tickets.email',
      'tickets.refunded_at',
      'tickets.created_at',
      'events.slug',
      'tiers.name as tier_name',
    ])
    .where('tickets.id', '=', id)
    .where('tickets.community_id', '=', communityId)
    .executeTakeFirst();
  if (!row) return { valid: false };
  return {
    valid: row.refunded_at === null,
    ticket: {
      id: row.id,
      kind: row.kind,
      eventSlug: row.slug,
      tierId: row.tier_id,
      tierName: row.tier_name,
      name: row.name,
      email: row.email,
      refunded: row.refunded_at !== null,
      issuedAt: row.created_at,
    },
  };
}

export type { CheckoutRecord };
