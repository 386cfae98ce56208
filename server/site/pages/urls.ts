// Small readers of URLs the pages share: image URLs a page may show, `?offset=`, this site's origin.
import type { Request } from 'express';

/** An image URL a page may put in `src`: absolute http(s) only, as the sanitizer allows in articles. */
export function imageUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** `?offset=` as a non-negative integer; anything else is the first page. */
export function offsetOf(req: Request): number {
  const raw = req.query.offset;
  const n = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
  return n;
}

/**
 * The site's own origin as this request reached it (host with port; X-Forwarded-* where the proxy
 * is trusted), the origin assertOwnOrigin compares with: canonical URLs, feed and sitemap links.
 */
export function siteOrigin(req: Request): string {
  // A Host header is the client's to write: only a plain name and a numeric port go into links and
  // cached pages; anything else falls back to the name the site was found by.
  const host = /^[a-z0-9.-]+(:\d{1,5})?$/i.test(req.host) ? req.host : req.hostname;
  return `${req.protocol}://${host}`;
}
