// Tickets on /v1 (secret key, WRITE_SALES): RSVP, checkout and verify. The orchestration is
// server/use-cases/tickets.ts, shared with <svc-rsvp>'s widget actions (server/actions/tickets.ts).
// A /v1 checkout names its buyer with X-Svc-Auth-Token exactly as the donate routes name their
// donor (server/http/member-token.ts).
import * as routes from '../../contract/routes/tickets.ts';
import type { Db } from '../db/index.ts';
import { saleCommunity } from '../domain/communities.ts';
import * as tickets from '../domain/tickets.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import type { HandlerContext } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import type { SaleRouteDeps } from '../use-cases/checkout.ts';
import { rsvp, ticketCheckout, type TicketCaller } from '../use-cases/tickets.ts';

/** A server books for its community, holding no seats of its own. */
async function serverCaller(db: Db, communityId: string): Promise<TicketCaller> {
  return { community: await saleCommunity(db, { id: communityId }), holder: null };
}

async function rsvpToEvent(
  { params, body, key, transaction }: HandlerContext<typeof routes.rsvpToEvent>,
  { db, sales }: SaleRouteDeps,
) {
  return rsvp(sales, transaction, await serverCaller(db, key.communityId), params.slug, body);
}

async function checkoutEvent(
  { params, body, key, req, transaction }: HandlerContext<typeof routes.checkoutEvent>,
  deps: SaleRouteDeps,
) {
  const buyer = await memberFromAuthToken(deps.db, deps.sessions, req, params.communityTag);
  return ticketCheckout(
    deps.sales,
    transaction,
    await serverCaller(deps.db, key.communityId),
    params.slug,
    body,
    buyer,
  );
}

async function verifyTicket({ body, key }: HandlerContext<typeof routes.verifyTicket>, { db, sales }: SaleRouteDeps) {
  return { body: await tickets.verifyTicketCode(db, key.communityId, sales.ticketCodes, body.code) };
}

export const ticketHandlers = {
  rsvpToEvent,
  checkoutEvent,
  verifyTicket,
} satisfies Handlers<(typeof routes.TICKET_ROUTES)[number], SaleRouteDeps>;
