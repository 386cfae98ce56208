// Locale-aware formatting. Dates render in the viewer's own time zone (Intl's default), money
// in the tier's currency with that currency's own number of minor digits.

/** `locale` attribute, else the nearest `lang` (the page's `<html lang>`), else the browser's. */
export function resolveLocale(host: Element): string | undefined {
  const wanted = [host.getAttribute('locale'), host.closest('[lang]')?.getAttribute('lang')];
  for (const candidate of wanted) {
    if (!candidate) continue;
    try {
      return Intl.getCanonicalLocales(candidate)[0];
    } catch {
      // An invalid tag (`lang="english"`) must not break the widget: try the next source.
    }
  }
  return typeof navigator === 'undefined' ? undefined : navigator.language;
}

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = cache.get(key) as T | undefined;
  if (!f) cache.set(key, (f = make()));
  return f;
}

/** "Sat, Jun 14, 9:30 AM GMT+2"; the year only when it is not the current one. */
export function formatDateTime(
  iso: string,
  locale: string | undefined,
  now: Date = new Date(),
  timeZone?: string,
): string {
  const date = new Date(iso);
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const sameYear = yearIn(date, zone) === yearIn(now, zone);
  const f = cached(
    `d|${locale}|${zone}|${sameYear}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        weekday: 'short',
        month: 'short',
        day: 'numeric',
        year: sameYear ? undefined : 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
        timeZone: zone,
      }),
  );
  return f.format(date);
}

function yearIn(date: Date, timeZone: string): string {
  return cached(`y|${timeZone}`, () => new Intl.DateTimeFormat('en', { year: 'numeric', timeZone })).format(date);
}

/** Integer minor units -> "$12.00", "¥1,200", "12,00 €" (per locale). */
export function formatMoney(minor: number, currency: string, locale: string | undefined): string {
  const f = cached(`m|${locale}|${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency }));
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/** A count in the locale's digits and grouping: "1,234", "١٬٢٣٤". */
export function formatCount(n: number, locale: string | undefined): string {
  return cached(`n|${locale}`, () => new Intl.NumberFormat(locale)).format(n);
}
