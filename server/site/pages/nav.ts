// The site's nav, as the chrome shows it to one viewer. Without `storefrontConfig.nav`, the
// built-in pages this viewer can reach: every page whose gate is not "not found" for them (a
// members-only page stays, its link leads to the gate page; a disabled page, and MARKETPLACE or
// ATLAS without their feature, leave). With it, the community's own items (spec, "Community
// configuration"): filtered by `visibleWhen` (server/domain/nav.ts, the same filter as the public
// community object), and an item pointing at a built-in page that is not found here is dropped.
import type { Feature } from '../../../contract/enums.ts';
import { hasFeature } from '../../domain/communities.ts';
import { filterNav, pageKeyOfHref, type NavItem } from '../../domain/nav.ts';
import type { PageKey } from '../../domain/page-access.ts';
import { parseJson } from '../../db/ids.ts';
import { gateFor } from './gate.ts';
import type { SiteContext } from './context.ts';
import type { NavLink } from './layout.ts';

/** The built-in pages in their default nav order; the feature a page needs, where it needs one. */
export const BUILT_IN_NAV: { key: PageKey; href: string; label: string; feature?: Feature }[] = [
  { key: 'HOME', href: '/', label: 'Home' },
  { key: 'EVENTS', href: '/events', label: 'Events' },
  { key: 'MARKETPLACE', href: '/marketplace', label: 'Marketplace', feature: 'marketplace' },
  { key: 'FEED', href: '/feed', label: 'Feed' },
  { key: 'MEMBERS', href: '/members', label: 'Members' },
  { key: 'ATLAS', href: '/atlas', label: 'Atlas', feature: 'atlas' },
  { key: 'BLOG', href: '/blog', label: 'Blog' },
  { key: 'CHAT', href: '/conversations', label: 'Chat' },
];

type NavContext = Pick<SiteContext, 'community' | 'access' | 'viewer'>;

/** Whether `key`'s page answers anything but not-found to this viewer. */
function reachable(ctx: NavContext, key: PageKey): boolean {
  const feature = BUILT_IN_NAV.find((p) => p.key === key)?.feature;
  if (feature && !hasFeature(ctx.community, feature)) return false;
  return gateFor(ctx.access, ctx.viewer, key) !== 'not-found';
}

/** A configured item as a link: its own href, else (a dropdown without one) its first child's. */
function toLink(ctx: NavContext, item: NavItem): NavLink | null {
  const children = Array.isArray(item.children)
    ? (item.children as NavItem[]).map((c) => toLink(ctx, c)).filter((c): c is NavLink => c !== null)
    : [];
  const external = item.external === true;
  const key = external ? null : pageKeyOfHref(item.href);
  const ownHref = typeof item.href === 'string' && item.href !== '' && (key === null || reachable(ctx, key));
  const label = typeof item.label === 'string' ? item.label : '';
  if (!label) return null;
  if (!ownHref && children.length === 0) return null;
  const link: NavLink = { href: ownHref ? String(item.href) : children[0].href, label };
  if (typeof item.iconKey === 'string') link.iconKey = item.iconKey;
  if (external) link.external = true;
  if (children.length) link.children = children;
  return link;
}

export function siteNav(ctx: NavContext): NavLink[] {
  let configured: unknown = null;
  try {
    configured = parseJson<{ nav?: unknown } | null>(ctx.community.storefront_config, null)?.nav ?? null;
  } catch {
    configured = null;
  }
  if (!Array.isArray(configured))
    return BUILT_IN_NAV.filter((p) => reachable(ctx, p.key)).map(({ href, label }) => ({ href, label }));
  return filterNav(configured, ctx.viewer, ctx.access)
    .map((item) => toLink(ctx, item))
    .filter((l): l is NavLink => l !== null);
}
