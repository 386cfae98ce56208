// Submitting an application and the checkout of a paid one, for /v1 (server/v1/applications.ts)
// and <svc-apply>'s widget actions (server/actions/applications.ts): the same rules, outcomes and
// refusals; what differs is the caller and where the checkout returns to.
import * as applications from '../domain/applications.ts';
import * as membershipPayments from '../domain/membership-payments.ts';
import type { RunTransaction } from '../http/routes.ts';
import { commitCheckout, type SaleDeps } from './checkout.ts';

export async function submitApplication(
  transaction: RunTransaction,
  communityId: string,
  input: applications.SubmitInput,
) {
  return transaction(async (trx) => {
    const r = await applications.submitApplication(trx, communityId, input);
    const base = { success: true as const, requestId: r.requestId };
    return {
      status: 201,
      body:
        r.status === 'PAYMENT_PENDING'
          ? { ...base, paymentRequired: true as const, segmentId: r.segmentId, segmentName: r.segmentName }
          : { ...base, requestStatus: r.status, segmentName: r.segmentName, segmentId: r.segmentId },
    };
  });
}

/**
 * The checkout of a PAYMENT_PENDING request. `origin` resolves where the plan's own return URLs
 * lead (it may refuse the caller's origin); `returnUrls`, when given, replace them (the widget's,
 * already judged by its caller).
 */
export async function applicationCheckout(
  deps: Pick<SaleDeps, 'db' | 'payments'>,
  transaction: RunTransaction,
  communityId: string,
  requestId: string,
  origin: () => Promise<string>,
  returnUrls?: { successUrl: string; cancelUrl: string },
) {
  const returnOrigin = await origin();
  let foundingAllowed = true;
  // A lost race (another checkout of this request, or the last founding spot) plans again: the
  // winner's open checkout is then answered, or the regular price is charged.
  for (let attempt = 0; ; attempt += 1) {
    const plan = await membershipPayments.planApplyCheckout(deps.db, communityId, {
      requestId,
      returnOrigin,
      foundingAllowed,
    });
    if (plan.kind === 'open') return { body: { checkoutUrl: plan.checkoutUrl, sessionId: plan.sessionId } };
    const planned = returnUrls ? { ...plan, request: { ...plan.request, ...returnUrls } } : plan;
    try {
      return await commitCheckout(deps.payments, transaction, planned.request, (trx, checkoutId) =>
        membershipPayments.holdForCheckout(trx, planned, checkoutId),
      );
    } catch (err) {
      if (!(err instanceof membershipPayments.CheckoutRaceLost) || attempt >= 3) throw err;
      if (err.what === 'founding') foundingAllowed = false;
    }
  }
}
