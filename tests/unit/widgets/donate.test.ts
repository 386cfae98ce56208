// <svc-donate>'s pure logic: money typed and shown in the currency's own decimals, the server's
// donate rules checked before submit (minimum, fixed amounts), the chips a config offers, the
// request body and its return URLs, the donation currency, and server refusals mapped back
// onto the form.
import { describe, expect, it } from 'vitest';
import type { DonationConfig } from '../../../contract/resources.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';
import { DonateError, donatePath, postDonation, problemFrom } from '../../../widgets/donate/action.ts';
import { currencyDigits, formatAmount, parseAmount } from '../../../widgets/donate/money.ts';
import { chipAmounts, chosenAmount, donateBody, minimumOf, suggestions } from '../../../widgets/donate/rules.ts';
import { eventCurrency } from '../../../widgets/donate/store.ts';
import { checkoutReturn, returnUrls, roundTripReturn, roundTripUrls } from '../../../widgets/rsvp/checkout-return.ts';

const pwyw = (over: Partial<DonationConfig> = {}): DonationConfig => ({
  enabled: true,
  mode: 'pwyw',
  currency: 'USD',
  ...over,
});
const fixed = (amounts: number[], over: Partial<DonationConfig> = {}): DonationConfig => ({
  enabled: true,
  mode: 'fixed',
  amounts,
  currency: 'USD',
  ...over,
});
const minor = (text: string, currency: string, locale = 'en-US') => {
  const parsed = parseAmount(text, currency, locale);
  return parsed.ok ? parsed.minor : parsed.reason;
};

describe("money: minor units in, the currency's decimals out", () => {
  it("knows each currency's decimals", () => {
    expect([currencyDigits('USD'), currencyDigits('EUR'), currencyDigits('JPY'), currencyDigits('KWD')]).toEqual([
      2, 2, 0, 3,
    ]);
  });

  it("formats with the currency's decimals, and chips without them when the amount is whole", () => {
    expect(formatAmount(1999, 'USD', 'en-US')).toBe('$19.99');
    expect(formatAmount(2500, 'USD', 'en-US', true)).toBe('$25');
    expect(formatAmount(2550, 'USD', 'en-US', true)).toBe('$25.50');
    expect(formatAmount(1999, 'EUR', 'de-DE')).toBe('19,99\u00a0€');
    expect(formatAmount(1000, 'EUR', 'de-DE', true)).toBe('10\u00a0€');
    expect(formatAmount(1200, 'JPY', 'en-US')).toBe('¥1,200');
    expect(formatAmount(1234, 'KWD', 'en-US')).toBe('KWD\u00a01.234');
    expect(formatAmount(5000, 'KWD', 'en-US', true)).toBe('KWD\u00a05');
  });

  it('parses typed amounts exactly, with no floating-point drift', () => {
    expect(minor('19.99', 'USD')).toBe(1999);
    expect(minor('0.29', 'USD')).toBe(29);
    expect(minor('1.15', 'EUR')).toBe(115);
    expect(minor('4.35', 'USD')).toBe(435);
    expect(minor('5', 'USD')).toBe(500);
    expect(minor('5.', 'USD')).toBe(500);
    expect(minor('.5', 'USD')).toBe(50);
    expect(minor(' 007.10 ', 'USD')).toBe(710);
    expect(minor('1200', 'JPY')).toBe(1200);
    expect(minor('1.234', 'KWD')).toBe(1234);
    expect(minor('0.5', 'KWD')).toBe(500);
  });

  it("reads either separator as the decimal one, and the locale's grouping where it groups three digits", () => {
    expect(minor('12,50', 'EUR', 'de-DE')).toBe(1250);
    expect(minor('12.50', 'EUR', 'de-DE')).toBe(1250);
    expect(minor('1.000,50', 'EUR', 'de-DE')).toBe(100050);
    expect(minor('1,000.50', 'USD', 'en-US')).toBe(100050);
    expect(minor('12,5', 'USD', 'en-US')).toBe(1250);
    expect(minor('1 000', 'EUR', 'fr-FR')).toBe(100000);
    expect(minor('1,200', 'JPY', 'en-US')).toBe(1200);
  });

  it('refuses what is not an amount, digits the currency does not have, and absurd lengths', () => {
    expect(minor('', 'USD')).toBe('empty');
    expect(minor('   ', 'USD')).toBe('empty');
    expect(minor('five', 'USD')).toBe('format');
    expect(minor('-5', 'USD')).toBe('format');
    expect(minor('1e3', 'USD')).toBe('format');
    expect(minor('$5', 'USD')).toBe('format');
    expect(minor('.', 'USD')).toBe('format');
    expect(minor('5.005', 'USD')).toBe('decimals');
    expect(minor('5.000', 'USD')).toBe(500);
    expect(minor('12.5', 'JPY')).toBe('decimals');
    expect(minor('1.2345', 'KWD')).toBe('decimals');
    expect(minor('1234567890123456', 'USD')).toBe('large');
  });
});

