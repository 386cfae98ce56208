// <svc-apply>'s pure logic: what a segment card says (prices per cycle in the segment's currency,
// founding prices and spots), the cycles the switch offers, the application form as the server
// reads it and the bodies sent, what check-email tells the visitor, refusals mapped back onto the
// form, and the checkout round trip.
import { describe, expect, it } from 'vitest';
import type { FormField, Segment } from '../../../contract/resources.ts';
import { checkoutReturn, returnUrls } from '../../../widgets/apply/checkout.ts';
import {
  addressToCheck,
  applicationFields,
  emailNotice,
  problemFrom,
  submitBody,
} from '../../../widgets/apply/form.ts';
import {
  foundingNote,
  foundingSpotsLeft,
  initialCycle,
  isFree,
  offers,
  priceText,
  summary,
} from '../../../widgets/apply/segments.ts';
import { ActionError } from '../../../widgets/lib/forms/actions.ts';
import { checkEvery } from '../../../widgets/lib/forms/form.ts';

let seq = 0;
function segment(overrides: Partial<Segment> = {}): Segment {
  seq += 1;
  return {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    name: `Segment ${seq}`,
    description: null,
    color: '#336699',
    hasForm: false,
    currency: 'USD',
    priceMonthly: null,
    priceQuarterly: null,
    priceYearly: null,
    priceOneTime: null,
    installmentTotalPrice: null,
    installmentCount: null,
    installmentIntervalMonths: null,
    accessDurationMonths: null,
    installmentRenewsAnnually: false,
    foundingPriceMonthly: null,
    foundingPriceQuarterly: null,
    foundingPriceYearly: null,
    foundingMemberCap: null,
    foundingMemberCount: 0,
    isActive: true,
    ...overrides,
  };
}

const field = (overrides: Partial<FormField> & Pick<FormField, 'id' | 'type'>): FormField => ({
  label: overrides.id,
  required: false,
  ...overrides,
});

describe('segment cards: price per cycle', () => {
  it('says Free for a segment with no price, and offers no cycle', () => {
    const free = segment();
    expect(isFree(free)).toBe(true);
    expect(offers(free)).toEqual([]);
    expect(summary(free, 'en-US')).toBe('Free');
    expect(initialCycle(free)).toBeNull();
  });

  it("prices each cycle per period in the segment's currency, with that currency's decimals", () => {
    const s = segment({ priceMonthly: 800, priceQuarterly: 2200, priceYearly: 8000 });
    const [m, q, y] = offers(s);
    expect(priceText(s, m, 'en-US')).toBe('$8.00 / month');
    expect(priceText(s, q, 'en-US')).toBe('$22.00 / quarter');
    expect(priceText(s, y, 'en-US')).toBe('$80.00 / year');
    expect(summary(s, 'en-US')).toBe('$8.00 / month or $22.00 / quarter or $80.00 / year');
    const yen = segment({ currency: 'JPY', priceMonthly: 1200 });
    expect(summary(yen, 'en-US')).toBe('¥1,200 / month');
    const euro = segment({ currency: 'EUR', priceYearly: 4500 });
    expect(summary(euro, 'de-DE')).toBe('45,00\u00a0€ / year');
  });

  it('says what a one-time payment and an installment plan buy, with the access they give', () => {
    const once = segment({ priceOneTime: 5000, accessDurationMonths: 12 });
    expect(summary(once, 'en-US')).toBe('$50.00 once, for 1 year');
    const plan = segment({
      installmentTotalPrice: 36000,
      installmentCount: 3,
      installmentIntervalMonths: 1,
      accessDurationMonths: 12,
      installmentRenewsAnnually: true,
    });
    expect(summary(plan, 'en-US')).toBe('$360.00 in 3 payments, one every month, for 1 year');
    const slow = segment({
      installmentTotalPrice: 9000,
      installmentCount: 2,
      installmentIntervalMonths: 3,
      accessDurationMonths: 18,
    });
    expect(summary(slow, 'en-US')).toBe('$90.00 in 2 payments, one every 3 months, for 18 months');
  });
});

