// The nav as the header renders it: the server already dropped what this viewer may not see
// (visibleWhen), so this only shapes the items into links and dropdowns, resolves site-relative
// hrefs against the community's site, drops unsafe links, and marks the current page.
import { isCurrent, isRecord, resolveHref, text } from '../lib/links.ts';

export interface NavLink {
  label: string;
  href: string;
  /** Opens a new tab (the item's `external`). */
  external: boolean;
  current: boolean;
  icon: string | null;
}

export interface NavGroup {
  label: string;
  /** The dropdown's links; the parent's own link, when it has one, comes first. */
  children: NavLink[];
  current: boolean;
  icon: string | null;
}

export type NavEntry = ({ kind: 'link' } & NavLink) | ({ kind: 'group' } & NavGroup);

function link(item: Record<string, unknown>, site: string, here: string, siteHref?: string | null): NavLink | null {
  const label = text(item.label);
  const href = resolveHref(item.href, site, siteHref);
  if (!label || !href) return null;
  return { label, href, external: item.external === true, current: isCurrent(href, here), icon: text(item.iconKey) };
}

/**
 * `nav` (storefrontConfig.nav, already filtered for the viewer) -> entries. Items without a
 * label, or without a usable link and children, are skipped; dropdowns are one level deep
 * (a grandchild list is ignored, its parent kept as a link if it has one). `siteHref` is the
 * element's `site-href` template for site-relative links (resolveHref).
 */
export function navEntries(nav: unknown, site: string, here: string, siteHref?: string | null): NavEntry[] {
  if (!Array.isArray(nav)) return [];
  const entries: NavEntry[] = [];
  for (const item of nav) {
    if (!isRecord(item)) continue;
    const own = link(item, site, here, siteHref);
    const children = Array.isArray(item.children)
      ? item.children
          .filter(isRecord)
          .map((c) => link(c, site, here, siteHref))
          .filter((c): c is NavLink => c !== null)
      : [];
    const label = text(item.label);
    if (children.length > 0 && label) {
      const all = own ? [own, ...children] : children;
      entries.push({
        kind: 'group',
        label,
        children: all,
        current: all.some((c) => c.current),
        icon: text(item.iconKey),
      });
    } else if (own) {
      entries.push({ kind: 'link', ...own });
    }
  }
  return entries;
}
