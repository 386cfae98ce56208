// The community nav as one viewer may see it. Nav items (spec, "Community configuration") carry
// `visibleWhen`: `always` (the default) for everyone, `authenticated` for any signed-in user,
// `approvedMember` for ACCEPTED members only (PENDING, REJECTED and BANNED do not count). The
// filter runs on the server, so a member-only item never reaches a visitor who may not see it.
//
// Fails closed like page access: an unknown `visibleWhen` counts as `approvedMember`, an item
// that is not an object is dropped, and an item that points at a disabled built-in page is
// hidden ("enabled=false: the page is hidden from the nav").
import { evaluatePageAccess, type AccessConfig, type PageKey, type Viewer } from './page-access.ts';

export type NavItem = Record<string, unknown>;
export type Audience = 'always' | 'authenticated' | 'approvedMember';

/** Who an item is for; anything but the three spec values is treated as the strictest. */
export function audienceOf(item: NavItem): Audience {
  const v = item.visibleWhen;
  if (v === undefined || v === null || v === 'always') return 'always';
  return v === 'authenticated' ? 'authenticated' : 'approvedMember';
}

export function canSee(audience: Audience, viewer: Viewer): boolean {
  if (audience === 'always') return true;
  if (viewer.userId === null) return false;
  return audience === 'authenticated' || viewer.membership === 'ACCEPTED';
}

/** First path segment of a built-in page's routes (spec, "Routes per key"). */
const ROUTE_PAGE: Record<string, PageKey> = {
  '': 'HOME',
  events: 'EVENTS',
  marketplace: 'MARKETPLACE',
  feed: 'FEED',
  members: 'MEMBERS',
  atlas: 'ATLAS',
  blog: 'BLOG',
  conversations: 'CHAT',
};

/**
 * The built-in page a site-relative href opens (`/events/x?y` -> EVENTS, `/` -> HOME), or null for
 * an absolute URL, a protocol-relative one, an external item, or a path of no built-in page.
 */
export function pageKeyOfHref(href: unknown): PageKey | null {
  if (typeof href !== 'string' || !href.startsWith('/') || href.startsWith('//')) return null;
  const segment = href.slice(1).split(/[/?#]/)[0].toLowerCase();
  return Object.hasOwn(ROUTE_PAGE, segment) ? ROUTE_PAGE[segment] : null;
}

function pageDisabled(item: NavItem, access: AccessConfig | undefined, viewer: Viewer): boolean {
  if (!access || item.external === true) return false;
  const key = pageKeyOfHref(item.href);
  return key !== null && evaluatePageAccess(access, viewer, key).reason === 'page_disabled';
}

/**
 * The nav items this viewer may see, children (dropdowns) filtered the same way. A dropdown whose
 * children are all hidden keeps its own link if it has one, and disappears if it has none; a
 * dropdown whose own link goes to a disabled page loses that link but keeps its children.
 * Items are copied, never mutated: the stored configuration stays as it is.
 */
export function filterNav(nav: unknown, viewer: Viewer, access?: AccessConfig): NavItem[] {
  if (!Array.isArray(nav)) return [];
  const out: NavItem[] = [];
  for (const raw of nav) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) continue;
    const item = raw as NavItem;
    if (!canSee(audienceOf(item), viewer)) continue;
    const disabled = pageDisabled(item, access, viewer);
    if (!('children' in item)) {
      if (!disabled) out.push({ ...item });
      continue;
    }
    const { children, ...rest } = item;
    if (disabled) delete rest.href;
    const visible = filterNav(children, viewer, access);
    if (visible.length > 0) out.push({ ...rest, children: visible });
    else if (typeof rest.href === 'string' && rest.href !== '') out.push(rest);
  }
  return out;
}
