// <svc-rsvp>'s pure logic: what a tier says (price, seats), the booking form as data (fields,
// checks, the request body it becomes), server errors mapped back onto fields, the checkout
// round trip's URLs, and how widget actions are sent.
import { describe, expect, it } from 'vitest';
import type { FormField, Tier } from '../../../contract/resources.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';
import { ActionError, actionPath, postAction } from '../../../widgets/rsvp/actions.ts';
import { checkoutReturn, returnUrls, withoutReturn } from '../../../widgets/rsvp/checkout-return.ts';
import {
  answerKey,
  checkAll,
  checkField,
  checkoutRequest,
  fieldsFor,
  initialValues,
  problemFrom,
  rsvpRequest,
  toFormAnswers,
} from '../../../widgets/rsvp/form.ts';
import { availability, availabilityLabel, hasEnded, maxQuantity, priceLabel } from '../../../widgets/rsvp/tiers.ts';

let seq = 0;
function tier(overrides: Partial<Tier> = {}): Tier {
  seq += 1;
  return {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    name: `Tier ${seq}`,
    priceCents: 0,
    currency: 'USD',
    capacity: null,
    sold: 0,
    isActive: true,
    hasForm: false,
    ...overrides,
  };
}

const field = (overrides: Partial<FormField> & Pick<FormField, 'id' | 'type'>): FormField => ({
  label: overrides.id,
  required: false,
  ...overrides,
});

const FORM: FormField[] = [
  field({ id: 'contact', type: 'short_text', label: 'Emergency contact', required: true, maxLength: 20 }),
  field({ id: 'mobile', type: 'phone', label: 'Mobile' }),
  field({ id: 'site', type: 'url', label: 'Website' }),
  field({ id: 'backup', type: 'email', label: 'Backup e-mail' }),
  field({ id: 'age', type: 'number', label: 'Age' }),
  field({ id: 'born', type: 'date', label: 'Born' }),
  field({ id: 'diet', type: 'select', label: 'Diet', required: true, options: ['vegan', 'any'] }),
  field({ id: 'extras', type: 'multi_select', label: 'Extras', options: ['tent', 'stove'] }),
  field({ id: 'photos', type: 'checkbox', label: 'Photos OK' }),
  field({ id: 'waiver', type: 'checkbox', label: 'I accept the waiver', required: true }),
  field({ id: 'notes', type: 'long_text', label: 'Notes' }),
];

describe('tiers: seats and prices', () => {
  it('says how many seats are left, "Sold out" at or past capacity, "Closed" when inactive, nothing when unlimited', () => {
    expect(availabilityLabel(tier({ capacity: 10, sold: 7 }))).toBe('3 left');
    expect(availabilityLabel(tier({ capacity: 10, sold: 9 }))).toBe('1 left');
    expect(availabilityLabel(tier({ capacity: 10, sold: 10 }))).toBe('Sold out');
    // Oversold by an import or a manual edit: still sold out, never "-2 left".
    expect(availabilityLabel(tier({ capacity: 10, sold: 12 }))).toBe('Sold out');
    expect(availabilityLabel(tier({ capacity: 0, sold: 0 }))).toBe('Sold out');
    expect(availabilityLabel(tier({ capacity: null, sold: 500 }))).toBeNull();
    expect(availabilityLabel(tier({ capacity: 10, sold: 2, isActive: false }))).toBe('Closed');
    expect(availability(tier({ capacity: 10, sold: 10, isActive: false }))).toEqual({ kind: 'closed' });
    expect(availability(tier({ capacity: 5, sold: 1 }))).toEqual({ kind: 'open', left: 4 });
  });

  it('writes the count in the locale’s digits and grouping', () => {
    expect(availabilityLabel(tier({ capacity: 2000, sold: 766 }), 'en')).toBe('1,234 left');
    expect(availabilityLabel(tier({ capacity: 2000, sold: 766 }), 'de')).toBe('1.234 left');
    expect(availabilityLabel(tier({ capacity: 10, sold: 1 }), 'ar-EG')).toBe('٩ left');
  });

  it("formats prices from minor units with the currency's own decimals", () => {
    expect(priceLabel(tier({ priceCents: 0 }), 'en-US')).toBe('Free');
    expect(priceLabel(tier({ priceCents: 2500, currency: 'USD' }), 'en-US')).toBe('$25.00');
    expect(priceLabel(tier({ priceCents: 1999, currency: 'EUR' }), 'de-DE')).toBe('19,99\u00a0€');
    // No minor unit in yen, three in dinar: 1200 is ¥1,200, 1234 is 1.234 KWD.
    expect(priceLabel(tier({ priceCents: 1200, currency: 'JPY' }), 'en-US')).toBe('¥1,200');
    expect(priceLabel(tier({ priceCents: 1234, currency: 'KWD' }), 'en-US')).toBe('KWD\u00a01.234');
  });

  it('caps the quantity at 10 per checkout and at the seats left', () => {
    expect(maxQuantity(tier({ capacity: null }))).toBe(10);
    expect(maxQuantity(tier({ capacity: 100, sold: 1 }))).toBe(10);
    expect(maxQuantity(tier({ capacity: 10, sold: 7 }))).toBe(3);
    expect(maxQuantity(tier({ capacity: 10, sold: 10 }))).toBe(0);
    expect(maxQuantity(tier({ capacity: 100, isActive: false }))).toBe(0);
  });

  it('treats an event as over once it has ended, or started when it has no end', () => {
    const now = Date.parse('2025-06-15T12:00:00Z');
    expect(hasEnded({ startDate: '2025-06-15T10:00:00Z', endDate: '2025-06-15T14:00:00Z' }, now)).toBe(false);
    expect(hasEnded({ startDate: '2025-06-15T10:00:00Z', endDate: '2025-06-15T11:00:00Z' }, now)).toBe(true);
    expect(hasEnded({ startDate: '2025-06-15T10:00:00Z', endDate: null }, now)).toBe(true);
    expect(hasEnded({ startDate: '2025-06-16T10:00:00Z', endDate: null }, now)).toBe(false);
  });
});

