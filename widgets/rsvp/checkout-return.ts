// The round trip through the hosted checkout, for every widget that opens one (<svc-rsvp>,
// <svc-donate>, <svc-apply>): where the buyer comes back to, and what the page URL says on
// return. The URL carries only what the processor substitutes (`session`), how it went (the
// widget's own state parameter: `svc_checkout`, `svc_donate`, `svc_apply`) and which widget asked
// (`svc_event=<slug>`, `svc_sku=<sku>`, `svc_segment=<id>`), so two widgets on one page never both
// claim a payment. Nothing is granted from coming back: the server acts when the payment is
// confirmed to it, and a widget can only say so. (Not in widgets/lib/: that is the runtime every
// widget downloads, and only these three need this; the bundler gives it a small chunk of its own.)

/** Every parameter a widget adds, so a new round trip drops what an earlier one (of any widget) left. */
const OWN = ['svc_checkout', 'svc_donate', 'svc_apply', 'session', 'svc_event', 'svc_sku', 'svc_segment'];
/** Parameters that name the widget a return belongs to. */
const OWNERS = ['svc_event', 'svc_sku', 'svc_segment'];

export interface ReturnSpec {
  /** The parameter saying how it went. */
  state: 'svc_checkout' | 'svc_donate' | 'svc_apply';
  /** The owner parameter and its value: `['svc_event', slug]`, `['svc_sku', sku]`, `['svc_segment', id]`. */
  owner: readonly ['svc_event' | 'svc_sku' | 'svc_segment', string];
}

export type CheckoutReturn = { kind: 'success'; sessionId: string | null } | { kind: 'cancelled' };

/**
 * successUrl and cancelUrl for a checkout started on `href`. `{CHECKOUT_SESSION_ID}` stays
 * literal (URLSearchParams would escape the braces and the processor would not find it); the
 * fragment is kept last, so the browser scrolls back to the widget.
 */
export function roundTripUrls(href: string, spec: ReturnSpec): { successUrl: string; cancelUrl: string } {
  const url = new URL(href);
  for (const name of OWN) url.searchParams.delete(name);
  const hash = url.hash;
  url.hash = '';
  const base = `${url.href}${url.search ? '&' : '?'}${spec.state}=`;
  const owner = `&${spec.owner[0]}=${encodeURIComponent(spec.owner[1])}${hash}`;
  return { successUrl: `${base}success&session={CHECKOUT_SESSION_ID}${owner}`, cancelUrl: `${base}cancelled${owner}` };
}

/**
 * What the page URL says about a checkout this widget started, or null. A URL naming no owner
 * at all (written by hand) belongs to every widget with that state parameter.
 */
export function roundTripReturn(href: string, spec: ReturnSpec): CheckoutReturn | null {
  let params: URLSearchParams;
  try {
    params = new URL(href).searchParams;
  } catch {
    return null;
  }
  if (OWNERS.some((o) => params.has(o)) && params.get(spec.owner[0]) !== spec.owner[1]) return null;
  const state = params.get(spec.state);
  if (state === 'success') return { kind: 'success', sessionId: params.get('session') };
  if (state === 'cancelled') return { kind: 'cancelled' };
  return null;
}

/**
 * `href` without the parameters of this return (the state, the owner and, after a success, the
 * session), the rest of the query exactly as written and the fragment kept.
 */
export function withoutReturn(href: string, spec: ReturnSpec, found: CheckoutReturn): string {
  const url = new URL(href);
  const drop = [spec.state, spec.owner[0], found.kind === 'success' ? 'session' : ''];
  const kept = url.search
    .slice(1)
    .split('&')
    // Names as written: ours are never escaped.
    .filter((pair) => pair && !drop.includes(pair.split('=')[0]));
  url.search = kept.join('&');
  return url.href;
}

/**
 * This widget's return, read from the page URL, whose parameters then leave the address bar
 * (`history.replaceState`, the history entry's state kept), so a reload, a bookmark or a shared
 * link does not say it again. The first widget to claim a return takes it.
 */
export function claimReturn(spec: ReturnSpec): CheckoutReturn | null {
  const found = roundTripReturn(location.href, spec);
  // The server render (widgets/ssr.tsx) has a `location` and no `history`: the browser's hydration claims it.
  if (found && typeof history === 'object')
    history.replaceState(history.state, '', withoutReturn(location.href, spec, found));
  return found;
}

const rsvp = (slug: string): ReturnSpec => ({ state: 'svc_checkout', owner: ['svc_event', slug] });

/** <svc-rsvp>'s: `svc_checkout=success|cancelled` and the event's slug. */
export const returnUrls = (href: string, slug: string) => roundTripUrls(href, rsvp(slug));

/** What the page URL says about a checkout this widget (event `slug`) started, or null. */
export const checkoutReturn = (href: string, slug: string) => roundTripReturn(href, rsvp(slug));

/** checkoutReturn on the page URL, claimed (its parameters removed from the address bar). */
export const claimCheckoutReturn = (slug: string) => claimReturn(rsvp(slug));
