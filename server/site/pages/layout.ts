// The hosted site's document: one layout (the community's header, the page, its footer), the head
// metadata (canonical, cards, JSON-LD) and the headers every page is sent with. The header and
// footer are the server-rendered <svc-header> and <svc-footer> (../widgets-ssr.ts); the page's
// widgets, and its one style, are allowed by their hashes and its scripts by 'self' (no inline
// script: JSON and JSON-LD blocks are data), so the CSP needs no nonce and a public page can be
// cached as it is. A page adds only the sources it shows (SitePage.csp: the atlas its script, an
// article its images). A page without the widget chrome (the error page, when loading it failed)
// gets the plain header and footer below, which need no script either.
import crypto from 'node:crypto';
import type { Response } from 'express';
import { escapeHtml } from '../../shared/html.ts';
import { brandStyle, type PageSite } from '../sign-in-page.ts';
import { cspHash, type PageWidgets } from '../widgets-ssr.ts';

/** What a CDN may keep of an anonymous public page (docs/hosted-site.md, "Caching"). */
export const PUBLIC_PAGE_CACHE = 'public, max-age=60, stale-while-revalidate=600';
/** Anything rendered for a signed-in viewer, and every gate, not-found and error page. */
export const PRIVATE_PAGE_CACHE = 'private, no-store';

const STYLE = `
:root { --brand: #1f6feb; --muted: color-mix(in srgb, CanvasText 68%, Canvas); color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; background: Canvas; color: CanvasText; line-height: 1.5; }
a { color: var(--brand); }
.site-header, .site-footer { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em 1.5em; padding: 0.9em max(1em, calc((100vw - 56em) / 2)); }
.site-header { border-bottom: 1px solid color-mix(in srgb, GrayText 35%, transparent); }
.site-name { font-weight: 700; font-size: 1.15em; color: inherit; text-decoration: none; }
.site-header nav { display: flex; gap: 1em; flex: 1; }
.site-footer { border-top: 1px solid color-mix(in srgb, GrayText 35%, transparent); color: var(--muted); font-size: 0.9em; margin-top: 3em; }
main { width: min(56em, calc(100vw - 2em)); margin: 0 auto; padding: 1.5em 0; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.6em; }
ul.events, ul.articles, ul.tiers, ul.conversations, ol.messages { list-style: none; margin: 0; padding: 0; }
ul.events li, ul.articles li, ul.tiers li, ul.conversations li, ol.messages li { padding: 0.6em 0; border-bottom: 1px solid color-mix(in srgb, GrayText 25%, transparent); }
.meta, .empty { color: var(--muted); }
.description { white-space: pre-line; }
.button { display: inline-block; padding: 0.55em 1em; border-radius: 6px; background: var(--brand); color: #fff; font-weight: 600; text-decoration: none; }
.actions { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; }
.atlas-map { height: 24rem; margin: 1em 0; border-radius: 6px; background: color-mix(in srgb, GrayText 12%, transparent); }
.rsvp { margin-top: 1.5em; padding: 1em; border: 1px dashed GrayText; border-radius: 6px; }
.notice { padding: 0.6em 0.9em; border-radius: 6px; border: 1px solid color-mix(in srgb, var(--brand) 50%, transparent); }
.notice.error { border-color: #c62828; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4em 0.6em 0.4em 0; border-bottom: 1px solid color-mix(in srgb, GrayText 25%, transparent); }
body { font-family: var(--svc-body-font, var(--svc-theme-body-font, system-ui, sans-serif)); }
h1, h2, h3 { font-family: var(--svc-heading-font, var(--svc-theme-heading-font, inherit)); }
:root { --brand: var(--svc-theme-brand-color, #1f6feb); }
svc-header, svc-footer, svc-rsvp, svc-donate, svc-apply, svc-members { display: block; }
svc-footer { margin-top: 3em; }
svc-rsvp { margin-top: 1.5em; }
.nojs { display: none; }
@media (scripting: none) { .nojs { display: block; } }
`;

export interface NavLink {
  href: string;
  label: string;
  /** storefrontConfig nav items: the icon the header shows, a link that opens a new tab, a dropdown. */
  iconKey?: string;
  external?: boolean;
  children?: NavLink[];
}

