import { describe, expect, it } from 'vitest';
import { formatDateTime, formatMoney } from '../../../widgets/lib/format.ts';

describe('formatDateTime', () => {
  const now = new Date('2031-01-10T12:00:00Z');

  it('shows the start in the viewer time zone, not UTC', () => {
    const iso = '2031-06-14T07:30:00.000Z';
    expect(formatDateTime(iso, 'en-US', now, 'America/Denver')).toBe('Sat, Jun 14, 1:30 AM MDT');
    expect(formatDateTime(iso, 'en-GB', now, 'Europe/Berlin')).toBe('Sat 14 Jun, 09:30 CEST');
  });

  it('crosses the date line with the time zone', () => {
    expect(formatDateTime('2031-06-14T23:30:00Z', 'en-US', now, 'Asia/Tokyo')).toMatch(/^Sun, Jun 15, 8:30/);
  });

  it('adds the year only when it is not the current one', () => {
    expect(formatDateTime('2032-03-01T18:00:00Z', 'en-US', now, 'UTC')).toBe('Mon, Mar 1, 2032, 6:00 PM UTC');
  });
});

describe('formatMoney', () => {
  it('reads integer minor units', () => {
    expect(formatMoney(1200, 'USD', 'en-US')).toBe('$12.00');
    expect(formatMoney(99, 'GBP', 'en-GB')).toBe('£0.99');
    expect(formatMoney(500, 'JPY', 'ja-JP')).toBe('￥500');
  });
});
