// What a segment card says: the billing cycles it offers with their prices (founding ones while
// founding spots are left), in words for the visitor. Pure functions of a Segment, so the widget
// and its tests agree on them; the server's own rules are in server/domain/applications.ts
// (offeredCycles) and server/domain/membership-payments.ts (priceFor), which is what charges.
import type { Segment } from '../../contract/resources.ts';
import { formatMoney } from '../lib/format.ts';

export type Cycle = 'MONTHLY' | 'QUARTERLY' | 'YEARLY' | 'ONE_TIME' | 'INSTALLMENT_PLAN';

export interface Offer {
  cycle: Cycle;
  /** What is charged per period (the whole plan for INSTALLMENT_PLAN), founding price included. */
  price: number;
  /** The regular price when a founding price applies instead, else null. */
  regular: number | null;
}

const FOUNDING: Partial<Record<Cycle, keyof Segment>> = {
  MONTHLY: 'foundingPriceMonthly',
  QUARTERLY: 'foundingPriceQuarterly',
  YEARLY: 'foundingPriceYearly',
};

/**
 * Founding spots left, or null when there is no count to show: no founding price, or no cap (then,
 * as the checkout does, the founding price applies to everyone while it is set).
 */
export function foundingSpotsLeft(s: Segment): number | null {
  if (s.foundingMemberCap === null) return null;
  if (s.foundingPriceMonthly === null && s.foundingPriceQuarterly === null && s.foundingPriceYearly === null)
    return null;
  return Math.max(0, s.foundingMemberCap - s.foundingMemberCount);
}

/** The cycles a segment offers, in the server's order; none = a free segment. */
export function offers(s: Segment): Offer[] {
  const list: [Cycle, number | null][] = [
    ['MONTHLY', s.priceMonthly],
    ['QUARTERLY', s.priceQuarterly],
    ['YEARLY', s.priceYearly],
    ['ONE_TIME', s.priceOneTime],
    ['INSTALLMENT_PLAN', s.installmentTotalPrice],
  ];
  const foundingOpen = s.foundingMemberCap === null || s.foundingMemberCount < s.foundingMemberCap;
  return list
    .filter((o): o is [Cycle, number] => o[1] !== null)
    .map(([cycle, price]) => {
      const key = FOUNDING[cycle];
      const founding = key && foundingOpen ? (s[key] as number | null) : null;
      return founding !== null ? { cycle, price: founding, regular: price } : { cycle, price, regular: null };
    });
}

export const isFree = (s: Segment): boolean => offers(s).length === 0;

/** The cycle chosen at first: the only one, else none (the visitor picks). */
export const initialCycle = (s: Segment): Cycle | null => {
  const list = offers(s);
  return list.length === 1 ? list[0].cycle : null;
};

export const CYCLE_NAME: Record<Cycle, string> = {
  MONTHLY: 'Monthly',
  QUARTERLY: 'Quarterly',
  YEARLY: 'Yearly',
  ONE_TIME: 'One payment',
  INSTALLMENT_PLAN: 'Installments',
};

const PER: Partial<Record<Cycle, string>> = { MONTHLY: 'month', QUARTERLY: 'quarter', YEARLY: 'year' };

const months = (n: number) =>
  n === 1 ? '1 month' : n % 12 === 0 ? (n === 12 ? '1 year' : `${n / 12} years`) : `${n} months`;

/**
 * "$8.00 / month", "$50.00 once, for 1 year", "$360.00 in 3 payments, one every month, for 1 year".
 * Prices in the segment's currency with that currency's decimals (Intl).
 */
export function priceText(s: Segment, offer: Offer, locale: string | undefined, price = offer.price): string {
  const money = formatMoney(price, s.currency, locale);
  const access = s.accessDurationMonths ? `, for ${months(s.accessDurationMonths)}` : '';
  const per = PER[offer.cycle];
  if (per) return `${money} / ${per}`;
  if (offer.cycle === 'ONE_TIME') return `${money} once${access}`;
  const count = s.installmentCount ?? 1;
  const every = s.installmentIntervalMonths ?? 1;
  return `${money} in ${count} payments, one every ${every === 1 ? 'month' : months(every)}${access}`;
}

/** The card's headline price: "Free", the only offer, or "from" the cheapest per month where comparable. */
export function summary(s: Segment, locale: string | undefined): string {
  const list = offers(s);
  if (list.length === 0) return 'Free';
  if (list.length === 1) return priceText(s, list[0], locale);
  return list.map((o) => priceText(s, o, locale)).join(' or ');
}

/** "12 founding spots left", "1 founding spot left"; null when there is nothing to say. */
export function foundingNote(s: Segment): string | null {
  const left = foundingSpotsLeft(s);
  if (!left) return null;
  return left === 1 ? '1 founding spot left' : `${left} founding spots left`;
}
