// Money on the hosted pages: amounts are stored in minor units, shown in their currency's own decimals.

/** Digits after the decimal point in `currency`'s minor unit (2 for USD, 0 for JPY, 3 for KWD). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount in minor units, formatted in its currency's own decimals ($15.00, ¥1,200). */
export function money(minor: number, currency: string): string {
  const major = minor / 10 ** minorDigits(currency);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(major);
  } catch {
    return `${major.toFixed(minorDigits(currency))} ${currency}`;
  }
}

/**
 * A typed amount in major units ("12.50", "12,5", "1200") as minor units, read as a decimal string
 * (never through floating point); null when it is not a plain amount in the currency's decimals.
 */
export function parseMajorAmount(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = /^\s*(\d{1,9})(?:[.,](\d+))?\s*$/.exec(text);
  if (!m || (m[2] !== undefined && m[2].length > digits)) return null;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || '0');
}
