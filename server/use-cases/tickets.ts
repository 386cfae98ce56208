// RSVP and ticket checkout, for /v1 (server/v1/tickets.ts) and <svc-rsvp>'s widget actions
// (server/actions/tickets.ts): the same rules, outcomes and refusals; what differs is the caller.
import type { SaleCommunity } from '../domain/communities.ts';
import * as events from '../domain/events.ts';
import { Refusal } from '../domain/refusal.ts';
import * as tickets from '../domain/tickets.ts';
import type { RunTransaction } from '../http/routes.ts';
import { refusalError } from '../http/refusals.ts';
import { commitCheckout, type SaleDeps } from './checkout.ts';

export type RsvpBody = {
  tierId: string;
  email: string;
  name: string;
  formAnswers?: Record<string, unknown>;
  donation?: { amount: number };
  successUrl?: string;
  cancelUrl?: string;
};
export type CheckoutBody = {
  tierId: string;
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  email?: string;
  name?: string;
  formAnswers?: Record<string, unknown>;
  donation?: { amount: number };
};

/** Who booked: a server with its key (no cap on holds), or a widget caller (capped, and never shown another's ticket). */
export interface TicketCaller {
  community: SaleCommunity;
  /** The widget caller's idempotency owner (its IP or user); null for a server. */
  holder: string | null;
}

/** Widgets act as the public: only an event the community shows publicly can be booked that way. */
export async function assertPublicEvent(
  deps: Pick<SaleDeps, 'db'>,
  community: SaleCommunity,
  slug: string,
): Promise<SaleCommunity> {
  if (!(await events.getEvent(deps.db, community.events, slug))) throw new Refusal('event_not_found');
  return community;
}

function openPlanned(
  deps: SaleDeps,
  transaction: RunTransaction,
  plan: tickets.TicketCheckoutPlan,
  holder: string | null,
) {
  return commitCheckout(deps.payments, transaction, plan.request, (trx, checkoutId) =>
    tickets.holdTicketSeats(trx, plan, checkoutId, holder),
  );
}

export async function rsvp(
  deps: SaleDeps,
  transaction: RunTransaction,
  caller: TicketCaller,
  slug: string,
  body: RsvpBody,
) {
  const { community } = caller;
  if (body.donation) {
    if (!body.successUrl) throw new Refusal('return_urls_required', { field: 'successUrl' });
    if (!body.cancelUrl) throw new Refusal('return_urls_required', { field: 'cancelUrl' });
    const plan = await tickets.planTicketCheckout(
      deps.db,
      community,
      {
        slug,
        tierId: body.tierId,
        quantity: 1,
        successUrl: body.successUrl,
        cancelUrl: body.cancelUrl,
        email: body.email,
        name: body.name,
        formAnswers: body.formAnswers,
        donation: body.donation,
      },
      { rsvpWithDonation: true },
    );
    return openPlanned(deps, transaction, plan, caller.holder);
  }
  return transaction(async (trx) => {
    const result = await tickets.rsvp(trx, community, deps.ticketCodes, { slug, ...body });
    // The public widget never hands out an existing ticket: whoever knows an address would get
    // its QR code. It is e-mailed to the address again instead (at most a few times an hour).
    if (!result.created && caller.holder) {
      const resend = await deps.rateLimits.consume('account-emails', `ticket:${body.email.trim().toLowerCase()}`).then(
        () => true,
        () => false,
      );
      if (resend) await tickets.resendTicketEmail(trx, community, deps.ticketCodes, result.rsvpId);
      // Answered, not thrown: the e-mail above commits with it. mountRoute adds the request id.
      return { status: 409, body: refusalError(new Refusal('already_rsvpd')).toEnvelope() };
    }
    return { body: { ok: result.ok, rsvpId: result.rsvpId, tierId: result.tierId, qrCode: result.qrCode } };
  });
}

/** `buyerUserId`: the member a server named with X-Svc-Auth-Token, whose tickets these are. */
export async function ticketCheckout(
  deps: SaleDeps,
  transaction: RunTransaction,
  caller: TicketCaller,
  slug: string,
  body: CheckoutBody,
  buyerUserId: string | null = null,
) {
  const plan = await tickets.planTicketCheckout(deps.db, caller.community, { slug, ...body, buyerUserId });
  return openPlanned(deps, transaction, plan, caller.holder);
}
