// What one event card says about format, place and price: pure functions of an Event.
import type { Event, Tier } from '../../contract/resources.ts';
import { formatMoney } from '../lib/format.ts';

export const FORMAT_LABEL: Record<Event['format'], string> = {
  online: 'Online',
  in_person: 'In person',
  hybrid: 'Hybrid',
};

/**
 * Where it happens, next to the format badge: the venue's name (or city); nothing for an
 * online event without one (the badge already says "Online"); "to be announced" for an
 * in-person or hybrid event whose place is not set yet (the spec's `location: null` = TBD).
 */
export function locationLabel(event: Pick<Event, 'format' | 'location'>): string | null {
  const place = event.location?.name || event.location?.city;
  if (place) return place;
  return event.format === 'online' ? null : 'Location to be announced';
}

/**
 * "Free" when every tier on sale costs nothing, "From $12.00" (the cheapest paid tier, in its
 * currency) otherwise, and nothing at all when no tier is on sale: an event without tickets
 * is not free, it just has nothing to sell.
 */
export function priceSummary(tiers: readonly Tier[], locale: string | undefined): string | null {
  const onSale = tiers.filter((t) => t.isActive);
  if (onSale.length === 0) return null;
  const paid = onSale.filter((t) => t.priceCents > 0);
  if (paid.length === 0) return 'Free';
  const cheapest = paid.reduce((low, t) => (t.priceCents < low.priceCents ? t : low));
  return `From ${formatMoney(cheapest.priceCents, cheapest.currency, locale)}`;
}