describe('founding prices', () => {
  const founding = {
    priceMonthly: 800,
    priceYearly: 8000,
    foundingPriceMonthly: 600,
    foundingPriceYearly: 6000,
    foundingMemberCap: 50,
  };

  it('charges the founding price instead of the regular one while spots are left, and says how many', () => {
    const s = segment({ ...founding, foundingMemberCount: 38 });
    expect(foundingSpotsLeft(s)).toBe(12);
    expect(foundingNote(s)).toBe('12 founding spots left');
    expect(offers(s)).toEqual([
      { cycle: 'MONTHLY', price: 600, regular: 800 },
      { cycle: 'YEARLY', price: 6000, regular: 8000 },
    ]);
    expect(summary(s, 'en-US')).toBe('$6.00 / month or $60.00 / year');
    expect(foundingNote(segment({ ...founding, foundingMemberCount: 49 }))).toBe('1 founding spot left');
  });

  it('goes back to regular prices, saying nothing, once the cap is reached', () => {
    for (const count of [50, 51]) {
      const s = segment({ ...founding, foundingMemberCount: count });
      expect(foundingSpotsLeft(s)).toBe(0);
      expect(foundingNote(s)).toBeNull();
      expect(offers(s)).toEqual([
        { cycle: 'MONTHLY', price: 800, regular: null },
        { cycle: 'YEARLY', price: 8000, regular: null },
      ]);
    }
  });

  it('gives the founding price to everyone without a cap (no spots to count), and none for cycles without one', () => {
    const uncapped = segment({ priceMonthly: 800, foundingPriceMonthly: 600 });
    expect(foundingNote(uncapped)).toBeNull();
    expect(offers(uncapped)).toEqual([{ cycle: 'MONTHLY', price: 600, regular: 800 }]);
    expect(foundingNote(segment({ priceMonthly: 800, foundingMemberCap: 10 }))).toBeNull();
    expect(offers(segment({ priceMonthly: 800, foundingMemberCap: 10 }))).toEqual([
      { cycle: 'MONTHLY', price: 800, regular: null },
    ]);
    const s = segment({ priceMonthly: 800, priceOneTime: 9000, foundingPriceMonthly: 600, foundingMemberCap: 10 });
    expect(offers(s)).toEqual([
      { cycle: 'MONTHLY', price: 600, regular: 800 },
      { cycle: 'ONE_TIME', price: 9000, regular: null },
    ]);
    // A founding price whose regular price is not offered is not offered either.
    expect(offers(segment({ priceYearly: 8000, foundingPriceMonthly: 600, foundingMemberCap: 10 }))).toEqual([
      { cycle: 'YEARLY', price: 8000, regular: null },
    ]);
  });
});

describe('the billing cycle switch', () => {
  it("offers exactly the cycles the segment has, in the server's order, the plan included", () => {
    const s = segment({
      priceYearly: 36000,
      installmentTotalPrice: 36000,
      installmentCount: 3,
      installmentIntervalMonths: 1,
      accessDurationMonths: 12,
      priceMonthly: 3500,
    });
    expect(offers(s).map((o) => o.cycle)).toEqual(['MONTHLY', 'YEARLY', 'INSTALLMENT_PLAN']);
  });

  it('starts on the only cycle when there is one, and on none when the visitor must choose', () => {
    expect(initialCycle(segment({ priceQuarterly: 2000 }))).toBe('QUARTERLY');
    expect(initialCycle(segment({ priceMonthly: 800, priceYearly: 8000 }))).toBeNull();
  });
});

