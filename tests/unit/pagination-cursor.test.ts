import { describe, expect, it } from 'vitest';
import { cursorScope, decodeCursor, encodeCursor, InvalidCursorError } from '../../server/domain/events.ts';
import { fingerprint } from '../../server/http/idempotency.ts';

describe('event cursors', () => {
  it('round-trips a position and its ordering', () => {
    const c = encodeCursor({ d: '2026-01-01T00:00:00.000Z', i: 'abc', q: 'asc' });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, 'asc')).toEqual({ d: '2026-01-01T00:00:00.000Z', i: 'abc', q: 'asc' });
  });

  it('refuses a cursor of the other ordering, garbage and tampered shapes', () => {
    const c = encodeCursor({ d: 'x', i: 'y', q: 'desc' });
    expect(() => decodeCursor(c, 'asc')).toThrow(InvalidCursorError);
    expect(() => decodeCursor('%%%', 'asc')).toThrow(InvalidCursorError);
    expect(() => decodeCursor(Buffer.from('{"d":1}').toString('base64url'), 'asc')).toThrow(InvalidCursorError);
  });

  it('belong to their filters: a cursor of a featured or upcoming list fails on another list', () => {
    const scopes = [
      cursorScope({}),
      cursorScope({ featured: true }),
      cursorScope({ upcoming: true }),
      cursorScope({ past: true }),
    ];
    expect(new Set(scopes).size).toBe(4);
    const c = encodeCursor({ d: 'x', i: 'y', q: cursorScope({ upcoming: true }) });
    expect(() => decodeCursor(c, cursorScope({}))).toThrow(InvalidCursorError);
    expect(decodeCursor(c, cursorScope({ upcoming: true })).i).toBe('y');
  });
});

describe('idempotency fingerprints', () => {
  it('ignore key order in the body', () => {
    expect(fingerprint('post', '/a', { x: 1, y: { b: 2, a: [1, { d: 1, c: 2 }] } })).toBe(
      fingerprint('post', '/a', { y: { a: [1, { c: 2, d: 1 }], b: 2 }, x: 1 }),
    );
  });

  it('differ by method, path, values and array order', () => {
    const base = fingerprint('post', '/a', { x: [1, 2] });
    expect(fingerprint('patch', '/a', { x: [1, 2] })).not.toBe(base);
    expect(fingerprint('post', '/b', { x: [1, 2] })).not.toBe(base);
    expect(fingerprint('post', '/a', { x: [2, 1] })).not.toBe(base);
    expect(fingerprint('post', '/a', { x: [1, '2'] })).not.toBe(base);
  });
});
