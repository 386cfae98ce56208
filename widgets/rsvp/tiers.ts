// What the tier list says about each tier: price, seats left, whether it can be chosen. Pure
// functions of a Tier, so the widget and its tests agree on them.
import type { Tier } from '../../contract/resources.ts';
import { formatCount, formatMoney } from '../lib/format.ts';

/** The API's ceiling for one checkout. */
export const MAX_QUANTITY = 10;

export type Availability =
  /** On sale; `left` is null when the tier has no capacity limit. */
  | { kind: 'open'; left: number | null }
  | { kind: 'sold_out' }
  /** `isActive: false`: the organisers closed it. */
  | { kind: 'closed' };

export function availability(tier: Pick<Tier, 'capacity' | 'sold' | 'isActive'>): Availability {
  if (!tier.isActive) return { kind: 'closed' };
  if (tier.capacity === null) return { kind: 'open', left: null };
  const left = tier.capacity - tier.sold;
  return left <= 0 ? { kind: 'sold_out' } : { kind: 'open', left };
}

export const isOpen = (tier: Pick<Tier, 'capacity' | 'sold' | 'isActive'>): boolean =>
  availability(tier).kind === 'open';

/** "3 left", "Sold out", "Closed", or null for an unlimited tier (nothing worth saying). */
export function availabilityLabel(tier: Pick<Tier, 'capacity' | 'sold' | 'isActive'>, locale?: string): string | null {
  const a = availability(tier);
  if (a.kind === 'closed') return 'Closed';
  if (a.kind === 'sold_out') return 'Sold out';
  return a.left === null ? null : `${formatCount(a.left, locale)} left`;
}

export const isFree = (tier: Pick<Tier, 'priceCents'>): boolean => tier.priceCents === 0;

/** "Free", or the price in the tier's currency with that currency's decimals ("$25.00", "¥1,200"). */
export function priceLabel(tier: Pick<Tier, 'priceCents' | 'currency'>, locale: string | undefined): string {
  return isFree(tier) ? 'Free' : formatMoney(tier.priceCents, tier.currency, locale);
}

/** The most one checkout may buy: the API's 10, or fewer when fewer seats are left. */
export function maxQuantity(tier: Pick<Tier, 'capacity' | 'sold' | 'isActive'>): number {
  const a = availability(tier);
  if (a.kind !== 'open') return 0;
  return a.left === null ? MAX_QUANTITY : Math.min(MAX_QUANTITY, a.left);
}

/** An event can be booked until it ends (or starts, when it has no end): the server's rule. */
export function hasEnded(event: { startDate: string; endDate: string | null }, now: number = Date.now()): boolean {
  return Date.parse(event.endDate ?? event.startDate) < now;
}
