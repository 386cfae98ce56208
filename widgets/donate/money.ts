// Money as the API speaks it (integers in the currency's smallest unit) and as a donor reads and
// types it (major units in their locale). Typed amounts are parsed as decimal strings, never
// through floating point, so "19.99" is exactly 1999 and "1.234" dinar exactly 1234 fils.

/** Decimals of a currency's minor unit: 2 for USD and EUR, 0 for JPY, 3 for KWD. */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** "$25.00", "¥1,200", "KWD 1.234"; `short` drops the decimals of a whole amount ("$25") for chips. */
export function formatAmount(minor: number, currency: string, locale: string | undefined, short = false): string {
  const digits = currencyDigits(currency);
  const whole = short && minor % 10 ** digits === 0;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
  }).format(minor / 10 ** digits);
}

export type Parsed = { ok: true; minor: number } | { ok: false; reason: 'empty' | 'format' | 'decimals' | 'large' };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A typed amount in major units -> minor units. Either `.` or `,` is the decimal separator; the
 * locale's grouping separator is dropped where it groups three digits ("1,000.50" in English,
 * "1.000,50" in German), so "12,50" and "12.50" both mean twelve and a half everywhere.
 */
export function parseAmount(text: string, currency: string, locale: string | undefined): Parsed {
  const digits = currencyDigits(currency);
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  const group = parts.find((p) => p.type === 'group')?.value;
  const decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
  let t = text.replace(/[\s\u00a0\u202f]/g, '');
  if (!t) return { ok: false, reason: 'empty' };
  if (group && group !== decimal) t = t.replace(new RegExp(`${escape(group)}(?=\\d{3}(?!\\d))`, 'g'), '');
  if (decimal !== '.' && decimal !== ',') t = t.replace(decimal, '.');
  const m = /^(\d*)(?:[.,](\d*))?$/.exec(t);
  if (!m || !/\d/.test(t)) return { ok: false, reason: 'format' };
  let fraction = m[2] ?? '';
  // Zeros past the currency's decimals change nothing ("5.000" dollars); other digits would be lost.
  if (fraction.length > digits) {
    if (/[^0]/.test(fraction.slice(digits))) return { ok: false, reason: 'decimals' };
    fraction = fraction.slice(0, digits);
  }
  const integer = m[1].replace(/^0+(?=\d)/, '');
  if (integer.length + digits > 15) return { ok: false, reason: 'large' };
  return { ok: true, minor: Number(integer + fraction.padEnd(digits, '0')) };
}
