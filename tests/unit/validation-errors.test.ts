import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Email, IsoDateTime, Slug, AmountCents } from '../../contract/common.ts';
import { parseOrThrow } from '../../server/http/validate.ts';
import { ApiError } from '../../server/http/api-error.ts';

function errorOf(fn: () => unknown): ApiError {
  try { fn(); } catch (e) { return e as ApiError; }
  throw new Error('expected a throw');
}

describe('validation errors', () => {
  const Body = z.object({ email: Email, when: IsoDateTime, slug: Slug, amount: AmountCents, name: z.string() }).strict();
  const ok = { email: 'a@b.co', when: '2026-01-01T10:00:00Z', slug: 'a-b', amount: 100, name: 'x' };

  it.each([
    ['email', 'nope', 'INVALID_EMAIL'],
    ['when', '01/02/2026', 'INVALID_DATE'],
    ['slug', 'Not A Slug', 'INVALID_SLUG'],
    ['amount', 1.5, 'INVALID_AMOUNT'],
    ['amount', -1, 'INVALID_AMOUNT'],
    ['name', 5, 'INVALID_INPUT'],
  ])('names %s and gives the stable code for %j', (field, value, code) => {
    const e = errorOf(() => parseOrThrow(Body, { ...ok, [field]: value }, 'body'));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    expect(e.code).toBe(code);
    expect(e.extras?.field).toBe(field);
    expect(e.message).not.toMatch(/^\[/);
  });

  it('says a missing field is required', () => {
    const { name: _name, ...rest } = ok;
    const e = errorOf(() => parseOrThrow(Body, rest, 'body'));
    expect(e.message).toBe('name is required');
    expect(e.extras?.field).toBe('name');
  });

  it('rejects unknown fields by name', () => {
    const e = errorOf(() => parseOrThrow(Body, { ...ok, admin: true }, 'body'));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.extras?.field).toBe('admin');
  });

  it('names nested fields with a dotted path', () => {
    const e = errorOf(() => parseOrThrow(z.object({ customer: z.object({ email: Email }) }), { customer: { email: 'x' } }, 'body'));
    expect(e.extras?.field).toBe('customer.email');
    expect(e.code).toBe('INVALID_EMAIL');
  });
});
