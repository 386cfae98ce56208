// <svc-apply>'s checkout round trip (see widgets/rsvp/checkout-return.ts): back to this page with
// `svc_apply=success|cancelled` and the segment applied to, so only that segment's widget (or one
// showing every segment) speaks of it.
import { claimReturn, roundTripReturn, roundTripUrls, type ReturnSpec } from '../rsvp/checkout-return.ts';

const spec = (segmentId: string): ReturnSpec => ({ state: 'svc_apply', owner: ['svc_segment', segmentId] });

export const returnUrls = (href: string, segmentId: string) => roundTripUrls(href, spec(segmentId));

/** The return a widget for `segmentId` hears on `href`: that segment's; without one, any segment's. */
function heard(href: string, segmentId: string | null): ReturnSpec | null {
  try {
    return spec(segmentId || (new URL(href).searchParams.get('svc_segment') ?? ''));
  } catch {
    return null;
  }
}

/**
 * What the page URL says about a checkout started here, or null. A widget with a `segment`
 * attribute hears only that segment's; one without hears any segment's.
 */
export function checkoutReturn(href: string, segmentId: string | null) {
  const heardSpec = heard(href, segmentId);
  return heardSpec && roundTripReturn(href, heardSpec);
}

/** checkoutReturn on the page URL, claimed (its parameters removed from the address bar). */
export function claimCheckoutReturn(segmentId: string | null) {
  const heardSpec = heard(location.href, segmentId);
  return heardSpec && claimReturn(heardSpec);
}
