// What every sale shares: the services it needs, and the processor-first order of a checkout.
import type { Db, Trx } from '../db/index.ts';
import type { TicketCodes } from '../domain/ticket-codes.ts';
import type { RateLimits } from '../http/rate-limit.ts';
import type { RouteDeps, RunTransaction } from '../http/routes.ts';
import type { CheckoutRequest, Payments } from '../payments/index.ts';

/** RouteDeps with the services sales need, which the app always provides. */
export interface SaleDeps {
  db: Db;
  payments: Payments;
  ticketCodes: TicketCodes;
  rateLimits: RateLimits;
}

/** Checked once, when the sale routes are mounted: a missing service fails the boot, not a request. */
export function saleDeps(deps: RouteDeps): SaleDeps {
  const { db, payments, ticketCodes, rateLimits } = deps;
  if (!payments) throw new Error('payments missing from RouteDeps: the sale routes cannot be mounted');
  if (!ticketCodes) throw new Error('ticketCodes missing from RouteDeps: the sale routes cannot be mounted');
  return { db, payments, ticketCodes, rateLimits };
}

/** The deps of the handlers that sell: RouteDeps and the sale services, checked once at mount. */
export interface SaleRouteDeps extends RouteDeps {
  sales: SaleDeps;
}

export function saleRouteDeps(deps: RouteDeps): SaleRouteDeps {
  return { ...deps, sales: saleDeps(deps) };
}

/**
 * Opens a checkout: the processor is asked first, outside any transaction, then the checkout row
 * and what it holds (`hold`: seats, the application) commit in the request's transaction (or the
 * processor's session is discarded). Answers the processor's URL and session id.
 */
export function commitCheckout(
  payments: Payments,
  transaction: RunTransaction,
  request: CheckoutRequest,
  hold?: (trx: Trx, checkoutId: string) => Promise<void>,
) {
  return payments.openCheckout(request, (prepared) =>
    transaction(async (trx) => {
      await payments.persist(trx, prepared);
      await hold?.(trx, prepared.checkout.id);
      return { body: { checkoutUrl: prepared.opened.checkoutUrl, sessionId: prepared.opened.sessionId } };
    }),
  );
}
