// Links from community configuration (nav items, footer columns, social links). The config is
// written by community admins, and a widget renders it on a customer's page: only web, mail and
// phone links get through, and site-relative paths point at the community's own site. Also the
// link templates a customer puts on a widget (`event-href`, `member-href`, `site-href`), so its
// links can go to their own pages instead (docs/widgets.md, "Where links go").
import { fillTemplate, safeUrl } from './link-template.ts';

/**
 * Absolute URL for an href from the config, relative ones against `site`; null when unsafe or
 * empty. A page with a `site-href` template (`<svc-header>`, `<svc-footer>`) sends the
 * site-relative ones through it instead, `{path}` being the link's path, query and fragment.
 */
export function resolveHref(href: unknown, site: string, siteHref?: string | null): string | null {
  const given = typeof href === 'string' ? href.trim() : '';
  const url = given && safeUrl(given, `${site}/`);
  if (!url) return null;
  return siteHref && !/^([a-z][\w+.-]*:|\/\/)/i.test(given)
    ? (fillTemplate('site-href', siteHref, { path: url.replace(/^\w+:\/\/[^/]*/, '') }) ?? url)
    : url;
}

/**
 * Is `href` the page the visitor is on (or a page under it)? `/events` is current on
 * `/events/ridge-walk`; the home page only on itself.
 */
export function isCurrent(href: string, here: string): boolean {
  try {
    const a = new URL(href);
    const b = new URL(here);
    if (a.origin !== b.origin || !/^https?:$/.test(a.protocol)) return false;
    const path = a.pathname.replace(/\/+$/, '');
    const at = b.pathname.replace(/\/+$/, '');
    return path === at || (path !== '' && at.startsWith(`${path}/`));
  } catch {
    return false;
  }
}

/** A label from the config: a non-empty string, trimmed; null otherwise. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

/** True for a plain object (config blocks), so a stray string or array never reads as one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a link that leaves for a new tab needs. */
export const NEW_TAB = { target: '_blank', rel: 'noopener noreferrer' } as const;
