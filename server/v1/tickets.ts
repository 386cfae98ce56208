// Tickets: RSVP and checkout on /v1 (secret key, WRITE_SALES) and as widget actions (<svc-rsvp>);
// both call the same domain functions in server/domain/tickets.ts.
import type { Router } from 'express';
import { checkoutEvent, rsvpToEvent, verifyTicket, widgetCheckout, widgetRsvp } from '../../contract/routes/tickets.ts';
import type { Trx } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import * as events from '../domain/events.ts';
import type { TicketCodes } from '../domain/ticket-codes.ts';
import * as tickets from '../domain/tickets.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { PaymentProcessorError, PaymentsUnavailableError, type Payments } from '../payments/index.ts';

/** The spec's floor for a donation that is not riding on a paid ticket. */
const STANDALONE_DONATION_MINIMUM = 50;

type RsvpBody = { tierId: string; email: string; name: string; formAnswers?: Record<string, unknown>; donation?: { amount: number }; successUrl?: string; cancelUrl?: string };
type CheckoutBody = { tierId: string; quantity: number; successUrl: string; cancelUrl: string; email?: string; name?: string; formAnswers?: Record<string, unknown>; donation?: { amount: number } };

async function communityOf(trx: Trx, communityId: string): Promise<tickets.Community> {
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
      case 'form_missing':
        throw new ApiError('UNPROCESSABLE', messages.formFieldsMissing, { field: `formAnswers.${d.fieldIds![0]}`, fields: d.fieldIds });
      case 'form_invalid':
        throw new ApiError('INVALID_INPUT', `${d.fieldId ? `formAnswers.${d.fieldId}` : 'formAnswers'} ${d.why}`, { field: d.fieldId ? `formAnswers.${d.fieldId}` : 'formAnswers' });
    }
  }
  if (err instanceof PaymentsUnavailableError) throw new ApiError('SERVICE_UNAVAILABLE', messages.paymentsUnavailable);
  if (err instanceof PaymentProcessorError) throw new ApiError('PAYMENT_PROCESSOR_ERROR', messages.paymentProcessorError);
  throw err;
}

function need<T>(value: T | undefined, what: string): T {
  if (!value) throw new Error(`${what} missing from RouteDeps`);
  return value;
}

async function doRsvp(trx: Trx, communityId: string, slug: string, body: RsvpBody, codes: TicketCodes, payments: Payments | undefined) {
  const community = await communityOf(trx, communityId);
  try {
    if (body.donation) {
      if (body.donation.amount < STANDALONE_DONATION_MINIMUM) {
        throw new ApiError('INVALID_DONATION_AMOUNT', messages.donationBelowMinimum(STANDALONE_DONATION_MINIMUM), { field: 'donation.amount' });
      }
      if (!body.successUrl) throw new ApiError('INVALID_INPUT', messages.urlsRequiredWithDonation, { field: 'successUrl' });
      if (!body.cancelUrl) throw new ApiError('INVALID_INPUT', messages.urlsRequiredWithDonation, { field: 'cancelUrl' });
      const opened = await tickets.openTicketCheckout(trx, community, need(payments, 'payments'), {
        slug, tierId: body.tierId, quantity: 1, successUrl: body.successUrl, cancelUrl: body.cancelUrl,
        email: body.email, name: body.name, formAnswers: body.formAnswers, donation: body.donation,
      }, { rsvpWithDonation: true });
      return { body: { checkoutUrl: opened.checkoutUrl, sessionId: opened.sessionId } };
    }
    const result = await tickets.rsvp(trx, community, codes, { slug, ...body });
    return { body: { ok: result.ok, rsvpId: result.rsvpId, tierId: result.tierId, qrCode: result.qrCode } };
  } catch (err) {
    asApiError(err, slug);
  }
}

async function doCheckout(trx: Trx, communityId: string, slug: string, body: CheckoutBody, payments: Payments | undefined) {
  const community = await communityOf(trx, communityId);
  try {
    const opened = await tickets.openTicketCheckout(trx, community, need(payments, 'payments'), { slug, ...body });
    return { body: { checkoutUrl: opened.checkoutUrl, sessionId: opened.sessionId } };
  } catch (err) {
    asApiError(err, slug);
  }
}

export function mountTickets(router: Router, deps: RouteDeps): void {
  const codes = () => need(deps.ticketCodes, 'ticketCodes');

  mountRoute(router, rsvpToEvent, async ({ params, body, key, transaction }) =>
    transaction((trx) => doRsvp(trx, key!.communityId, params.slug, body, codes(), deps.payments)), deps);

  mountRoute(router, checkoutEvent, async ({ params, body, key, transaction }) =>
    transaction((trx) => doCheckout(trx, key!.communityId, params.slug, body, deps.payments)), deps);

  mountRoute(router, verifyTicket, async ({ body, key }) => ({
    body: await tickets.verifyTicketCode(deps.db, key!.communityId, codes(), body.code),
  }), deps);
}

/**
 * The same two writes for <svc-rsvp>. Widgets act as the public: only events the community shows
 * publicly can be booked this way (a members-only event is booked from the hosted site's own
 * pages or through /v1).
 */
export function mountTicketWidgetActions(router: Router, deps: RouteDeps): void {
  const codes = () => need(deps.ticketCodes, 'ticketCodes');
  const assertPublicEvent = async (communityId: string, slug: string) => {
    const audience = await events.publicAudience(deps.db, communityId);
    if (!audience || !(await events.getEvent(deps.db, audience, slug))) throw notFound(messages.eventNotFound);
  };

  mountRoute(router, widgetRsvp, async ({ params, body, widget, transaction }) => {
    await assertPublicEvent(widget.community.id, params.slug);
    return transaction((trx) => doRsvp(trx, widget.community.id, params.slug, body, codes(), deps.payments));
  }, deps);

  mountRoute(router, widgetCheckout, async ({ params, body, widget, transaction }) => {
    await assertPublicEvent(widget.community.id, params.slug);
    return transaction((trx) => doCheckout(trx, widget.community.id, params.slug, body, deps.payments));
  }, deps);
}