describe('the application form and what is sent', () => {
  it('adds the e-mail and name fields the server requires to a segment without a form, name first', () => {
    const form = applicationFields([]);
    expect(form.fields.map((f) => [f.key, f.field.type, f.field.required, f.autocomplete])).toEqual([
      ['answers.name', 'short_text', true, 'name'],
      ['answers.email', 'email', true, 'email'],
    ]);
    expect(form).toMatchObject({ emailKey: 'answers.email', nameKey: 'answers.name' });
  });

  it('uses the form\'s own e-mail field and its first short text labelled with "name", required whatever the form says', () => {
    const schema = [
      field({ id: 'why', type: 'long_text', label: 'Why join?' }),
      field({ id: 'mail', type: 'email', label: 'E-mail' }),
      field({ id: 'city', type: 'short_text', label: 'City' }),
      field({ id: 'full', type: 'short_text', label: 'Full NAME' }),
    ];
    const form = applicationFields(schema);
    expect(form.fields.map((f) => f.key)).toEqual(['answers.why', 'answers.mail', 'answers.city', 'answers.full']);
    expect(form).toMatchObject({ emailKey: 'answers.mail', nameKey: 'answers.full' });
    expect(form.fields.filter((f) => f.field.required).map((f) => f.key)).toEqual(['answers.mail', 'answers.full']);
    // "Nickname" has "name" in it: the first such short text is the name, as on the server.
    expect(applicationFields([field({ id: 'nick', type: 'short_text', label: 'Nickname' })]).nameKey).toBe(
      'answers.nick',
    );
    // The schema is not changed in place.
    expect(schema[1].required).toBe(false);
  });

  it('picks ids for the added fields that the form does not use, as the server does', () => {
    const form = applicationFields([
      field({ id: 'email', type: 'short_text', label: 'Email (text)' }),
      field({ id: 'name', type: 'number', label: 'Age' }),
    ]);
    expect(form).toMatchObject({ emailKey: 'answers.email_2', nameKey: 'answers.name_2' });
  });

  it('checks required fields before anything is sent', () => {
    const form = applicationFields([
      field({ id: 'pace', type: 'select', label: 'Pace', required: true, options: ['Slow', 'Fast'] }),
    ]);
    expect(checkEvery(form.fields, { 'answers.email': 'ana@example' })).toEqual({
      'answers.name': 'This field is required.',
      'answers.email': 'Enter an e-mail address like name@example.com.',
      'answers.pace': 'Choose an option.',
    });
  });

  it('sends answers by field id, the cycle only for a paid segment, and the source when the page sets one', () => {
    const form = applicationFields([
      field({ id: 'days', type: 'multi_select', label: 'Days', options: ['Sat', 'Sun'] }),
      field({ id: 'ok', type: 'checkbox', label: 'OK' }),
    ]);
    const values = { 'answers.name': ' Ana Lima ', 'answers.email': ' ana@example.com ', 'answers.days': ['Sun'] };
    expect(submitBody(form, values, null, null)).toEqual({
      answers: { name: 'Ana Lima', email: 'ana@example.com', days: ['Sun'], ok: false },
    });
    expect(submitBody(form, values, 'YEARLY', ' spring-flyer ')).toEqual({
      answers: { name: 'Ana Lima', email: 'ana@example.com', days: ['Sun'], ok: false },
      billingCycle: 'YEARLY',
      source: 'spring-flyer',
    });
    expect(submitBody(form, values, null, '   ')).not.toHaveProperty('source');
  });
});

describe('the e-mail check', () => {
  const form = applicationFields([]);

  it('asks only once the address looks complete, lower-cased and trimmed', () => {
    expect(addressToCheck({ 'answers.email': 'ana@exa' }, form)).toBeNull();
    expect(addressToCheck({}, form)).toBeNull();
    expect(addressToCheck({ 'answers.email': ' Ana@Example.COM ' }, form)).toBe('ana@example.com');
  });

  it('tells a member and a pending applicant before they submit, and stops the submit; says nothing otherwise', () => {
    expect(emailNotice('ACCEPTED')).toEqual({ text: "You're already a member with this address.", blocks: true });
    expect(emailNotice('PENDING')).toEqual({
      text: 'An application from this address is already waiting for review.',
      blocks: true,
    });
    expect(emailNotice('PAYMENT_PENDING')).toMatchObject({ blocks: false });
    for (const status of ['NONE', 'REJECTED', 'BANNED'] as const) expect(emailNotice(status)).toBeNull();
  });
});

