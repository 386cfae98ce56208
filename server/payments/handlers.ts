// What each kind of checkout grants when paid: `kind` in CheckoutPurpose -> its handler. Listed by
// hand, like the migrations, so a reader sees every purchase flow in one place. Memberships add
// their entry here.
import type { Logger } from 'pino';
import type { TicketCodes } from '../domain/ticket-codes.ts';
import { donationFulfilment } from '../domain/donations.ts';
import { membershipFulfilment } from '../domain/membership-payments.ts';
import { productFulfilment } from '../domain/product-orders.ts';
import { ticketsFulfilment } from '../domain/tickets.ts';
import type { FulfilmentHandlers } from './payments.ts';

export interface HandlerDeps {
  ticketCodes: TicketCodes;
  logger?: Logger;
}

export function fulfilmentHandlers(deps: HandlerDeps): FulfilmentHandlers {
  return {
    tickets: ticketsFulfilment({ codes: deps.ticketCodes, logger: deps.logger }),
    donation: donationFulfilment(),
    product: productFulfilment(),
    membership: membershipFulfilment({ logger: deps.logger }),
  };
}
