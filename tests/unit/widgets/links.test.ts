import { describe, expect, it } from 'vitest';
import { isCurrent, resolveHref } from '../../../widgets/lib/links.ts';

describe('resolveHref (links from community configuration)', () => {
  it('resolves site-relative paths against the community site', () => {
    expect(resolveHref('/events', 'https://hikers.example')).toBe('https://hikers.example/events');
    expect(resolveHref('/events?x=1#top', 'http://demo.localhost:3000')).toBe(
      'http://demo.localhost:3000/events?x=1#top',
    );
  });

  it('keeps web, mail and phone links, and refuses every other scheme', () => {
    expect(resolveHref('https://x.example/a', 'https://s.example')).toBe('https://x.example/a');
    expect(resolveHref('mailto:a@b.example', 'https://s.example')).toBe('mailto:a@b.example');
    expect(resolveHref('tel:+15550100', 'https://s.example')).toBe('tel:+15550100');
    for (const bad of [
      'javascript:alert(1)',
      '\tjavascript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
      'file:///etc/passwd',
      '',
      '   ',
      42,
      null,
    ]) {
      expect(resolveHref(bad, 'https://s.example'), String(bad)).toBeNull();
    }
  });
});

describe('isCurrent', () => {
  it('matches the page itself and pages under it, never across origins', () => {
    expect(isCurrent('https://s.example/events', 'https://s.example/events')).toBe(true);
    expect(isCurrent('https://s.example/events', 'https://s.example/events/ridge-walk')).toBe(true);
    expect(isCurrent('https://s.example/events', 'https://s.example/eventsx')).toBe(false);
    expect(isCurrent('https://s.example/', 'https://s.example/events')).toBe(false);
    expect(isCurrent('https://s.example/', 'https://s.example/')).toBe(true);
    expect(isCurrent('https://s.example/events', 'https://other.example/events')).toBe(false);
    expect(isCurrent('mailto:a@b.example', 'https://s.example/')).toBe(false);
  });
});