describe('the booking form: fields', () => {
  it('asks a free tier for name and e-mail, then its own form, with autofill tokens', () => {
    const fields = fieldsFor(tier({ priceCents: 0 }), FORM);
    expect(fields.map((f) => f.key)).toEqual(['name', 'email', ...FORM.map((f) => `formAnswers.${f.id}`)]);
    const auto = Object.fromEntries(fields.map((f) => [f.key, f.autocomplete]));
    expect(auto).toMatchObject({
      name: 'name',
      email: 'email',
      'formAnswers.mobile': 'tel',
      'formAnswers.site': 'url',
      'formAnswers.backup': 'email',
      'formAnswers.contact': undefined,
      'formAnswers.diet': undefined,
    });
    expect(fields.slice(0, 2).every((f) => f.field.required)).toBe(true);
  });

  it('asks a paid tier for name and quantity (the e-mail is asked on the payment page), starting at one ticket', () => {
    const paid = tier({ priceCents: 2500 });
    expect(fieldsFor(paid, []).map((f) => f.key)).toEqual(['name', 'quantity']);
    expect(initialValues(paid)).toEqual({ quantity: '1' });
    expect(initialValues(tier())).toEqual({});
  });
});

describe('the booking form: checks before sending', () => {
  const free = tier();
  const specs = fieldsFor(free, FORM);
  const spec = (key: string) => specs.find((s) => s.key === key)!;

  it('names every required field left empty, with a message fitting its kind', () => {
    expect(checkAll(specs, {}, free)).toEqual({
      name: 'This field is required.',
      email: 'This field is required.',
      'formAnswers.contact': 'This field is required.',
      'formAnswers.diet': 'Choose an option.',
      'formAnswers.waiver': 'Tick this box to continue.',
    });
    expect(checkField(spec('name'), '   ', free)).toBe('This field is required.');
    const required = { ...spec('formAnswers.extras'), field: { ...spec('formAnswers.extras').field, required: true } };
    expect(checkField(required, [], free)).toBe('Choose at least one option.');
  });

  it('checks values by type, as the server does', () => {
    expect(checkField(spec('email'), 'not-an-email', free)).toMatch(/e-mail address/);
    expect(checkField(spec('email'), ' ana@example.com ', free)).toBeNull();
    expect(checkField(spec('formAnswers.mobile'), 'call me', free)).toMatch(/phone number/);
    expect(checkField(spec('formAnswers.mobile'), '+1 (206) 555-0100', free)).toBeNull();
    expect(checkField(spec('formAnswers.site'), 'javascript:alert(1)', free)).toMatch(/https:\/\//);
    expect(checkField(spec('formAnswers.site'), 'https://example.com', free)).toBeNull();
    expect(checkField(spec('formAnswers.age'), 'twelve', free)).toBe('Enter a number.');
    expect(checkField(spec('formAnswers.age'), '12', free)).toBeNull();
    expect(checkField(spec('formAnswers.born'), '2024-13-45', free)).toBe('Enter a date.');
    expect(checkField(spec('formAnswers.born'), '2024-02-29', free)).toBeNull();
    expect(checkField(spec('formAnswers.contact'), 'x'.repeat(21), free)).toBe('Use at most 20 characters.');
    // Optional and empty: nothing to say.
    expect(checkField(spec('formAnswers.mobile'), '', free)).toBeNull();
    expect(checkField(spec('formAnswers.photos'), false, free)).toBeNull();
  });

  it('keeps the quantity a whole number from 1 to the most this tier can sell', () => {
    const paid = tier({ priceCents: 1000, capacity: 10, sold: 7 });
    const quantity = fieldsFor(paid, []).find((f) => f.key === 'quantity')!;
    expect(checkField(quantity, '3', paid)).toBeNull();
    expect(checkField(quantity, '4', paid)).toBe('Choose from 1 to 3 tickets.');
    expect(checkField(quantity, '0', paid)).toBe('Choose from 1 to 3 tickets.');
    expect(checkField(quantity, '1.5', paid)).toBe('Choose from 1 to 3 tickets.');
    const last = tier({ priceCents: 1000, capacity: 10, sold: 9 });
    expect(checkField(quantity, '2', last)).toBe('Only 1 ticket is left.');
  });
});

describe('the booking form: the request body', () => {
  it("maps answers to the API's types: trimmed text, numbers, booleans, lists; empty answers left out", () => {
    const answers = toFormAnswers(FORM, {
      [answerKey('contact')]: '  Sam Lee, +1 206 555 0100 ',
      [answerKey('mobile')]: '',
      [answerKey('age')]: ' 42 ',
      [answerKey('diet')]: 'vegan',
      [answerKey('extras')]: ['stove', 'tent'],
      [answerKey('waiver')]: true,
      [answerKey('notes')]: '   ',
    });
    expect(answers).toEqual({
      contact: 'Sam Lee, +1 206 555 0100',
      age: 42,
      diet: 'vegan',
      extras: ['stove', 'tent'],
      photos: false,
      waiver: true,
    });
  });

  it('builds the RSVP body, with formAnswers only when the tier has a form', () => {
    const free = tier();
    expect(rsvpRequest(free, [], { name: ' Ana ', email: ' ana@example.com ' })).toEqual({
      tierId: free.id,
      name: 'Ana',
      email: 'ana@example.com',
    });
    const form = [field({ id: 'diet', type: 'select', options: ['vegan'] })];
    expect(rsvpRequest(free, form, { name: 'Ana', email: 'ana@example.com', [answerKey('diet')]: 'vegan' })).toEqual({
      tierId: free.id,
      name: 'Ana',
      email: 'ana@example.com',
      formAnswers: { diet: 'vegan' },
    });
  });

  it('builds the checkout body with the quantity as a number and the return URLs', () => {
    const paid = tier({ priceCents: 2500 });
    const urls = {
      successUrl: 'https://shop.example/?svc_checkout=success',
      cancelUrl: 'https://shop.example/?svc_checkout=cancelled',
    };
    expect(checkoutRequest(paid, [], { name: 'Ana', quantity: ' 2 ' }, urls)).toEqual({
      tierId: paid.id,
      quantity: 2,
      name: 'Ana',
      ...urls,
    });
  });
});

describe('server errors mapped back onto the form', () => {
  const keys = ['name', 'email', 'quantity', 'formAnswers.diet', 'formAnswers.contact'];
  const err = (
    status: number,
    message: string,
    extras: ConstructorParameters<typeof ActionError>[4] = {},
    code?: string,
  ) => new ActionError(message, status, code, 'req_1', extras);

  it('puts a 400 next to the field named in extras.field, in words for the visitor', () => {
    expect(
      problemFrom(err(400, 'formAnswers.diet must be one of the options', { field: 'formAnswers.diet' }), keys),
    ).toEqual({ fields: { 'formAnswers.diet': 'Must be one of the options.' }, message: null, refreshTiers: false });
    expect(
      problemFrom(err(400, 'email: must be an e-mail address', { field: 'email' }, 'INVALID_EMAIL'), keys).fields,
    ).toEqual({ email: 'Enter an e-mail address like name@example.com.' });
    expect(problemFrom(err(400, 'name: must not be empty', { field: 'name' }), keys).fields).toEqual({
      name: 'Must not be empty.',
    });
  });

  it('marks every required field the server found missing (422 with extras.fields)', () => {
    const problem = problemFrom(
      err(422, 'Required form fields are missing.', { field: 'formAnswers.contact', fields: ['contact', 'diet'] }),
      keys,
    );
    expect(problem.fields).toEqual({
      'formAnswers.contact': 'This field is required.',
      'formAnswers.diet': 'This field is required.',
    });
    expect(problem.message).toBeNull();
  });

  it('says how many seats are left next to the quantity, or that the tier sold out, and asks for fresh tiers', () => {
    expect(problemFrom(err(422, 'Only 2 left.', { field: 'quantity', remaining: 2 }), keys)).toEqual({
      fields: { quantity: 'Only 2 tickets are left.' },
      message: null,
      refreshTiers: true,
    });
    expect(problemFrom(err(422, 'Sold out.', { field: 'quantity', remaining: 0 }), ['name', 'email'])).toEqual({
      fields: {},
      message: 'Sorry, this ticket has just sold out.',
      refreshTiers: true,
    });
  });

  it('falls back to a message for the whole form: a field not shown, rate limits, the network, server failures', () => {
    expect(
      problemFrom(err(400, 'formAnswers.ghost is not a field of this form', { field: 'formAnswers.ghost' }), keys),
    ).toEqual({ fields: {}, message: 'formAnswers.ghost is not a field of this form', refreshTiers: false });
    expect(problemFrom(err(422, 'This event is over.'), keys).message).toBe('This event is over.');
    expect(problemFrom(err(400, 'This tier is not on sale.', { field: 'tierId' }), keys)).toEqual({
      fields: {},
      message: 'This tier is not on sale.',
      refreshTiers: true,
    });
    expect(problemFrom(err(429, 'Too many requests'), keys).message).toMatch(/wait a minute/);
    expect(problemFrom(err(0, 'Network error'), keys).message).toMatch(/couldn't reach the server/);
    expect(problemFrom(err(403, 'Not an embed origin', {}, 'ORIGIN_NOT_ALLOWED'), keys).message).toBe(
      "This site isn't set up for this yet, so nothing was sent.",
    );
    expect(problemFrom(err(503, 'Payments are unavailable'), keys).message).toBe(
      'Something went wrong on our side. Please try again.',
    );
  });
});

describe('the checkout round trip', () => {
  it('returns to this page with the session id left for the processor to fill in', () => {
    expect(returnUrls('https://shop.example/events/summit', 'big-summit-day')).toEqual({
      successUrl:
        'https://shop.example/events/summit?svc_checkout=success&session={CHECKOUT_SESSION_ID}&svc_event=big-summit-day',
      cancelUrl: 'https://shop.example/events/summit?svc_checkout=cancelled&svc_event=big-summit-day',
    });
  });

  it("keeps the page's own query and fragment, and drops our parameters from an earlier trip", () => {
    const { successUrl, cancelUrl } = returnUrls(
      'https://shop.example/p?lang=en&svc_checkout=cancelled&svc_event=x#tickets',
      'walk',
    );
    expect(successUrl).toBe(
      'https://shop.example/p?lang=en&svc_checkout=success&session={CHECKOUT_SESSION_ID}&svc_event=walk#tickets',
    );
    expect(cancelUrl).toBe('https://shop.example/p?lang=en&svc_checkout=cancelled&svc_event=walk#tickets');
  });

  it("recognises a return for this widget's event only", () => {
    expect(checkoutReturn('https://shop.example/?svc_checkout=success&session=cs_1&svc_event=walk', 'walk')).toEqual({
      kind: 'success',
      sessionId: 'cs_1',
    });
    expect(checkoutReturn('https://shop.example/?svc_checkout=cancelled&svc_event=walk', 'walk')).toEqual({
      kind: 'cancelled',
    });
    expect(
      checkoutReturn('https://shop.example/?svc_checkout=success&session=cs_1&svc_event=other', 'walk'),
    ).toBeNull();
    expect(checkoutReturn('https://shop.example/?svc_checkout=success&session=cs_1', 'walk')).toEqual({
      kind: 'success',
      sessionId: 'cs_1',
    });
    expect(checkoutReturn('https://shop.example/?svc_checkout=maybe', 'walk')).toBeNull();
    expect(checkoutReturn('https://shop.example/', 'walk')).toBeNull();
  });

  it("once read, takes out exactly the return's parameters: the page's own query (as written) and fragment stay", () => {
    const spec = { state: 'svc_checkout', owner: ['svc_event', 'walk'] } as const;
    expect(
      withoutReturn(
        'https://shop.example/p?lang=en&svc_checkout=success&session=cs_1&q=a%20b+c&svc_event=walk&svc_sku=x#tickets',
        spec,
        { kind: 'success', sessionId: 'cs_1' },
      ),
    ).toBe('https://shop.example/p?lang=en&q=a%20b+c&svc_sku=x#tickets');
    // A cancelled return carries no session: a `session` of the page's own is not ours to take.
    expect(
      withoutReturn('https://shop.example/p?svc_checkout=cancelled&svc_event=walk&session=mine', spec, {
        kind: 'cancelled',
      }),
    ).toBe('https://shop.example/p?session=mine');
    expect(
      withoutReturn('https://shop.example/p?svc_checkout=success&session=cs_1&svc_event=walk', spec, {
        kind: 'success',
        sessionId: 'cs_1',
      }),
    ).toBe('https://shop.example/p');
  });
});

describe('widget actions on the wire', () => {
  const foreign: EmbedConfig = {
    community: 'demo',
    key: 'pk_live_abc',
    api: 'https://platform.example',
    hosted: false,
    site: null,
  };
  const hosted: EmbedConfig = { ...foreign, hosted: true };

  function recorder(status: number, body: unknown) {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;
    return { calls, fetchImpl };
  }

  it("goes to the platform with the publishable key and no cookies from a customer's site", async () => {
    const { calls, fetchImpl } = recorder(200, { ok: true, rsvpId: 'r1' });
    const path = actionPath('demo', 'big summit', 'rsvp');
    expect(path).toBe('/api/actions/demo/events/big%20summit/rsvp');
    expect(await postAction(foreign, path, { a: 1 }, fetchImpl)).toEqual({ ok: true, rsvpId: 'r1' });
    expect(calls[0].url).toBe('https://platform.example/api/actions/demo/events/big%20summit/rsvp');
    expect(calls[0].init).toMatchObject({ method: 'POST', credentials: 'omit', body: '{"a":1}' });
    expect(calls[0].init.headers).toMatchObject({ 'X-API-Key': 'pk_live_abc', 'Content-Type': 'application/json' });
  });

  it('stays same-origin and keyless on the hosted site, so the sign-in cookie is what identifies', async () => {
    const { calls, fetchImpl } = recorder(200, {});
    await postAction(hosted, actionPath('demo', 'walk', 'checkout'), {}, fetchImpl);
    expect(calls[0].url).toBe('/api/actions/demo/events/walk/checkout');
    expect(calls[0].init.credentials).toBe('same-origin');
    expect(calls[0].init.headers).not.toHaveProperty('X-API-Key');
  });

  it('tells the install doctor when the page is not an embed origin, and only then', async () => {
    const problems: unknown[] = [];
    const config = { ...foreign, diagnose: (p: unknown) => problems.push(p) };
    const refused = recorder(403, { error: 'Not listed', code: 'ORIGIN_NOT_ALLOWED' });
    await postAction(config, '/x', {}, refused.fetchImpl).catch(() => {});
    const other = recorder(422, { error: 'Full', code: 'UNPROCESSABLE' });
    await postAction(config, '/x', {}, other.fetchImpl).catch(() => {});
    expect(problems).toEqual([{ kind: 'origin-not-allowed' }]);
  });

  it('turns the error envelope into an ActionError with its extras; a dead network is status 0', async () => {
    const { fetchImpl } = recorder(422, {
      error: 'Only 2 left.',
      code: 'UNPROCESSABLE',
      requestId: 'req_9',
      extras: { field: 'quantity', remaining: 2 },
    });
    const error = await postAction(foreign, '/x', {}, fetchImpl).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionError);
    expect(error).toMatchObject({
      status: 422,
      code: 'UNPROCESSABLE',
      requestId: 'req_9',
      message: 'Only 2 left.',
      extras: { field: 'quantity', remaining: 2 },
    });
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    expect(await postAction(foreign, '/x', {}, offline).catch((e: unknown) => e)).toMatchObject({
      status: 0,
      extras: {},
    });
  });
});
