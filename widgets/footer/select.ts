// Which footer a page gets, and its parts as the widget renders them. The spec: the footer is the
// default `storefrontConfig.footer` block or `storefrontConfig.pages.<route>.footer`; its fields
// are title, columns (of links), social links and a copyright line.
import { isRecord, resolveHref, text } from '../lib/links.ts';

/** The keys a route may be stored under: as written, and with and without its slashes. */
export function routeKeys(route: string): string[] {
  const raw = route.trim();
  const bare = raw.replace(/^\/+|\/+$/g, '');
  return [...new Set([raw, bare, `/${bare}`].filter(Boolean))];
}

/**
 * The footer block for `route` (the element's `route` attribute): the page's own footer when the
 * storefront config has one for it, else the default. A page footer set to `false` or `null`
 * means "no footer on this page".
 */
export function selectFooter(storefront: unknown, route: string | null): Record<string, unknown> | null {
  if (!isRecord(storefront)) return null;
  const pages = storefront.pages;
  if (route && isRecord(pages)) {
    for (const key of routeKeys(route)) {
      const page = pages[key];
      if (isRecord(page) && 'footer' in page) return isRecord(page.footer) ? page.footer : null;
    }
  }
  return isRecord(storefront.footer) ? storefront.footer : null;
}

export interface FooterLink {
  label: string;
  href: string;
  /** Opens a new tab: the link's `external`, and every social link. */
  external: boolean;
}

export interface FooterModel {
  title: string | null;
  columns: { title: string | null; links: FooterLink[] }[];
  social: (FooterLink & { network: string })[];
  copyright: string | null;
}

/** Names as the networks write them; anything else is capitalised. */
const NETWORKS: Record<string, string> = {
  x: 'X',
  youtube: 'YouTube',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  github: 'GitHub',
};
export const networkName = (network: string): string =>
  NETWORKS[network] ?? network.charAt(0).toUpperCase() + network.slice(1);

function links(list: unknown, site: string, siteHref?: string | null): FooterLink[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).flatMap((l) => {
    const label = text(l.label);
    const href = resolveHref(l.href, site, siteHref);
    return label && href ? [{ label, href, external: l.external === true }] : [];
  });
}

/**
 * The block -> what to render; unusable entries are left out, empty columns dropped. `siteHref`
 * is the element's `site-href` template for site-relative links (resolveHref).
 */
export function footerModel(footer: Record<string, unknown>, site: string, siteHref?: string | null): FooterModel {
  const columns = (Array.isArray(footer.columns) ? footer.columns : [])
    .filter(isRecord)
    .map((c) => ({ title: text(c.title), links: links(c.links, site, siteHref) }))
    .filter((c) => c.links.length > 0);
  const socialList = Array.isArray(footer.social) ? footer.social : footer.socialLinks;
  const social = (Array.isArray(socialList) ? socialList : []).filter(isRecord).flatMap((s) => {
    const network = (text(s.network) ?? '').toLowerCase();
    const href = resolveHref(s.href ?? s.url, site, siteHref);
    const label = text(s.label) ?? (network ? networkName(network) : null);
    return label && href ? [{ network: network.replace(/[^a-z0-9-]/g, ''), label, href, external: true }] : [];
  });
  return { title: text(footer.title), columns, social, copyright: text(footer.copyright) };
}
