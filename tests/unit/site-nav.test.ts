// siteNav (server/site/pages/nav.ts): the hosted site's nav for one viewer, from the built-in pages
// or from storefrontConfig.nav.
import { describe, expect, it } from 'vitest';
import type { CommunityRow } from '../../server/db/schema.ts';
import type { Viewer } from '../../server/domain/page-access.ts';
import { siteNav } from '../../server/site/pages/nav.ts';

const ANON: Viewer = { userId: null };
const PENDING: Viewer = { userId: 'u1', membership: 'PENDING' };
const MEMBER: Viewer = { userId: 'u2', membership: 'ACCEPTED' };
const OUTSIDER: Viewer = { userId: 'u3', membership: null };

function community(over: {
  pageSettings?: object[];
  features?: string[];
  nav?: unknown[];
  visibility?: 'PUBLIC' | 'MEMBERS_ONLY';
}) {
  return {
    id: 'c1',
    tag: 'club',
    name: 'The Club',
    visibility: over.visibility ?? 'PUBLIC',
    accessibility: 'OPEN',
    page_settings: JSON.stringify(over.pageSettings ?? []),
    storefront_config: JSON.stringify(over.nav ? { nav: over.nav } : {}),
    theme_config: '{}',
    features: JSON.stringify(over.features ?? []),
    landing_url: null,
    embed_origins: '[]',
    rules_version: 1,
    founder_user_id: null,
    created_at: '',
    updated_at: '',
  } as CommunityRow;
}

const nav = (c: CommunityRow, viewer: Viewer) =>
  siteNav({
    community: c,
    viewer,
    access: { visibility: c.visibility, pageSettings: JSON.parse(String(c.page_settings)) },
  });
const labels = (c: CommunityRow, viewer: Viewer) => nav(c, viewer).map((l) => l.label);

describe('siteNav without storefrontConfig.nav', () => {
  it('lists every page that is not "not found" for the viewer, members-only ones included', () => {
    const c = community({ features: ['marketplace', 'atlas'] });
    expect(nav(c, ANON)).toEqual([
      { href: '/', label: 'Home' },
      { href: '/events', label: 'Events' },
      { href: '/marketplace', label: 'Marketplace' },
      { href: '/feed', label: 'Feed' },
      { href: '/members', label: 'Members' },
      { href: '/atlas', label: 'Atlas' },
      { href: '/blog', label: 'Blog' },
      { href: '/conversations', label: 'Chat' },
    ]);
  });

  it('leaves out disabled pages and the pages of features the community does not have', () => {
    const c = community({
      features: ['atlas'],
      pageSettings: [
        { pageKey: 'BLOG', enabled: false, visibility: null },
        { pageKey: 'CHAT', enabled: false, visibility: null },
        { pageKey: 'MEMBERS', enabled: true, visibility: 'MEMBERS_ONLY' },
      ],
    });
    for (const viewer of [ANON, PENDING, MEMBER])
      expect(labels(c, viewer)).toEqual(['Home', 'Events', 'Feed', 'Members', 'Atlas']);
  });
});

describe('siteNav with storefrontConfig.nav', () => {
  const items = [
    { href: '/', label: 'Start' },
    { href: '/blog', label: 'News', iconKey: 'news' },
    { href: '/marketplace', label: 'Shop' },
    { href: '/members', label: 'People', visibleWhen: 'approvedMember' },
    { href: '/conversations', label: 'Inbox', visibleWhen: 'authenticated' },
    { href: 'https://elsewhere.example', label: 'Elsewhere', external: true },
    {
      label: 'More',
      children: [
        { href: '/atlas', label: 'Map' },
        { href: '/feed', label: 'Feed' },
      ],
    },
  ];

  it('keeps the items in their order, filtered by visibleWhen (approvedMember excludes PENDING)', () => {
    const c = community({ nav: items, features: ['marketplace', 'atlas'] });
    expect(labels(c, ANON)).toEqual(['Start', 'News', 'Shop', 'Elsewhere', 'More']);
    expect(labels(c, PENDING)).toEqual(['Start', 'News', 'Shop', 'Inbox', 'Elsewhere', 'More']);
    expect(labels(c, OUTSIDER)).toEqual(['Start', 'News', 'Shop', 'Inbox', 'Elsewhere', 'More']);
    expect(labels(c, MEMBER)).toEqual(['Start', 'News', 'Shop', 'People', 'Inbox', 'Elsewhere', 'More']);
  });

  it('carries iconKey, external and children; a dropdown without a link of its own opens its first child', () => {
    const links = nav(community({ nav: items, features: ['marketplace', 'atlas'] }), ANON);
    expect(links.find((l) => l.label === 'News')).toEqual({ href: '/blog', label: 'News', iconKey: 'news' });
    expect(links.find((l) => l.label === 'Elsewhere')).toEqual({
      href: 'https://elsewhere.example',
      label: 'Elsewhere',
      external: true,
    });
    expect(links.find((l) => l.label === 'More')).toEqual({
      href: '/atlas',
      label: 'More',
      children: [
        { href: '/atlas', label: 'Map' },
        { href: '/feed', label: 'Feed' },
      ],
    });
  });

  it('drops items pointing at a disabled page or a feature the community does not have', () => {
    const c = community({
      nav: items,
      features: [],
      pageSettings: [
        { pageKey: 'BLOG', enabled: false, visibility: null },
        { pageKey: 'FEED', enabled: false, visibility: null },
      ],
    });
    // No marketplace or atlas feature, BLOG and FEED disabled: Shop, News and the whole dropdown go.
    expect(labels(c, MEMBER)).toEqual(['Start', 'People', 'Inbox', 'Elsewhere']);
  });
});
