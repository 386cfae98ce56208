// Tickets: RSVP and checkout on /v1 (secret key, WRITE_SALES) and as widget actions (<svc-rsvp>);
// both call the same domain functions in server/domain/tickets.ts. A /v1 checkout names its buyer
// with X-Svc-Auth-Token exactly as the donate routes name their donor (server/http/member-token.ts).
import type { Router } from 'express';
import { checkoutEvent, rsvpToEvent, verifyTicket, widgetCheckout, widgetRsvp } from '../../contract/routes/tickets.ts';
import type { Db, Trx } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import * as events from '../domain/events.ts';
import * as tickets from '../domain/tickets.ts';
import { DonationError } from '../domain/donations.ts';
import { donationApiError } from './donation-errors.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type HandlerResult, type RouteDeps } from '../http/routes.ts';
import { assertWidgetReturnUrls } from '../http/widget-actions.ts';
import { PaymentProcessorError, PaymentsUnavailableError } from '../payments/index.ts';

type RsvpBody = { tierId: string; email: string; name: string; formAnswers?: Record<string, unknown>; donation?: { amount: number }; successUrl?: string; cancelUrl?: string };
type CheckoutBody = { tierId: string; quantity: number; successUrl: string; cancelUrl: string; email?: string; name?: string; formAnswers?: Record<string, unknown>; donation?: { amount: number } };

async function communityOf(trx: Db | Trx, communityId: string): Promise<tickets.Community> {
  const row = await trx.selectFrom('communities').select(['id', 'tag', 'name', 'theme_config']).where('id', '=', communityId).executeTakeFirst();
  if (!row) throw notFound(messages.communityNotFound);
  const brandColor = parseJson<{ brandColor?: unknown } | null>(row.theme_config, null)?.brandColor;
  return { id: row.id, tag: row.tag, name: row.name, brandColor: typeof brandColor === 'string' ? brandColor : null };
}

/** TicketError and payment failures as the API's errors. */
function asApiError(err: unknown, slug: string): never {
  if (err instanceof tickets.TicketError) {
    const d = err.detail;
    switch (err.reason) {
      case 'event_not_found': throw notFound(messages.eventNotFound);
      case 'tier_not_found': throw new ApiError('INVALID_INPUT', messages.tierNotOfEvent, { field: 'tierId' });
      case 'tier_inactive': throw new ApiError('INVALID_INPUT', messages.tierInactive, { field: 'tierId' });
      case 'tier_is_paid': throw new ApiError('INVALID_INPUT', messages.tierIsPaid(slug), { field: 'tierId' });
      case 'tier_is_free': throw new ApiError('INVALID_INPUT', messages.tierIsFree(slug), { field: 'tierId' });
      case 'event_past': throw new ApiError('UNPROCESSABLE', messages.eventIsOver);
      case 'sold_out':
        throw new ApiError('UNPROCESSABLE', d.remaining ? messages.onlyNLeft(d.remaining) : messages.tierSoldOut, { field: 'quantity', remaining: d.remaining ?? 0 });
      case 'too_many_held': throw new ApiError('UNPROCESSABLE', messages.tooManyHeld(d.held ?? 0), { field: 'quantity' });
      case 'form_missing':
        throw new ApiError('UNPROCESSABLE', messages.formFieldsMissing, { field: `formAnswers.${d.fieldIds![0]}`, fields: d.fieldIds });
      case 'form_invalid':
        throw new ApiError('INVALID_INPUT', `${d.fieldId ? `formAnswers.${d.fieldId}` : 'formAnswers'} ${d.why}`, { field: d.fieldId ? `formAnswers.${d.fieldId}` : 'formAnswers' });
    }
  }
  if (err instanceof DonationError) donationApiError(err);
  if (err instanceof PaymentsUnavailableError) throw new ApiError('SERVICE_UNAVAILABLE', messages.paymentsUnavailable);
  if (err instanceof PaymentProcessorError) throw new ApiError('PAYMENT_PROCESSOR_ERROR', messages.paymentProcessorError);
  throw err;
}

function need<T>(value: T | undefined, what: string): T {
  if (!value) throw new Error(`${what} missing from RouteDeps`);
  return value;
}

type RunTransaction = <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => Promise<R>;

/** Who booked: a server with its key (no cap on holds), or a widget caller (capped, and never shown another's ticket). */
interface Caller {
  communityId: string;
  /** The widget caller's idempotency owner (its IP or user); null for a server. */
  holder: string | null;
}

/**
 * A checkout of the plan: the processor is asked first, outside any transaction, then the
 * checkout row and its seat hold commit together (or the processor's session is discarded).
 */
async function openPlanned(deps: RouteDeps, transaction: RunTransaction, plan: tickets.TicketCheckoutPlan, holder: string | null) {
  const payments = need(deps.payments, 'payments');
  return payments.openCheckout(plan.request, (prepared) => transaction(async (trx) => {
    await payments.persist(trx, prepared);
    await tickets.holdTicketSeats(trx, plan, prepared.checkout.id, holder);
    return { body: { checkoutUrl: prepared.opened.checkoutUrl, sessionId: prepared.opened.sessionId } };
  }));
}

