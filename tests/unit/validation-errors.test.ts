import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AmountCents, Email, IsoDateTime, Line, refusedText, Slug } from '../../contract/common.ts';
import { parseOrThrow } from '../../server/http/validate.ts';
import { ApiError } from '../../server/http/api-error.ts';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected a throw');
}

describe('validation errors', () => {
  const Body = z
    .object({ email: Email, when: IsoDateTime, slug: Slug, amount: AmountCents, name: z.string() })
    .strict();
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
    const e = errorOf(() =>
      parseOrThrow(z.object({ customer: z.object({ email: Email }) }), { customer: { email: 'x' } }, 'body'),
    );
    expect(e.extras?.field).toBe('customer.email');
    expect(e.code).toBe('INVALID_EMAIL');
  });
});

describe('text every request may carry', () => {
  it.each([
    ['plain', 'Ana Lima', null, null],
    ['astral characters (surrogate pairs)', 'Summit 🏔️ 𝄞', null, null],
    ['tab and line breaks', 'one\n\ttwo\r\n', 'control character', null],
    ['NUL', 'a\u0000b', 'control character', 'control character'],
    ['a bell', '\u0007', 'control character', 'control character'],
    ['DEL', '\u007f', 'control character', 'control character'],
    ['a lone high surrogate', 'x\ud83d', 'unpaired surrogate', 'unpaired surrogate'],
    ['a lone low surrogate', '\udc00x', 'unpaired surrogate', 'unpaired surrogate'],
    ['surrogates in the wrong order', '\udc00\ud800', 'unpaired surrogate', 'unpaired surrogate'],
  ])('judges %s: as one line %s, as text %s', (_what, text, asLine, asText) => {
    expect(refusedText(text, 'line')).toBe(asLine);
    expect(refusedText(text, 'text')).toBe(asText);
  });

  it('refuses before the schema runs, naming the field by its path, and a key by its object', () => {
    const Body = z.object({
      items: z.array(z.object({ note: z.string() })),
      answers: z.record(z.string(), z.string()),
    });
    const nested = errorOf(() =>
      parseOrThrow(Body, { items: [{ note: 'ok' }, { note: 'a\u0000' }], answers: {} }, 'body'),
    );
    expect(nested.extras?.field).toBe('items.1.note');
    const key = errorOf(() => parseOrThrow(Body, { items: [], answers: { 'k\u0001': 'v' } }, 'body'));
    expect(key.extras?.field).toBe('answers');
    // Query and path values are one line; bodies keep line breaks unless their schema says `Line`.
    expect(errorOf(() => parseOrThrow(z.object({ q: z.string() }), { q: 'a\nb' }, 'query')).extras?.field).toBe('q');
    expect(parseOrThrow(z.object({ q: z.string() }), { q: 'a\nb' }, 'body')).toEqual({ q: 'a\nb' });
    expect(errorOf(() => parseOrThrow(z.object({ q: Line(10) }), { q: 'a\nb' }, 'body')).extras?.field).toBe('q');
  });
});