describe('the donate rules, before submit', () => {
  it("takes the config's minimum in pay-what-you-want, never below the floor of 50; none in fixed mode", () => {
    expect(minimumOf(pwyw({ minAmount: 500 }))).toBe(500);
    expect(minimumOf(pwyw({ minAmount: 10 }))).toBe(50);
    expect(minimumOf(pwyw())).toBe(50);
    expect(minimumOf(fixed([500]))).toBeNull();
  });

  it('checks the chosen amount as the server would, a typed one winning over a chip', () => {
    const config = pwyw({ minAmount: 500 });
    const choose = (chip: number | null, custom = '') => chosenAmount(config, 'USD', 'en-US', { chip, custom });
    expect(choose(1000)).toEqual({ amount: 1000 });
    expect(choose(1000, '7.25')).toEqual({ amount: 725 });
    expect(choose(null, '5')).toEqual({ amount: 500 });
    expect(choose(null, '4.99')).toEqual({ problem: 'Give at least $5.00.' });
    expect(choose(null)).toEqual({ problem: 'Choose or enter an amount.' });
    expect(choose(null, 'lots')).toEqual({ problem: 'Enter an amount like $10.00.' });
    expect(choose(null, '5.001')).toEqual({ problem: 'Use at most 2 decimals.' });
    expect(choose(null, '1000001')).toEqual({ problem: 'That is more than one donation can be.' });
    expect(choose(null, '99999999999999999')).toEqual({ problem: 'That is more than one donation can be.' });
    expect(chosenAmount(pwyw({ currency: 'JPY' }), 'JPY', 'en-US', { chip: null, custom: '49' })).toEqual({
      problem: 'Give at least ¥50.',
    });
    expect(chosenAmount(pwyw(), 'JPY', 'en-US', { chip: null, custom: '12.5' })).toEqual({
      problem: 'Enter a whole amount.',
    });
  });

  it('takes only a listed amount in fixed mode, and ignores a stray custom amount there', () => {
    const config = fixed([500, 1000]);
    expect(chosenAmount(config, 'USD', 'en-US', { chip: 1000, custom: '3' })).toEqual({ amount: 1000 });
    expect(chosenAmount(config, 'USD', 'en-US', { chip: 700, custom: '' })).toEqual({
      problem: 'Choose one of the amounts shown.',
    });
    expect(chosenAmount(config, 'USD', 'en-US', { chip: null, custom: '' })).toEqual({ problem: 'Choose an amount.' });
  });
});