function navLink(l: NavLink): string {
  const a = `<a href="${escapeHtml(l.href)}"${l.external ? ' target="_blank" rel="noopener noreferrer"' : ''}>${escapeHtml(l.label)}</a>`;
  if (!l.children?.length) return a;
  return `<span class="nav-group">${a}\n<span class="nav-children">${l.children.map(navLink).join('\n')}</span></span>`;
}

export interface SitePage {
  title: string;
  /** What `<main>` holds: built with escapeHtml around everything user-written. */
  main: string;
  status?: number;
  /** Public only when nothing on the page depends on who asked. */
  cache: 'public' | 'private';
  /** What search engines and link previews read (docs/hosted-site.md, "Search and link previews"). */
  head?: PageHead;
  /** Sources a page adds to its CSP (an article's images and embeds, the atlas's script and tiles). */
  csp?: CspExtras;
  /** CSS of the page's own, appended to the site's style (one `<style>`, allowed by its hash). */
  style?: string;
  /** Module scripts of this origin the page runs (the console's islands): preloaded files first, the entry last. */
  moduleScripts?: string[];
}

export interface PageHead {
  /** The meta description and the cards' description (plain text; cut to 300 characters). */
  description?: string;
  /** The page's canonical path on this site (default: the path asked for, without the query). */
  canonicalPath?: string;
  /** An absolute http(s) image for Open Graph and the Twitter card (the event's or article's banner). */
  image?: string | null;
  /** og:type: `website` unless said. */
  type?: 'website' | 'article';
  /** Structured data (schema.org), written as a JSON-LD data block. */
  jsonLd?: Record<string, unknown>;
}

export interface CspExtras {
  'img-src'?: string[];
  'script-src'?: string[];
  'style-src'?: string[];
  'frame-src'?: string[];
  'form-action'?: string[];
}

export interface SiteChrome {
  site: PageSite;
  /** This site's origin as the request reached it, for canonical and Open Graph URLs. */
  origin?: string;
  nav: NavLink[];
  /** Where the header's sign-in link returns to; null when the viewer is signed in. */
  signInNext: string | null;
  /** The path asked for, without the query: the header's current page, the footer's `pages.<route>` key, the default canonical path. */
  path: string;
  /** The signed-in viewer's unread notifications, when the header shows the bell. */
  unread?: number;
  /** The server-rendered widgets of this page, the header and footer among them; none on the fallback. */
  widgets?: PageWidgets;
}

/**
 * The page's policy: styles only by the hashes of the exact `<style>` texts (the page's and each
 * widget shadow root's), scripts and their requests only from this origin (when the page has
 * widgets), and what the page itself adds (`extra`: the atlas's tiles, an article's images).
 */
