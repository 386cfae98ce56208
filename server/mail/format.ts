// Money and times as e-mails and the server's own pages show them: in English, money in its
// currency with that currency's own number of decimals, times in UTC (the reader's time zone is
// not known when the message is written).

/** 1234 EUR -> "€12.34", using the currency's own number of decimals (JPY has none, KWD three). */
export function formatMoney(minor: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
}

/** "2025-06-14 09:30 UTC"; a value that is not a date is shown as it is. */
export function formatUtc(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