describe('the chips', () => {
  it("suggests four round amounts from the minimum up, in the currency's minor units", () => {
    expect(suggestions(50)).toEqual([500, 1000, 2500, 5000]);
    expect(suggestions(500)).toEqual([500, 1000, 2500, 5000]);
    expect(suggestions(750)).toEqual([1000, 2500, 5000, 10000]);
    expect(suggestions(120000)).toEqual([250000, 500000, 1000000, 2500000]);
  });

  it("shows a fixed config's amounts, at most 8, once each", () => {
    expect(chipAmounts(fixed([500, 1000, 2500]))).toEqual([500, 1000, 2500]);
    expect(chipAmounts(fixed([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toHaveLength(8);
    expect(chipAmounts(fixed([500, 500, 1000]))).toEqual([500, 1000]);
  });

  it("in pay-what-you-want, the config's amounts the server would take, else suggestions", () => {
    expect(chipAmounts(pwyw({ minAmount: 500, amounts: [300, 800, 1500] }))).toEqual([800, 1500]);
    expect(chipAmounts(pwyw({ minAmount: 500 }))).toEqual([500, 1000, 2500, 5000]);
    expect(chipAmounts(pwyw({ minAmount: 5000, amounts: [100] }))).toEqual([5000, 10000, 25000, 50000]);
  });
});

describe('the request', () => {
  const urls = { successUrl: 'https://shop.example/?a', cancelUrl: 'https://shop.example/?b' };

  it('sends the amount and, for an anonymous donor, the e-mail trimmed; a signed-in donor sends none', () => {
    expect(donateBody(1000, ' ana@example.com ', urls)).toEqual({
      donation: { amount: 1000 },
      customer: { email: 'ana@example.com' },
      ...urls,
    });
    expect(donateBody(1000, null, urls)).toEqual({ donation: { amount: 1000 }, ...urls });
  });

  it('returns to this page with the session id left for the processor, naming the product or event', () => {
    expect(
      roundTripUrls('https://shop.example/give', { state: 'svc_donate', owner: ['svc_sku', 'trail fund'] }),
    ).toEqual({
      successUrl: 'https://shop.example/give?svc_donate=success&session={CHECKOUT_SESSION_ID}&svc_sku=trail%20fund',
      cancelUrl: 'https://shop.example/give?svc_donate=cancelled&svc_sku=trail%20fund',
    });
    expect(
      roundTripUrls('https://shop.example/p?lang=en#give', { state: 'svc_donate', owner: ['svc_event', 'walk'] })
        .successUrl,
    ).toBe('https://shop.example/p?lang=en&svc_donate=success&session={CHECKOUT_SESSION_ID}&svc_event=walk#give');
  });

  it('drops what any widget left from an earlier round trip, so one session id is ever in the URL', () => {
    const afterDonation = 'https://shop.example/p?lang=en&svc_donate=success&session=cs_1&svc_sku=fund';
    expect(returnUrls(afterDonation, 'walk').successUrl).toBe(
      'https://shop.example/p?lang=en&svc_checkout=success&session={CHECKOUT_SESSION_ID}&svc_event=walk',
    );
    const afterTicket = 'https://shop.example/p?svc_checkout=success&session=cs_2&svc_event=walk';
    expect(roundTripUrls(afterTicket, { state: 'svc_donate', owner: ['svc_sku', 'fund'] }).cancelUrl).toBe(
      'https://shop.example/p?svc_donate=cancelled&svc_sku=fund',
    );
  });

  it("recognises a return for this widget only: not another product's, another event's or a ticket checkout's", () => {
    const fund = { state: 'svc_donate', owner: ['svc_sku', 'fund'] } as const;
    const walk = { state: 'svc_donate', owner: ['svc_event', 'walk'] } as const;
    const back = 'https://shop.example/?svc_donate=success&session=cs_1&svc_sku=fund';
    expect(roundTripReturn(back, fund)).toEqual({ kind: 'success', sessionId: 'cs_1' });
    expect(roundTripReturn(back, walk)).toBeNull();
    expect(roundTripReturn(back, { state: 'svc_donate', owner: ['svc_sku', 'other'] })).toBeNull();
    expect(roundTripReturn('https://shop.example/?svc_donate=cancelled&svc_event=walk', walk)).toEqual({
      kind: 'cancelled',
    });
    expect(roundTripReturn('https://shop.example/?svc_checkout=success&session=cs_2&svc_event=walk', walk)).toBeNull();
    expect(checkoutReturn(back, 'walk')).toBeNull();
  });

  it("charges in the parent's currency: an event's first tier on sale, else any tier, else its donation settings", () => {
    const config = pwyw({ currency: 'EUR' });
    expect(eventCurrency({ tiers: [{ currency: 'jpy' } as never], donationConfig: config })).toBe('JPY');
    expect(eventCurrency({ tiers: [], donationConfig: config }, [{ currency: 'GBP' }])).toBe('GBP');
    expect(eventCurrency({ tiers: [], donationConfig: config })).toBe('EUR');
    expect(eventCurrency({ tiers: [], donationConfig: null })).toBe('USD');
  });
});

describe('the donate action on the wire', () => {
  const foreign: EmbedConfig = {
    community: 'demo',
    key: 'pk_live_abc',
    api: 'https://platform.example',
    hosted: false,
    site: null,
  };
  const hosted: EmbedConfig = { ...foreign, hosted: true };

  function recorder(status: number, body: unknown, headers: Record<string, string> = {}) {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
    }) as typeof fetch;
    return { calls, fetchImpl };
  }
  const body = donateBody(500, 'a@example.com', { successUrl: 'https://s.example/', cancelUrl: 'https://s.example/' });

  it("goes to the platform with the publishable key and no cookies from a customer's site", async () => {
    const { calls, fetchImpl } = recorder(200, { checkoutUrl: 'https://pay.example/cs_1', sessionId: 'cs_1' });
    expect(donatePath('demo', 'product', 'trail fund')).toBe('/api/actions/demo/products/trail%20fund/donate');
    expect(await postDonation(foreign, donatePath('demo', 'event', 'walk'), body, fetchImpl)).toEqual({
      checkoutUrl: 'https://pay.example/cs_1',
      sessionId: 'cs_1',
    });
    expect(calls[0].url).toBe('https://platform.example/api/actions/demo/events/walk/donate');
    expect(calls[0].init).toMatchObject({ method: 'POST', credentials: 'omit', body: JSON.stringify(body) });
    expect(calls[0].init.headers).toMatchObject({ 'X-API-Key': 'pk_live_abc', 'Content-Type': 'application/json' });
  });

  it('stays same-origin and keyless on the hosted site, so the sign-in cookie names the donor', async () => {
    const { calls, fetchImpl } = recorder(200, {});
    await postDonation(hosted, donatePath('demo', 'product', 'fund'), body, fetchImpl);
    expect(calls[0].url).toBe('/api/actions/demo/products/fund/donate');
    expect(calls[0].init.credentials).toBe('same-origin');
    expect(calls[0].init.headers).not.toHaveProperty('X-API-Key');
  });

  it('turns the envelope into a DonateError with its extras and Retry-After; a dead network is status 0', async () => {
    const { fetchImpl } = recorder(
      429,
      { error: 'Too many', code: 'RATE_LIMITED', requestId: 'req_1', extras: { retryAfter: 1800 } },
      { 'Retry-After': '1800' },
    );
    const error = await postDonation(foreign, '/x', body, fetchImpl).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DonateError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', requestId: 'req_1', retryAfter: 1800 });
    const refused = recorder(400, {
      error: 'x',
      code: 'INVALID_DONATION_AMOUNT',
      extras: { field: 'donation.amount', minimum: 500 },
    });
    expect(await postDonation(foreign, '/x', body, refused.fetchImpl).catch((e: unknown) => e)).toMatchObject({
      status: 400,
      extras: { field: 'donation.amount', minimum: 500 },
      retryAfter: null,
    });
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    expect(await postDonation(foreign, '/x', body, offline).catch((e: unknown) => e)).toMatchObject({
      status: 0,
      extras: {},
    });
  });
});

describe('server refusals, mapped back onto the form', () => {
  const err = (
    status: number,
    code: string | undefined,
    extras = {},
    retryAfter: number | null = null,
    message = 'server words',
  ) => new DonateError(message, status, code, 'req_1', extras, retryAfter);
  const map = (e: DonateError, emailShown = true) => problemFrom(e, 'USD', 'en-US', emailShown);

  it("puts the amount's problems next to the amount, in the currency", () => {
    expect(map(err(400, 'INVALID_DONATION_AMOUNT', { field: 'donation.amount', minimum: 500 }))).toEqual({
      field: 'amount',
      message: 'Give at least $5.00.',
    });
    expect(map(err(400, 'INVALID_DONATION_AMOUNT', { field: 'donation.amount', amounts: [500, 1000] }))).toEqual({
      field: 'amount',
      message: 'Choose one of the amounts: $5.00, $10.00.',
    });
    expect(problemFrom(err(400, 'INVALID_DONATION_AMOUNT', { minimum: 1500 }), 'KWD', 'en-US', true).message).toBe(
      'Give at least KWD\u00a01.500.',
    );
  });

  it('puts an e-mail refusal next to the e-mail field when there is one, else under the form', () => {
    expect(map(err(400, 'INVALID_EMAIL', { field: 'customer.email' }))).toEqual({
      field: 'email',
      message: 'Enter an e-mail address like name@example.com.',
    });
    expect(map(err(400, 'INVALID_INPUT', { field: 'customer.email' }))).toEqual({
      field: 'email',
      message: 'Enter an e-mail address like name@example.com.',
    });
    expect(map(err(400, 'INVALID_INPUT', { field: 'customer.email' }), false)).toEqual({
      field: null,
      message: 'server words',
    });
  });

  it('says when to try again after a 429, from Retry-After', () => {
    expect(map(err(429, 'RATE_LIMITED', {}, 30)).message).toBe('Too many attempts. Please try again in 30 seconds.');
    expect(map(err(429, 'RATE_LIMITED', {}, 61)).message).toBe('Too many attempts. Please try again in a minute.');
    expect(map(err(429, 'RATE_LIMITED', {}, 1800)).message).toBe('Too many attempts. Please try again in 30 minutes.');
    expect(map(err(429, 'RATE_LIMITED')).message).toBe('Too many attempts. Please try again in a minute.');
  });

  it("falls back to one message under the form: donations off, the network, server failures, the server's words", () => {
    expect(map(err(400, 'INVALID_INPUT', { field: 'donation' }))).toEqual({
      field: null,
      message: 'Donations are closed here.',
    });
    expect(map(err(0, undefined)).message).toMatch(/couldn't reach the server/);
    expect(map(err(502, 'PAYMENT_PROCESSOR_ERROR')).message).toBe(
      'Something went wrong on our side. Please try again.',
    );
    // A page the community has not listed: the visitor learns it is not them (the console says the fix).
    expect(map(err(403, 'ORIGIN_NOT_ALLOWED', {}, null, 'This site may not act for the community'))).toEqual({
      field: null,
      message: "This site isn't set up for donations yet, so nothing was sent.",
    });
  });
});
