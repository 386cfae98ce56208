import { describe, expect, it } from 'vitest';
import { audienceOf, filterNav, pageKeyOfHref, type NavItem } from '../../server/domain/nav.ts';
import type { Viewer } from '../../server/domain/page-access.ts';

const anonymous: Viewer = { userId: null };
const nonMember: Viewer = { userId: 'u', membership: null };
const pending: Viewer = { userId: 'u', membership: 'PENDING' };
const rejected: Viewer = { userId: 'u', membership: 'REJECTED' };
const banned: Viewer = { userId: 'u', membership: 'BANNED' };
const accepted: Viewer = { userId: 'u', membership: 'ACCEPTED' };
const viewers = { anonymous, nonMember, pending, rejected, banned, accepted };

const labels = (items: NavItem[]): unknown[] =>
  items.map((i) => (Array.isArray(i.children) ? [i.label, labels(i.children as NavItem[])] : i.label));

const NAV: NavItem[] = [
  { href: '/events', label: 'Events' },
  { href: '/blog', label: 'Journal', visibleWhen: 'always' },
  { href: '/feed', label: 'Feed', visibleWhen: 'authenticated' },
  { href: '/members', label: 'Members', visibleWhen: 'approvedMember' },
];

// viewer -> the labels they see
const TABLE: Record<keyof typeof viewers, string[]> = {
  anonymous: ['Events', 'Journal'],
  nonMember: ['Events', 'Journal', 'Feed'],
  pending: ['Events', 'Journal', 'Feed'],
  rejected: ['Events', 'Journal', 'Feed'],
  banned: ['Events', 'Journal', 'Feed'],
  accepted: ['Events', 'Journal', 'Feed', 'Members'],
};

describe('filterNav: visibleWhen x viewer', () => {
  for (const [name, expected] of Object.entries(TABLE)) {
    it(`${name} sees ${expected.join(', ')}`, () => {
      expect(labels(filterNav(NAV, viewers[name as keyof typeof viewers]))).toEqual(expected);
    });
  }

  it('treats a missing or null visibleWhen as always, and anything unknown as approvedMember (fail closed)', () => {
    expect(audienceOf({})).toBe('always');
    expect(audienceOf({ visibleWhen: null })).toBe('always');
    expect(audienceOf({ visibleWhen: 'members' })).toBe('approvedMember');
    expect(audienceOf({ visibleWhen: true })).toBe('approvedMember');
    const nav = [{ href: '/x', label: 'Typo', visibleWhen: 'member' }];
    expect(filterNav(nav, nonMember)).toEqual([]);
    expect(labels(filterNav(nav, accepted))).toEqual(['Typo']);
  });
});

describe('filterNav: dropdowns', () => {
  const nav: NavItem[] = [
    {
      label: 'Club',
      children: [
        { href: '/blog/about', label: 'About' },
        { href: '/members', label: 'Directory', visibleWhen: 'approvedMember' },
        { href: 'https://example.org', label: 'Partner', external: true, visibleWhen: 'authenticated' },
      ],
    },
    { label: 'Members area', visibleWhen: 'authenticated', children: [{ href: '/members', label: 'Directory' }] },
    { label: 'Inner circle', children: [{ href: '/feed', label: 'Feed', visibleWhen: 'approvedMember' }] },
    { href: '/shop', label: 'Shop', children: [{ href: '/shop/vip', label: 'VIP', visibleWhen: 'approvedMember' }] },
  ];

  it('filters children by the same rules, and hides the children of a hidden parent', () => {
    expect(labels(filterNav(nav, anonymous))).toEqual([['Club', ['About']], 'Shop']);
    expect(labels(filterNav(nav, pending))).toEqual([
      ['Club', ['About', 'Partner']],
      ['Members area', ['Directory']],
      'Shop',
    ]);
    expect(labels(filterNav(nav, accepted))).toEqual([
      ['Club', ['About', 'Directory', 'Partner']],
      ['Members area', ['Directory']],
      ['Inner circle', ['Feed']],
      ['Shop', ['VIP']],
    ]);
  });

  it('drops a dropdown left without children and without a link of its own; keeps a linked one as a plain item', () => {
    const shop = filterNav(nav, anonymous).find((i) => i.label === 'Shop')!;
    expect(shop).toEqual({ href: '/shop', label: 'Shop' });
    expect(filterNav(nav, anonymous).some((i) => i.label === 'Inner circle')).toBe(false);
  });

  it('never mutates the stored configuration', () => {
    const copy = structuredClone(nav);
    filterNav(nav, anonymous);
    expect(nav).toEqual(copy);
  });
});

describe('filterNav: malformed input and disabled pages', () => {
  it('answers an empty nav for anything but an array, and skips items that are not objects', () => {
    expect(filterNav(undefined, accepted)).toEqual([]);
    expect(filterNav({ href: '/x' }, accepted)).toEqual([]);
    expect(labels(filterNav([null, 'x', 3, [], { href: '/ok', label: 'Ok' }], accepted))).toEqual(['Ok']);
  });

  it('hides items that open a disabled built-in page, for members too', () => {
    const access = { visibility: 'PUBLIC', pageSettings: [{ pageKey: 'BLOG', enabled: false, visibility: null }] };
    const nav = [
      { href: '/blog', label: 'Journal' },
      { href: '/blog/some-post', label: 'A post' },
      { href: '/events', label: 'Events' },
      { href: 'https://elsewhere.example/blog', label: 'Elsewhere' },
      { href: '/blog', label: 'External blog', external: true },
      { href: '/blog', label: 'More', children: [{ href: '/about', label: 'About' }] },
    ];
    const seen = filterNav(nav, accepted, access);
    expect(labels(seen)).toEqual(['Events', 'Elsewhere', 'External blog', ['More', ['About']]]);
    expect(seen.at(-1)).not.toHaveProperty('href');
  });

  it('hides every built-in page item when the page settings cannot be read (fail closed)', () => {
    const nav = [
      { href: '/events', label: 'Events' },
      { href: '/about', label: 'About' },
    ];
    expect(labels(filterNav(nav, accepted, { visibility: 'PUBLIC', pageSettings: 'garbage' }))).toEqual(['About']);
  });
});

describe('pageKeyOfHref', () => {
  it('maps site-relative routes to their page key', () => {
    expect(pageKeyOfHref('/')).toBe('HOME');
    expect(pageKeyOfHref('/events')).toBe('EVENTS');
    expect(pageKeyOfHref('/Events/ridge-walk/manage/x')).toBe('EVENTS');
    expect(pageKeyOfHref('/marketplace?sku=1')).toBe('MARKETPLACE');
    expect(pageKeyOfHref('/conversations/42')).toBe('CHAT');
    expect(pageKeyOfHref('/blog#top')).toBe('BLOG');
  });

  it('knows nothing about other paths, absolute or protocol-relative URLs', () => {
    for (const href of [
      '/about',
      '/eventsx',
      'https://x.example/events',
      '//x.example/events',
      'events',
      42,
      undefined,
      '/constructor',
    ]) {
      expect(pageKeyOfHref(href), String(href)).toBeNull();
    }
  });
});