describe('refusals mapped back onto the form', () => {
  const keys = ['answers.name', 'answers.email', 'answers.pace'];
  const err = (
    status: number,
    message: string,
    extras: ConstructorParameters<typeof ActionError>[4] = {},
    code?: string,
  ) => new ActionError(message, status, code, 'req_1', extras);
  const map = (e: ActionError) => problemFrom(e, keys, 'answers.email');

  it('puts ALREADY_MEMBER and APPLICATION_PENDING next to the e-mail field', () => {
    expect(map(err(400, 'Already a member', {}, 'ALREADY_MEMBER'))).toEqual({
      fields: { 'answers.email': "You're already a member with this address." },
      message: null,
      refreshSegments: false,
    });
    expect(map(err(400, 'Pending', {}, 'APPLICATION_PENDING')).fields).toEqual({
      'answers.email': 'An application from this address is already waiting for review.',
    });
  });

  it('marks every missing field the server names (400 with extras.fields), and an invalid one in words', () => {
    expect(
      map(
        err(400, 'Required answers are missing', { field: 'answers.name', fields: ['name', 'pace'] }, 'INVALID_INPUT'),
      ).fields,
    ).toEqual({ 'answers.name': 'This field is required.', 'answers.pace': 'This field is required.' });
    expect(
      map(err(400, 'answers.pace must be one of the options', { field: 'answers.pace' }, 'INVALID_INPUT')).fields,
    ).toEqual({ 'answers.pace': 'Must be one of the options.' });
  });

  it('speaks for the whole form about a ban, an invite-only community, a closed segment or a changed cycle', () => {
    expect(map(err(403, 'Banned', {}, 'APPLICANT_BANNED'))).toEqual({
      fields: {},
      message: "This address can't apply to this community.",
      refreshSegments: false,
    });
    expect(map(err(403, 'Invite only', {}, 'FEATURE_NOT_ENABLED')).message).toMatch(/invite-only/);
    expect(map(err(400, 'Segment closed', { field: 'segmentId' }, 'INVALID_INPUT'))).toEqual({
      fields: {},
      message: 'This membership is no longer open for applications.',
      refreshSegments: true,
    });
    expect(
      map(
        err(
          400,
          'billingCycle must be one of MONTHLY',
          { field: 'billingCycle', offered: ['MONTHLY'] },
          'INVALID_INPUT',
        ),
      ),
    ).toEqual({ fields: {}, message: 'Choose how you would like to pay.', refreshSegments: true });
  });

  it("falls back to plain words for the network, the rate limit and server failures, and the server's own otherwise", () => {
    expect(map(err(0, 'Network error')).message).toMatch(/couldn't reach the server/);
    expect(map(err(429, 'Too many')).message).toMatch(/wait a minute/);
    expect(map(err(503, 'Payments are unavailable')).message).toBe(
      'Something went wrong on our side. Please try again.',
    );
    expect(map(err(400, 'This application is not waiting for payment.', { field: 'requestId' })).message).toBe(
      'This application is not waiting for payment.',
    );
  });
});

describe('the checkout round trip', () => {
  it('returns to this page with the segment and the session id left for the processor to fill in', () => {
    expect(returnUrls('https://shop.example/join?lang=en#apply', 'seg-1')).toEqual({
      successUrl:
        'https://shop.example/join?lang=en&svc_apply=success&session={CHECKOUT_SESSION_ID}&svc_segment=seg-1#apply',
      cancelUrl: 'https://shop.example/join?lang=en&svc_apply=cancelled&svc_segment=seg-1#apply',
    });
  });

  it("is heard by the widget of that segment, or one showing every segment; not by another, nor by <svc-rsvp>'s returns", () => {
    const back = 'https://shop.example/?svc_apply=success&session=cs_1&svc_segment=seg-1';
    expect(checkoutReturn(back, 'seg-1')).toEqual({ kind: 'success', sessionId: 'cs_1' });
    expect(checkoutReturn(back, null)).toEqual({ kind: 'success', sessionId: 'cs_1' });
    expect(checkoutReturn(back, 'seg-2')).toBeNull();
    expect(checkoutReturn('https://shop.example/?svc_apply=cancelled&svc_segment=seg-1', null)).toEqual({
      kind: 'cancelled',
    });
    expect(checkoutReturn('https://shop.example/?svc_checkout=success&session=cs_1&svc_event=walk', null)).toBeNull();
  });
});
