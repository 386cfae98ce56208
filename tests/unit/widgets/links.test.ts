import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fillTemplate } from '../../../widgets/lib/link-template.ts';
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

describe('link templates (event-href, member-href, site-href)', () => {
  let errors: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    // The customer's page: relative templates resolve against it.
    vi.stubGlobal('location', new URL('https://shop.example/blog/post?x=1'));
    errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('URL-encodes each placeholder and resolves a relative template against the page', () => {
    const values = { slug: 'a b/c?d#é', id: '42' };
    expect(fillTemplate('event-href', '/events/{slug}?id={id}', values)).toBe(
      'https://shop.example/events/a%20b%2Fc%3Fd%23%C3%A9?id=42',
    );
    expect(fillTemplate('event-href', 'e/{slug}', { slug: 'walk' })).toBe('https://shop.example/blog/e/walk');
    expect(fillTemplate('event-href', 'https://other.example/{id}/{id}', values)).toBe('https://other.example/42/42');
    expect(errors).not.toHaveBeenCalled();
  });

  it('keeps the slashes of {path}, the already-escaped path of a site link', () => {
    expect(fillTemplate('site-href', '/community{path}', { path: '/events/ridge%20walk?x=1#top' })).toBe(
      'https://shop.example/community/events/ridge%20walk?x=1#top',
    );
  });

  it('without a template there is nothing to fill and nothing to say', () => {
    expect(fillTemplate('event-href', null, { slug: 'walk' })).toBeNull();
    expect(fillTemplate('event-href', '', { slug: 'walk' })).toBeNull();
    expect(errors).not.toHaveBeenCalled();
  });

  it('an unknown placeholder, or no web address, is null (the default link) and one console error per template', () => {
    expect(fillTemplate('event-href', '/e/{name}', { slug: 'walk', id: '1' })).toBeNull();
    expect(fillTemplate('event-href', '/e/{name}', { slug: 'ride', id: '2' })).toBeNull();
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0][0])).toBe(
      `[svc] event-href="/e/{name}": unknown placeholder {name} (use {slug},{id}); linking to the community's site instead`,
    );
    // A name every object inherits is no placeholder: only the widget's own are.
    expect(fillTemplate('member-href', '/m/{toString}', { usertag: 'ana' })).toBeNull();
    expect(fillTemplate('event-href', 'javascript:alert("{slug}")', { slug: 'walk' })).toBeNull();
    expect(errors).toHaveBeenCalledTimes(3);
    expect(String(errors.mock.calls[2][0])).toContain('not a web address (use {slug})');
  });

  it('resolveHref sends site-relative config links through site-href; absolute and unsafe ones are as before', () => {
    const site = 'https://hikers.example';
    expect(resolveHref('/events?x=1#top', site, '/community{path}')).toBe(
      'https://shop.example/community/events?x=1#top',
    );
    expect(resolveHref('about', site, 'https://club.example{path}')).toBe('https://club.example/about');
    expect(resolveHref('https://x.example/a', site, '/community{path}')).toBe('https://x.example/a');
    expect(resolveHref('//x.example/a', site, '/community{path}')).toBe('https://x.example/a');
    expect(resolveHref('javascript:alert(1)', site, '/community{path}')).toBeNull();
    // A site path that the URL parser turns into `//host/...` stays a path on the page's own site.
    expect(resolveHref('/.//evil.example/x', site, '{path}')).toBe('https://shop.example/evil.example/x');
    expect(resolveHref('/events', site, '/{path}')).toBe('https://shop.example/events');
    // A broken template: the community's site, as without one.
    expect(resolveHref('/events', site, '/c/{nope}')).toBe('https://hikers.example/events');
    expect(errors).toHaveBeenCalledTimes(1);
  });
});
