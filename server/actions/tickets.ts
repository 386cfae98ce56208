// <svc-rsvp>'s widget actions: RSVP and checkout, with exactly /v1's rules and refusals
// (server/use-cases/tickets.ts). Widgets act as the public: only events the community shows
// publicly can be booked this way (a members-only event is booked from the hosted site's own
// pages or through /v1), return URLs must lead back to the community's sites, and one caller
// holds at most MAX_HELD_PER_HOLDER seats of a tier at a time.
import type { Router } from 'express';
import { widgetCheckout, widgetRsvp } from '../../contract/routes/tickets.ts';
import { saleCommunity } from '../domain/communities.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { assertWidgetReturnUrls, type WidgetCaller } from '../http/widget-actions.ts';
import type { SaleDeps } from '../use-cases/checkout.ts';
import { assertPublicEvent, rsvp, ticketCheckout, type TicketCaller } from '../use-cases/tickets.ts';

export function mountTicketActions(router: Router, deps: RouteDeps, sales: SaleDeps): void {
  const callerOf = async (widget: WidgetCaller, slug: string): Promise<TicketCaller> => ({
    community: await assertPublicEvent(sales, await saleCommunity(deps.db, { id: widget.community.id }), slug),
    holder: widget.idempotencyOwner,
  });

  mountRoute(router, widgetRsvp, async ({ params, body, widget, req, transaction }) => {
    const caller = await callerOf(widget, params.slug);
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return rsvp(sales, transaction, caller, params.slug, body);
  }, deps);

  mountRoute(router, widgetCheckout, async ({ params, body, widget, req, transaction }) => {
    const caller = await callerOf(widget, params.slug);
    await assertWidgetReturnUrls(deps, widget, req, [['successUrl', body.successUrl], ['cancelUrl', body.cancelUrl]]);
    return ticketCheckout(sales, transaction, caller, params.slug, body);
  }, deps);
}
