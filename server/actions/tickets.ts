// <svc-rsvp>'s widget actions: RSVP and checkout, with exactly /v1's rules and refusals
// (server/use-cases/tickets.ts). Widgets act as the public: only events the community shows
// publicly can be booked this way (a members-only event is booked from the hosted site's own
// pages or through /v1), return URLs must lead back to the community's sites, and one caller
// holds at most MAX_HELD_PER_HOLDER seats of a tier at a time.
import * as routes from '../../contract/routes/tickets.ts';
import { saleCommunity } from '../domain/communities.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import { assertWidgetReturnUrls, type WidgetCaller } from '../http/widget-actions.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';
import { assertPublicEvent, rsvp, ticketCheckout, type TicketCaller } from '../use-cases/tickets.ts';

async function callerOf({ db, sales }: SaleRouteDeps, widget: WidgetCaller, slug: string): Promise<TicketCaller> {
  return {
    community: await assertPublicEvent(sales, await saleCommunity(db, { id: widget.community.id }), slug),
    holder: widget.idempotencyOwner,
  };
}

async function widgetRsvp(
  { params, body, widget, req, transaction }: HandlerContext<typeof routes.widgetRsvp>,
  deps: SaleRouteDeps,
) {
  const caller = await callerOf(deps, widget, params.slug);
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  return rsvp(deps.sales, transaction, caller, params.slug, body);
}

async function widgetCheckout(
  { params, body, widget, req, transaction }: HandlerContext<typeof routes.widgetCheckout>,
  deps: SaleRouteDeps,
) {
  const caller = await callerOf(deps, widget, params.slug);
  await assertWidgetReturnUrls(deps, widget, req, [
    ['successUrl', body.successUrl],
    ['cancelUrl', body.cancelUrl],
  ]);
  return ticketCheckout(deps.sales, transaction, caller, params.slug, body);
}

export const ticketActionHandlers = {
  widgetRsvp,
  widgetCheckout,
} satisfies Handlers<(typeof routes.TICKET_WIDGET_ROUTES)[number], SaleRouteDeps>;
