// The server's donate rules (server/domain/donations.ts), checked here first so a donor hears
// about a wrong amount next to the input instead of after a round trip: whole minor units; in
// fixed mode one of the listed amounts; pay-what-you-want at least the config's minAmount and
// never below the platform's floor of 50. Also the chips a config offers and the request body.
import type { DonationConfig } from '../../contract/resources.ts';
import { currencyDigits, formatAmount, parseAmount } from './money.ts';

/** The spec's floor for a standalone donation, in minor units. */
export const FLOOR = 50;
/** The API's largest amount. */
export const MAX_AMOUNT = 100_000_000;
export const MAX_CHIPS = 8;

/** The smallest amount a pay-what-you-want config takes; null in fixed mode (the list decides). */
export function minimumOf(config: DonationConfig): number | null {
  return config.mode === 'pwyw' ? Math.max(config.minAmount ?? 0, FLOOR) : null;
}

/**
 * Four round amounts from the minimum up (1, 2.5, 5 × 10ⁿ minor units, starting at 500 or the
 * minimum if higher): $5 $10 $25 $50, ¥500 ¥1,000 ¥2,500 ¥5,000, KWD 0.5 1 2.5 5.
 */
export function suggestions(minimum: number): number[] {
  const start = Math.max(minimum, 500);
  const out: number[] = [];
  for (let power = 100; out.length < 4; power *= 10) {
    for (const step of [1, 2.5, 5]) if (out.length < 4 && step * power >= start) out.push(step * power);
  }
  return out;
}

/** The chips: the listed amounts (at most 8; in pwyw only those the server would take), else suggestions. */
export function chipAmounts(config: DonationConfig): number[] {
  const minimum = minimumOf(config) ?? 1;
  const listed = [...new Set(config.amounts ?? [])]
    .filter((a) => Number.isInteger(a) && a >= minimum)
    .slice(0, MAX_CHIPS);
  return listed.length || config.mode === 'fixed' ? listed : suggestions(minimum);
}

export type AmountChoice = { chip: number | null; custom: string };

/** The amount chosen (a typed amount wins over a chip) or, in words, what is wrong with it. */
export function chosenAmount(
  config: DonationConfig,
  currency: string,
  locale: string | undefined,
  choice: AmountChoice,
): { amount: number } | { problem: string } {
  const minimum = minimumOf(config);
  const typed = config.mode === 'pwyw' && choice.custom.trim() !== '';
  let amount = choice.chip;
  if (typed) {
    const parsed = parseAmount(choice.custom, currency, locale);
    if (!parsed.ok) {
      if (parsed.reason === 'decimals') {
        const digits = currencyDigits(currency);
        return { problem: digits === 0 ? 'Enter a whole amount.' : `Use at most ${digits} decimals.` };
      }
      if (parsed.reason !== 'large')
        return { problem: `Enter an amount like ${formatAmount(Math.max(minimum ?? 0, 1000), currency, locale)}.` };
    }
    // 'large' (more digits than any amount has) falls to the maximum's check below.
    amount = parsed.ok ? parsed.minor : Infinity;
  }
  if (amount === null) return { problem: config.mode === 'pwyw' ? 'Choose or enter an amount.' : 'Choose an amount.' };
  if (amount > MAX_AMOUNT) return { problem: 'That is more than one donation can be.' };
  if (minimum !== null && amount < minimum)
    return { problem: `Give at least ${formatAmount(minimum, currency, locale)}.` };
  if (config.mode === 'fixed' && !(config.amounts ?? []).includes(amount))
    return { problem: 'Choose one of the amounts shown.' };
  return { amount };
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface DonateBody {
  donation: { amount: number };
  customer?: { email: string };
  successUrl: string;
  cancelUrl: string;
}

/** A signed-in donor (`email` null) is named by their sign-in cookie, so no customer is sent. */
export function donateBody(
  amount: number,
  email: string | null,
  urls: { successUrl: string; cancelUrl: string },
): DonateBody {
  return { donation: { amount }, ...(email ? { customer: { email: email.trim() } } : {}), ...urls };
}