export function sitePageCsp(styleHashes: string[], scripts = false, extra: CspExtras = {}): string {
  const more = (directive: keyof CspExtras): string => (extra[directive] ?? []).map((s) => ` ${s}`).join('');
  const scriptSources = [...new Set([...(scripts ? ["'self'"] : []), ...(extra['script-src'] ?? [])])];
  return [
    "default-src 'none'",
    ...(scriptSources.length ? [`script-src ${scriptSources.join(' ')}`] : []),
    ...(scripts ? ["connect-src 'self'"] : []),
    `style-src ${styleHashes.join(' ')}${more('style-src')}`,
    `img-src 'self' data:${more('img-src')}`,
    ...(extra['frame-src'] ? [`frame-src${more('frame-src')}`] : []),
    `form-action 'self'${more('form-action')}`,
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** JSON for a data block (`application/json`, `application/ld+json`): nothing in it can end the element. */
export function jsonDataBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Plain text for a description: whitespace collapsed, at most 300 characters. */
export function summaryText(text: string | null | undefined, max = 300): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

function headTags(chrome: SiteChrome, page: SitePage): string {
  const head = page.head;
  if (!head || chrome.origin === undefined) return '';
  const url = `${chrome.origin}${head.canonicalPath ?? chrome.path ?? '/'}`;
  const description = summaryText(head.description);
  const title = `${page.title} · ${chrome.site.name}`;
  const meta = (attr: 'name' | 'property', key: string, value: string) =>
    `<meta ${attr}="${key}" content="${escapeHtml(value)}">`;
  const tags = [
    ...(description ? [meta('name', 'description', description)] : []),
    `<link rel="canonical" href="${escapeHtml(url)}">`,
    meta('property', 'og:site_name', chrome.site.name),
    meta('property', 'og:type', head.type ?? 'website'),
    meta('property', 'og:title', title),
    meta('property', 'og:url', url),
    ...(description ? [meta('property', 'og:description', description)] : []),
    ...(head.image ? [meta('property', 'og:image', head.image)] : []),
    meta('name', 'twitter:card', head.image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', title),
    ...(description ? [meta('name', 'twitter:description', description)] : []),
    ...(head.image ? [meta('name', 'twitter:image', head.image)] : []),
    // A data block, never executed: the CSP's script-src does not apply to it.
    ...(head.jsonLd ? [`<script type="application/ld+json">${jsonDataBlock(head.jsonLd)}</script>`] : []),
  ];
  return `${tags.join('\n')}\n`;
}

export const signInHref = (next: string): string => `/sign-in?next=${encodeURIComponent(next)}`;

/** A page or file as it goes on the wire: what the anonymous page cache keeps, and writeRendered sends. */
export interface RenderedPage {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body gzipped (a page kept in the cache carries one), sent to a client that accepts it. */
  gzip?: Buffer;
}

export function sendSitePage(res: Response, chrome: SiteChrome, page: SitePage): void {
  writeRendered(res, renderSitePage(chrome, page));
}

/**
 * Sends a rendered page. One every anonymous visitor gets alike carries an ETag (a hash of its
 * bytes), and a request that already has it gets 304 with the same headers and no body.
 */
export function writeRendered(res: Response, page: RenderedPage): void {
  res.status(page.status);
  for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
  const gzip = page.gzip && res.req.acceptsEncodings('gzip', 'identity') === 'gzip' ? page.gzip : null;
  if (page.gzip) res.setHeader('Vary', page.headers.Vary ? `${page.headers.Vary}, Accept-Encoding` : 'Accept-Encoding');
  // Another representation, another validator (as nginx and Apache make it): the tag names both.
  const etag = page.headers.ETag && gzip ? page.headers.ETag.replace(/"$/, '-gzip"') : page.headers.ETag;
  if (etag) res.setHeader('ETag', etag);
  if (etag && matchesIfNoneMatch(res.req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  if (!gzip) {
    res.send(page.body);
    return;
  }
  res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', String(gzip.length));
  res.end(gzip);
}

export function renderSitePage(chrome: SiteChrome, page: SitePage): RenderedPage {
  const widgets = chrome.widgets;
  const theme = widgets ? `:root{${widgets.themeDeclarations()}}` : '';
  const style = `${STYLE}${page.style ?? ''}${brandStyle(chrome.site)}${theme}`;
  const modules = page.moduleScripts ?? [];
  // Rendered before the CSP is written: their styles are in it.
  const [header, footer] = widgetChrome(chrome) ?? [plainHeader(chrome), plainFooter(chrome)];
  const headers: Record<string, string> = {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': sitePageCsp(
      [cspHash(style), ...(widgets?.styleHashes() ?? [])],
      (widgets?.widgetNames().length ?? 0) > 0 || modules.length > 0,
      page.csp,
    ),
    'Cache-Control': page.cache === 'public' ? PUBLIC_PAGE_CACHE : PRIVATE_PAGE_CACHE,
    'X-Frame-Options': 'SAMEORIGIN',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  };
  // A shared cache must not hand the anonymous copy to someone who sends a sign-in cookie.
  if (page.cache === 'public') headers.Vary = 'Cookie';
  const name = escapeHtml(chrome.site.name);
  const own = modules.map((src, i) =>
    i === modules.length - 1
      ? `<script type="module" src="${escapeHtml(src)}"></script>`
      : `<link rel="modulepreload" href="${escapeHtml(src)}">`,
  );
  const scripts = [widgets?.head() ?? '', ...own].filter(Boolean).join('\n');
  // rel=expect: no paint until <main> is parsed, so never one of a header parsed halfway. The
  // header's nav came before its sign-in link: painted between the two (the parser yields on a
  // busy machine), the nav then moved 120 px when the link arrived, a layout shift before any
  // script had run (the e2e hydration checks' occasional CLS of 0.000001 to 0.0018).
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="expect" href="#main" blocking="render">
<title>${escapeHtml(page.title)} · ${name}</title>
${headTags(chrome, page)}<style>${style}</style>
${scripts}
</head>
<body>
${header}
<main id="main">
${page.main}
</main>
${footer}
${widgets?.stateBlock() ?? ''}
</body>
</html>
`;
  if (page.cache === 'public') headers.ETag = etagOf(html);
  return { status: page.status ?? 200, headers, body: html };
}

/** A strong validator of a body: its SHA-256, so equal bytes give equal tags on every instance. */
export const etagOf = (body: string): string =>
  `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** Whether If-None-Match names this tag (`*`, or a list; weak comparison, as a GET allows). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a body that every anonymous visitor gets alike (public pages, the Atom feed, the sitemap)
 * with an ETag; a request that already has it gets 304 with the same headers and no body.
 */
export function sendWithEtag(res: Response, body: string): void {
  const etag = etagOf(body);
  res.setHeader('ETag', etag);
  if (matchesIfNoneMatch(res.req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.send(body);
}

/**
 * The server-rendered header and footer, or null when there are no widgets or rendering them
 * failed (a page must not fail for its chrome: the plain one stands in).
 */
function widgetChrome(chrome: SiteChrome): [string, string] | null {
  const widgets = chrome.widgets;
  if (!widgets) return null;
  try {
    const unread = chrome.unread === undefined ? undefined : { unread: chrome.unread };
    return [
      widgets.element('header', { current: chrome.path }, unread),
      widgets.element('footer', { route: chrome.path }),
    ];
  } catch {
    return null;
  }
}

function plainHeader(chrome: SiteChrome): string {
  const name = escapeHtml(chrome.site.name);
  const nav = chrome.nav.map(navLink).join('\n');
  const signIn = chrome.signInNext === null ? '' : `<a href="${escapeHtml(signInHref(chrome.signInNext))}">Sign in</a>`;
  return `<header class="site-header">
<a class="site-name" href="/">${name}</a>
<nav aria-label="${name}">
${nav}
</nav>
${signIn}
</header>`;
}

const plainFooter = (chrome: SiteChrome): string =>
  `<footer class="site-footer">\n<p>${escapeHtml(chrome.site.name)}</p>\n</footer>`;

/** For a host that is neither the platform's nor any community's: no chrome to give it. */
export function sendUnknownHostPage(res: Response): void {
  const style = 'body { font-family: system-ui, sans-serif; margin: 2em; }';
  res.status(404);
  res.setHeader('Content-Security-Policy', sitePageCsp([cspHash(style)]));
  res.setHeader('Cache-Control', PRIVATE_PAGE_CACHE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type('html').send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found</title>
<style>${style}</style>
</head>
<body>
<h1>Not found</h1>
<p>No site is served at this address.</p>
</body>
</html>
`);
}

/**
 * A file the site serves beside its pages (CSV export, iCalendar): its own type, a download name
 * when it has one, and the pages' caching rule.
 */
export function renderSiteFile(file: {
  contentType: string;
  body: string;
  filename?: string;
  csp?: string;
  cache: 'public' | 'private';
}): RenderedPage {
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Cache-Control': file.cache === 'public' ? PUBLIC_PAGE_CACHE : PRIVATE_PAGE_CACHE,
    'Content-Security-Policy': file.csp ?? "default-src 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
  };
  if (file.filename) {
    // The name is ours (a slug and a fixed suffix), but quoted safely all the same.
    const ascii = file.filename.replace(/[^A-Za-z0-9._-]/g, '_');
    headers['Content-Disposition'] = `attachment; filename="${ascii}"`;
  }
  if (file.cache === 'public') headers.Vary = 'Cookie';
  return { status: 200, headers, body: file.body };
}
