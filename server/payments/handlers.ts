// What each kind of checkout grants when paid: `kind` in CheckoutPurpose -> its handler. Listed by
// hand, like the migrations, so a reader sees every purchase flow in one place. Donations and
// memberships add their entries here.
import type { Logger } from 'pino';
import type { TicketCodes } from '../domain/ticket-codes.ts';
import { ticketsFulfilment } from '../domain/tickets.ts';
import type { FulfilmentHandlers } from './payments.ts';

export interface HandlerDeps {
  ticketCodes: TicketCodes;
  logger?: Logger;
}

export function fulfilmentHandlers(deps: HandlerDeps): FulfilmentHandlers {
  return {
    tickets: ticketsFulfilment({ codes: deps.ticketCodes, logger: deps.logger }),
  };
}
