// Tickets on /v1 (secret key, WRITE_SALES): RSVP, checkout and verify. The orchestration is
// server/use-cases/tickets.ts, shared with <svc-rsvp>'s widget actions (server/actions/tickets.ts).
// A /v1 checkout names its buyer with X-Svc-Auth-Token exactly as the donate routes name their
// donor (server/http/member-token.ts).
import type { Router } from 'express';
import { checkoutEvent, rsvpToEvent, verifyTicket } from '../../contract/routes/tickets.ts';
import { saleCommunity } from '../domain/communities.ts';
import { Refusal } from '../domain/refusal.ts';
import * as tickets from '../domain/tickets.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { saleDeps } from '../use-cases/checkout.ts';
import { rsvp, ticketCheckout } from '../use-cases/tickets.ts';

export function mountTickets(router: Router, deps: RouteDeps): void {
  const sales = saleDeps(deps);
  const serverCaller = async (communityId: string) => {
    const community = await saleCommunity(deps.db, { id: communityId });
    if (!community) throw new Refusal('community_not_found');
    return { community, holder: null };
  };

  mountRoute(router, rsvpToEvent, async ({ params, body, key, transaction }) =>
    rsvp(sales, transaction, await serverCaller(key.communityId), params.slug, body), deps);

  mountRoute(router, checkoutEvent, async ({ params, body, key, req, transaction }) => {
    const buyer = await memberFromAuthToken(deps.db, deps.sessions, req, params.communityTag);
    return ticketCheckout(sales, transaction, await serverCaller(key.communityId), params.slug, body, buyer);
  }, deps);

  mountRoute(router, verifyTicket, async ({ body, key }) => ({
    body: await tickets.verifyTicketCode(deps.db, key.communityId, sales.ticketCodes, body.code),
  }), deps);
}
