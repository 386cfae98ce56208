// The URL rules for a customer's page served on the community host (issue 16, "URLs in the
// customer's HTML"). The page moves from <landing>/<basePath>/P to the community host at /P, so
// every URL that the browser would resolve against the page's own location has to be pinned down:
// assets become absolute landing-host URLs (they keep loading from the customer's site), links to
// routes the community site serves become relative (the visitor stays on the community host), and
// other landing-host links become absolute (they leave for the landing host, as they did before).
// Everything here works on one attribute value at a time, already entity-decoded.

export interface UrlRules {
  /** The document base: the upstream URL, or the page's first <base href> resolved against it. */
  base: URL;
  landing: URL;
  servesPath: (path: string) => boolean;
}

/** landing.pathname without a trailing slash: '' for a landing URL at the root. */
export function landingBasePath(landing: URL): string {
  const p = landing.pathname;
  return p.endsWith('/') ? p.slice(0, -1) : p;
}

/** The community path of a landing-origin pathname, or null when it lies outside the base path. */
export function communityPath(pathname: string, basePath: string): string | null {
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  // A '/' boundary: /site must not claim /sitemap.xml.
  if (pathname.startsWith(basePath) && pathname.charCodeAt(basePath.length) === 0x2f) {
    return pathname.slice(basePath.length);
  }
  return null;
}

type Shape = 'skip' | 'relative' | 'absolute';

function isSchemeChar(c: number, first: boolean): boolean {
  const alpha = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
  if (first) return alpha;
  return alpha || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
}

/**
 * What a (trimmed) attribute value is, without parsing it: 'skip' for values the rules leave alone
 * (empty, fragment-only, any scheme but http(s): data:, blob:, javascript:, mailto:, tel:, about:...),
 * 'absolute' for http(s) and scheme-relative URLs (their origin decides), 'relative' otherwise.
 */
function shapeOf(v: string): Shape {
  if (v === '' || v.charCodeAt(0) === 0x23 /* # */) return 'skip';
  const c0 = v.charCodeAt(0);
  const c1 = v.charCodeAt(1);
  // '//host' and its backslash spellings, which the URL parser treats alike for http(s) bases.
  if ((c0 === 0x2f || c0 === 0x5c) && (c1 === 0x2f || c1 === 0x5c)) return 'absolute';
  if (!isSchemeChar(c0, true)) return 'relative';
  for (let i = 1; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x3a /* : */) {
      const scheme = v.slice(0, i).toLowerCase();
      return scheme === 'http' || scheme === 'https' ? 'absolute' : 'skip';
    }
    if (!isSchemeChar(c, false)) return 'relative';
  }
  return 'relative';
}

/** Characters a root-relative value may hold to be resolved without the URL parser: none of them is percent-encoded or special anywhere in a URL. */
function isPlainChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x3b) || // 0-9 : ;
    (c >= 0x23 && c <= 0x24) || // # $
    (c >= 0x26 && c <= 0x2f && c !== 0x27) || // & ( ) * + , - . /
    c === 0x21 || // !
    c === 0x3d || // =
    c === 0x3f || // ?
    c === 0x40 || // @
    c === 0x5f || // _
    c === 0x7e // ~
  );
}

/** Where a value points, as far as the rules need it. */
interface Located {
  href: string;
  onLanding: boolean;
  pathname: string;
  /** search + hash, as the URL parser writes them. */
  rest: string;
  relative: boolean;
}

/**
 * Precomputed per page so the hot path (one call per URL-bearing attribute) does string checks
 * first and calls new URL() only when the value can be affected.
 */
export class UrlRewriter {
  /** Whether any value has been resolved against the base yet. */
  used = false;
  private baseUrl: URL;
  private baseOnLanding: boolean;
  private readonly landing: URL;
  private readonly landingOrigin: string;
  private readonly basePath: string;
  private readonly landingHost: string;
  private readonly servesPath: (path: string) => boolean;

  constructor(rules: UrlRules) {
    this.landing = rules.landing;
    this.landingOrigin = rules.landing.origin;
    this.basePath = landingBasePath(rules.landing);
    this.landingHost = rules.landing.hostname.toLowerCase();
    this.servesPath = rules.servesPath;
    this.baseUrl = rules.base;
    this.baseOnLanding = rules.base.origin === this.landingOrigin;
  }

  /** Settable: a <base href> found mid-document applies from then on (see prepareHtml). */
  get base(): URL {
    return this.baseUrl;
  }
  set base(url: URL) {
    this.baseUrl = url;
    this.baseOnLanding = url.origin === this.landingOrigin;
  }

  /**
   * Resolves a value against the document base, or null for values the rules leave alone.
   * anyOrigin: also parse absolute URLs that cannot be on the landing origin (they are left alone
   * by the rules, so the hot path does not parse them).
   */
  resolve(value: string, anyOrigin = false): { url: URL; relative: boolean } | null {
    const v = value.trim();
    const shape = shapeOf(v);
    if (shape === 'skip') return null;
    if (shape === 'absolute' && !anyOrigin && !this.mayBeLanding(v)) return null;
    const url = this.parse(v);
    return url === null ? null : { url, relative: shape === 'relative' };
  }

