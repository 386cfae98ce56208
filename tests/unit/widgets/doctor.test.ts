// The install doctor's words (widgets/lib/doctor/): each problem names what is wrong and the fix.
import { describe, expect, it } from 'vitest';
import { expected, explain } from '../../../widgets/lib/doctor/index.ts';

const seen = { community: 'acme', api: 'https://svc.example', page: 'https://shop.example' };

describe('install doctor', () => {
  it('says which values an attribute takes, from the pattern the widget declares', () => {
    expect(expected('theme', '^(light|dark|auto)$')).toBe('"light", "dark" or "auto"');
    expect(expected('mode', '^(inline|button)$')).toBe('"inline" or "button"');
    expect(expected('landmarks', '^(own)$')).toBe('"own"');
    expect(expected('limit', '^([1-9]\\d?|100)$')).toBe('a whole number from 1 to 100');
    // An attribute with no words of its own falls back to the pattern, never to Object.prototype.
    expect(expected('toString', '^\\d+$')).toBe('a value matching /^\\d+$/');
  });

  it('names the attribute, the value and what to use instead', () => {
    const text = explain(
      { kind: 'attribute', tag: 'svc-events', name: 'limit', value: 'abc', pattern: '^([1-9]\\d?|100)$' },
      seen,
    );
    expect(text).toMatch(
      /^<svc-events limit="abc">: "abc" is not a value of limit; use a whole number from 1 to 100\./,
    );
  });

  it('tells the page that is not an embed origin which origin to add, and where', () => {
    const text = explain({ kind: 'origin-not-allowed' }, seen);
    expect(text).toContain('https://shop.example is not one of community "acme"\'s embed origins');
    expect(text).toContain('/admin/settings');
    expect(text).toContain('svc community update acme');
  });

  it('gives the fix for a missing key, an unknown community, a CSP, and tags that are not ours', () => {
    expect(explain({ kind: 'no-key' }, seen)).toContain('GET https://svc.example/v1/communities/acme/publishable-key');
    expect(explain({ kind: 'unknown-community' }, seen)).toContain('https://svc.example has no community "acme"');
    expect(
      explain({ kind: 'csp', directive: 'connect-src', blocked: 'https://svc.example/api/communities/acme' }, seen),
    ).toContain('Allow https://svc.example in the page');
    expect(explain({ kind: 'foreign-tag', tag: 'svc-events' }, seen)).toContain('already defined by another script');
    expect(explain({ kind: 'other-community', tag: 'svc-events', other: 'bolt' }, seen)).toContain(
      'for "bolt" and "acme"',
    );
  });
});
