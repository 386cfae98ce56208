// The round trip through the hosted checkout: where the buyer comes back to, and what the widget
// makes of it. The page URL carries only what the processor substitutes (`session`) plus which
// widget asked (`svc_event`), so two <svc-rsvp> on one page do not both claim the payment.
// Nothing is granted from coming back: tickets are issued when the payment is confirmed to the
// server, and the widget can only say so.

const PARAMS = ['svc_checkout', 'session', 'svc_event'];

/** The page as the buyer left it: our own parameters from an earlier round trip removed. */
function cleaned(href: string): { base: string; hash: string; hasQuery: boolean } {
  const url = new URL(href);
  for (const name of PARAMS) url.searchParams.delete(name);
  const hash = url.hash;
  url.hash = '';
  return { base: url.href, hash, hasQuery: url.search !== '' };
}

/**
 * successUrl and cancelUrl for a checkout started on `href`. `{CHECKOUT_SESSION_ID}` stays
 * literal (URLSearchParams would escape the braces and the processor would not find it); the
 * fragment is kept last, so the browser scrolls back to the widget.
 */
export function returnUrls(href: string, slug: string): { successUrl: string; cancelUrl: string } {
  const { base, hash, hasQuery } = cleaned(href);
  const join = hasQuery ? '&' : '?';
  const event = `svc_event=${encodeURIComponent(slug)}`;
  return {
    successUrl: `${base}${join}svc_checkout=success&session={CHECKOUT_SESSION_ID}&${event}${hash}`,
    cancelUrl: `${base}${join}svc_checkout=cancelled&${event}${hash}`,
  };
}

export type CheckoutReturn = { kind: 'success'; sessionId: string | null } | { kind: 'cancelled' };

/** What the page URL says about a checkout this widget (event `slug`) started, or null. */
export function checkoutReturn(href: string, slug: string): CheckoutReturn | null {
  let params: URLSearchParams;
  try {
    params = new URL(href).searchParams;
  } catch {
    return null;
  }
  const event = params.get('svc_event');
  if (event !== null && event !== slug) return null;
  const state = params.get('svc_checkout');
  if (state === 'success') return { kind: 'success', sessionId: params.get('session') };
  if (state === 'cancelled') return { kind: 'cancelled' };
  return null;
}
