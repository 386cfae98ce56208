// Which paths the chrome proxy answers and where it fetches them (server/site/proxy/routes.ts):
// the spec's route table, the landing URL's base path, and the order "disabled first".
import { describe, expect, it } from 'vitest';
import type { CommunityRow } from '../../server/db/schema.ts';
import {
  communityPathOf,
  landingBase,
  pageKeyOfPath,
  proxyTargetFor,
  upstreamUrlOf,
} from '../../server/site/proxy/routes.ts';

function community(settings: { storefront?: unknown; pages?: unknown; landing?: string | null }): CommunityRow {
  return {
    storefront_config: JSON.stringify(settings.storefront ?? {}),
    page_settings: JSON.stringify(settings.pages ?? []),
    landing_url: settings.landing === undefined ? 'https://cust.test/site' : settings.landing,
  } as unknown as CommunityRow;
}

const ON = { chromeProxy: { enabled: true, headless: false }, externalPages: ['BLOG'] };

describe('the route table', () => {
  it('gives each page key its route and everything under it, and HOME the root alone', () => {
    expect(pageKeyOfPath('/')).toBe('HOME');
    expect(pageKeyOfPath('/blog')).toBe('BLOG');
    expect(pageKeyOfPath('/blog/a/b')).toBe('BLOG');
    expect(pageKeyOfPath('/events')).toBe('EVENTS');
    expect(pageKeyOfPath('/events.ics')).toBe('EVENTS');
    expect(pageKeyOfPath('/events/x/manage/attendees.csv')).toBe('EVENTS');
    expect(pageKeyOfPath('/conversations/1')).toBe('CHAT');
    expect(pageKeyOfPath('/atlas')).toBe('ATLAS');
  });

  it('claims nothing that only starts like a route', () => {
    for (const path of ['/blogroll', '/apply', '/sign-in', '/robots.txt', '/eventsx', '/about'])
      expect(pageKeyOfPath(path)).toBeNull();
  });
});

describe('the landing URL', () => {
  it('keeps an origin and a base path, without a trailing slash, query or fragment', () => {
    expect(landingBase('https://cust.test/site/?x=1#y')?.href).toBe('https://cust.test/site');
    expect(landingBase('https://cust.test')?.href).toBe('https://cust.test/');
  });

  it('is no landing URL at all when it is not plain http(s)', () => {
    for (const bad of ['ftp://cust.test', 'https://user:pw@cust.test', 'not a url', '', null])
      expect(landingBase(bad)).toBeNull();
  });

  it('maps a community path to the upstream and back, at a path boundary', () => {
    const landing = landingBase('https://cust.test/site')!;
    expect(upstreamUrlOf(landing, '/blog/a?x=1').href).toBe('https://cust.test/site/blog/a?x=1');
    expect(upstreamUrlOf(landingBase('https://cust.test')!, '/blog').href).toBe('https://cust.test/blog');
    expect(communityPathOf(landing, new URL('https://cust.test/site/blog/a'))).toBe('/blog/a');
    expect(communityPathOf(landing, new URL('https://cust.test/site'))).toBe('/');
    expect(communityPathOf(landing, new URL('https://cust.test/sitemap.xml'))).toBeNull();
    expect(communityPathOf(landing, new URL('https://other.test/site/blog'))).toBeNull();
  });
});

describe('what the proxy answers', () => {
  it('an external page and its sub-routes, fetched under the landing base path', () => {
    const target = proxyTargetFor(community({ storefront: ON }), '/blog/hello?ref=1');
    expect(target).toMatchObject({ mode: 'external', pageKey: 'BLOG', headless: false });
    expect(target?.upstreamUrl.href).toBe('https://cust.test/site/blog/hello?ref=1');
  });

  it('a disabled page, yielded, before externalPages is read', () => {
    const c = community({ storefront: ON, pages: [{ pageKey: 'BLOG', enabled: false, visibility: null }] });
    expect(proxyTargetFor(c, '/blog')?.mode).toBe('yielded');
    const shop = community({ storefront: ON, pages: [{ pageKey: 'MARKETPLACE', enabled: false, visibility: null }] });
    expect(proxyTargetFor(shop, '/marketplace/x')?.mode).toBe('yielded');
  });

  it('nothing when the proxy is off, has no landing URL, or the page is built in', () => {
    expect(proxyTargetFor(community({ storefront: { ...ON, chromeProxy: { enabled: false } } }), '/blog')).toBeNull();
    expect(proxyTargetFor(community({ storefront: ON, landing: null }), '/blog')).toBeNull();
    expect(proxyTargetFor(community({ storefront: ON }), '/events')).toBeNull();
    expect(proxyTargetFor(community({ storefront: ON }), '/apply')).toBeNull();
  });

  it('nothing for a path with dot segments, which would leave the route upstream', () => {
    for (const path of ['/blog/../admin', '/blog/./x', '/blog/%2e%2e/admin'])
      expect(proxyTargetFor(community({ storefront: ON }), path)).toBeNull();
  });

  it('nothing on unreadable settings: the built-in pages, whose gate closes them', () => {
    const broken = {
      storefront_config: '{',
      page_settings: '[]',
      landing_url: 'https://cust.test',
    } as unknown as CommunityRow;
    expect(proxyTargetFor(broken, '/blog')).toBeNull();
    const pagesBroken = community({ storefront: ON, pages: 'nope' });
    expect(proxyTargetFor(pagesBroken, '/blog')?.mode).toBe('external');
  });
});