  /** src, srcset candidates, poster, data, stylesheet and icon hrefs. null: leave the value as written. */
  asset(value: string): string | null {
    const r = this.locate(value);
    if (r === null) return null;
    return r.relative || r.onLanding ? r.href : null;
  }

  /** a/area href, form action, formaction, link rel canonical/alternate/prev/next. null: leave as written. */
  navigation(value: string): string | null {
    const r = this.locate(value);
    if (r === null) return null;
    if (r.onLanding) {
      const path = communityPath(r.pathname, this.basePath);
      if (path !== null && this.servesPath(path)) return path + r.rest;
      return r.href;
    }
    // A relative link that a <base> on another origin sent elsewhere: the <base> is gone, so the
    // link is pinned to where it pointed.
    return r.relative ? r.href : null;
  }

  /**
   * resolve() for the rules. Root-relative values made of plain characters ('/blog/post-7?p=2',
   * the bulk of a CMS page) on a landing-origin base are resolved by concatenation: the parser
   * would return them unchanged, and it costs a microsecond each.
   */
  private locate(value: string): Located | null {
    const v = value.trim();
    const shape = shapeOf(v);
    if (shape === 'skip') return null;
    if (shape === 'relative' && this.baseOnLanding && v.charCodeAt(0) === 0x2f && this.isPlain(v)) {
      this.used = true;
      let cut = v.length;
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i);
        if (c === 0x3f || c === 0x23) {
          cut = i;
          break;
        }
      }
      return {
        href: this.landingOrigin + v,
        onLanding: true,
        pathname: v.slice(0, cut),
        rest: v.slice(cut),
        relative: true,
      };
    }
    if (shape === 'absolute' && !this.mayBeLanding(v)) return null;
    const url = this.parse(v);
    if (url === null) return null;
    return {
      href: url.href,
      onLanding: url.origin === this.landingOrigin,
      pathname: url.pathname,
      rest: url.search + url.hash,
      relative: shape === 'relative',
    };
  }

  private parse(v: string): URL | null {
    this.used = true;
    let url: URL;
    try {
      url = new URL(v, this.baseUrl);
    } catch {
      return null;
    }
    // The parser drops tabs and newlines ('java\nscript:'), so the verdict is the parsed scheme's.
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  }

  /** No character the parser would encode or reinterpret, and no dot segment ('/./', '/..') to collapse. */
  private isPlain(v: string): boolean {
    let hash = false;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (!isPlainChar(c)) return false;
      if (c === 0x23) {
        // A second '#' is kept in a fragment, but stay on the parser's side for anything unusual.
        if (hash) return false;
        hash = true;
      }
      if (c === 0x2e && v.charCodeAt(i - 1) === 0x2f) return false;
    }
    return true;
  }

  /** Each candidate URL through asset(); separators and descriptors are kept byte for byte. null: unchanged. */
  srcset(value: string): string | null {
    let out = '';
    let copied = 0;
    for (const [start, end] of srcsetUrlSpans(value)) {
      const next = this.asset(value.slice(start, end));
      if (next === null) continue;
      out += value.slice(copied, start) + next;
      copied = end;
    }
    return copied === 0 ? null : out + value.slice(copied);
  }

  /**
   * An absolute value can only be on the landing origin if it names the landing host; a
   * percent-encoded or non-ASCII host is parsed to be sure (the parser decodes and punycodes it).
   * A miss here only leaves an absolute URL as written, which still works.
   */
  private mayBeLanding(v: string): boolean {
    if (v.toLowerCase().includes(this.landingHost)) return true;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c === 0x25 /* % */ || c > 0x7f) return true;
    }
    return false;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/**
 * [start, end) of every candidate URL in a srcset, after the HTML spec's "parse a srcset
 * attribute": a URL is a run of non-space characters (so data: URLs keep their commas) minus
 * trailing commas; the descriptors run to the next comma outside parentheses.
 */
export function srcsetUrlSpans(s: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && (isSpace(s.charCodeAt(i)) || s.charCodeAt(i) === 0x2c)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(s.charCodeAt(i))) i++;
    let end = i;
    if (s.charCodeAt(end - 1) === 0x2c) {
      // 'a.png,b.png 2x': trailing commas end the candidate, and it has no descriptors.
      while (end > start && s.charCodeAt(end - 1) === 0x2c) end--;
      if (end > start) spans.push([start, end]);
      continue;
    }
    spans.push([start, end]);
    let depth = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x28) depth++;
      else if (c === 0x29 && depth > 0) depth--;
      else if (c === 0x2c && depth === 0) break;
    }
  }
  return spans;
}