async function doRsvp(deps: RouteDeps, transaction: RunTransaction, caller: Caller, slug: string, body: RsvpBody) {
  const codes = need(deps.ticketCodes, 'ticketCodes');
  try {
    const community = await communityOf(deps.db, caller.communityId);
    if (body.donation) {
      if (!body.successUrl) throw new ApiError('INVALID_INPUT', messages.urlsRequiredWithDonation, { field: 'successUrl' });
      if (!body.cancelUrl) throw new ApiError('INVALID_INPUT', messages.urlsRequiredWithDonation, { field: 'cancelUrl' });
      const plan = await tickets.planTicketCheckout(deps.db, community, {
        slug, tierId: body.tierId, quantity: 1, successUrl: body.successUrl, cancelUrl: body.cancelUrl,
        email: body.email, name: body.name, formAnswers: body.formAnswers, donation: body.donation,
      }, { rsvpWithDonation: true });
      return await openPlanned(deps, transaction, plan, caller.holder);
    }
    return await transaction(async (trx) => {
      const result = await tickets.rsvp(trx, community, codes, { slug, ...body });
      // The public widget never hands out an existing ticket: whoever knows an address would get
      // its QR code. It is e-mailed to the address again instead (at most a few times an hour).
      if (!result.created && caller.holder) {
        const resend = await deps.rateLimits.consume('account-emails', `ticket:${body.email.trim().toLowerCase()}`).then(() => true, () => false);
        if (resend) await tickets.resendTicketEmail(trx, community, codes, result.rsvpId);
        // Answered, not thrown: the e-mail above commits with it. mountRoute adds the request id.
        return { status: 409, body: new ApiError('INVALID_STATE', messages.alreadyRsvpd, { field: 'email' }).toEnvelope() };
      }
      return { body: { ok: result.ok, rsvpId: result.rsvpId, tierId: result.tierId, qrCode: result.qrCode } };
    });
  } catch (err) {
    asApiError(err, slug);
  }
}

/** `buyerUserId`: the member a server named with X-Svc-Auth-Token, whose tickets these are. */
async function doCheckout(deps: RouteDeps, transaction: RunTransaction, caller: Caller, slug: string, body: CheckoutBody, buyerUserId: string | null = null) {
  try {
    const community = await communityOf(deps.db, caller.communityId);
    const plan = await tickets.planTicketCheckout(deps.db, community, { slug, ...body, buyerUserId });
    return await openPlanned(deps, transaction, plan, caller.holder);
  } catch (err) {
    asApiError(err, slug);
  }
}

export function mountTickets(router: Router, deps: RouteDeps): void {
  mountRoute(router, rsvpToEvent, async ({ params, body, key, transaction }) =>
    doRsvp(deps, transaction, { communityId: key!.communityId, holder: null }, params.slug, body), deps);

  mountRoute(router, checkoutEvent, async ({ params, body, key, req, transaction }) => {
    const buyer = await memberFromAuthToken(deps.db, deps.sessions, req, params.communityTag);
    return doCheckout(deps, transaction, { communityId: key!.communityId, holder: null }, params.slug, body, buyer);
  }, deps);

  mountRoute(router, verifyTicket, async ({ body, key }) => ({
    body: await tickets.verifyTicketCode(deps.db, key!.communityId, need(deps.ticketCodes, 'ticketCodes'), body.code),
  }), deps);
}

/**
 * The same two writes for <svc-rsvp>. Widgets act as the public: only events the community shows
 * publicly can be booked this way (a members-only event is booked from the hosted site's own
 * pages or through /v1), return URLs must lead back to the community's sites, and one caller
 * holds at most MAX_HELD_PER_HOLDER seats of a tier at a time.
 */
export function mountTicketWidgetActions(router: Router, deps: RouteDeps): void {
  const assertPublicEvent = async (communityId: string, slug: string) => {
    const audience = await events.publicAudience(deps.db, communityId);
    if (!audience || !(await events.getEvent(deps.db, audience, slug))) throw notFound(messages.eventNotFound);
  };

  mountRoute(router, widgetRsvp, async ({ params, body, widget, req, transaction }) => {
    await assertPublicEvent(widget.community.id, params.slug);
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return doRsvp(deps, transaction, { communityId: widget.community.id, holder: widget.idempotencyOwner }, params.slug, body);
  }, deps);

  mountRoute(router, widgetCheckout, async ({ params, body, widget, req, transaction }) => {
    await assertPublicEvent(widget.community.id, params.slug);
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return doCheckout(deps, transaction, { communityId: widget.community.id, holder: widget.idempotencyOwner }, params.slug, body);
  }, deps);
}
