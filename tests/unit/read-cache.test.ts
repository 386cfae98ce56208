import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadCache } from '../../server/http/read-cache.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('read cache', () => {
  it('serves an entry until its TTL passes', () => {
    vi.useFakeTimers();
    const c = new ReadCache(1000);
    c.set('community-a', 'k', { status: 200, body: '[1]' });
    vi.advanceTimersByTime(999);
    expect(c.get('community-a', 'k')?.body).toBe('[1]');
    vi.advanceTimersByTime(2);
    expect(c.get('community-a', 'k')).toBeUndefined();
  });

  it('forgets every entry of a community on invalidate, and only that community', () => {
    const c = new ReadCache(60_000);
    c.set('a', 'k1', { status: 200, body: '1' });
    c.set('a', 'k2', { status: 200, body: '2' });
    c.set('b', 'k1', { status: 200, body: '3' });
    c.invalidate('a');
    expect(c.get('a', 'k1')).toBeUndefined();
    expect(c.get('a', 'k2')).toBeUndefined();
    expect(c.get('b', 'k1')?.body).toBe('3');
    c.set('a', 'k1', { status: 200, body: 'fresh' });
    expect(c.get('a', 'k1')?.body).toBe('fresh');
  });

  it('keeps the same key apart across communities', () => {
    const c = new ReadCache(60_000);
    c.set('a', 'listEvents{}', { status: 200, body: 'A' });
    expect(c.get('b', 'listEvents{}')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const c = new ReadCache(60_000, 2);
    c.set('a', '1', { status: 200, body: '1' });
    c.set('a', '2', { status: 200, body: '2' });
    c.set('a', '3', { status: 200, body: '3' });
    expect(c.get('a', '1')).toBeUndefined();
    expect(c.get('a', '3')?.body).toBe('3');
  });

  it('does not store an answer read before an invalidation that landed while it was computed', () => {
    const c = new ReadCache(60_000);
    const before = c.generation('a');
    c.invalidate('a');
    c.set('a', 'k', { status: 200, body: 'stale' }, before);
    expect(c.get('a', 'k')).toBeUndefined();
    c.set('a', 'k', { status: 200, body: 'fresh' }, c.generation('a'));
    expect(c.get('a', 'k')?.body).toBe('fresh');
  });

  it('stores nothing when the TTL is 0', () => {
    const c = new ReadCache(0);
    c.set('a', 'k', { status: 200, body: '1' });
    expect(c.get('a', 'k')).toBeUndefined();
  });
});
