// Turns a customer's HTML page into a template for the community chrome: its URLs rewritten for
// the community host (rewrite-urls.ts) and the document cut where the chrome goes. The cut pieces
// are what the proxy caches once for every visitor; assemble() glues in one visitor's chrome.
//
// The rewriting is lol-html (html-rewriter-wasm), a streaming tokenizer: no regular expressions
// over HTML, and everything it is not asked to touch (text, inline scripts and styles, comments,
// untouched tags) comes out byte for byte. Each handler call crosses into JS through asyncify at
// a few microseconds, so there is one selector list and one handler, called only for elements that
// carry something to rewrite or mark.
import { randomUUID } from 'node:crypto';
import { decodeHTMLAttribute } from 'entities/decode';
import { HTMLRewriter, type DocumentEnd, type Element, type EndTag } from 'html-rewriter-wasm';
import { UrlRewriter } from './rewrite-urls.ts';

export interface RewriteContext {
  /** The URL the page was fetched from: its base unless it has a <base href>. */
  upstreamUrl: URL;
  /** The community's landingUrl: origin plus an optional base path (https://example.com or https://example.com/site). */
  landing: URL;
  /** Whether a community-site path (the landing URL's path with the landing base path removed, always starting with '/') is served by the community site: such links become relative. */
  servesPath: (path: string) => boolean;
  /** Headless: no chrome places; only a loader place at the end of <body> when the page has no loader script. */
  headless: boolean;
  /** Headless: whether an absolute script URL is the svc widget loader (the caller decides: e.g. path ends with the loader file name). */
  isLoaderScript?: (src: URL) => boolean;
}

export type Place = 'head' | 'header' | 'footer' | 'loader';

/** The rewritten document cut where the chrome goes. assemble() glues it back with a visitor's chrome. */
export interface PreparedPage {
  parts: string[]; // opaque to the caller except through assemble()
  places: Place[]; // what goes between parts[i] and parts[i+1]
  byteLength: number; // approximate memory size of the parts, for the cache's accounting
}

// Generated once per process: a customer page cannot contain a marker it has never seen, so the
// split cannot cut the page anywhere but where this module put them.
const MARKER_ID = randomUUID();

function markersFor(id: string): Record<Place, string> {
  return {
    head: `<!--svc-place:${id}:head-->`,
    header: `<!--svc-place:${id}:header-->`,
    footer: `<!--svc-place:${id}:footer-->`,
    loader: `<!--svc-place:${id}:loader-->`,
  };
}
const MARKERS = markersFor(MARKER_ID);

const HTML = { html: true };

// link rel tokens whose href is a page, not a resource: they follow the navigation rule.
const NAVIGATION_RELS = new Set(['canonical', 'alternate', 'prev', 'next']);
// ...unless the link is also a resource ("alternate stylesheet", "alternate icon").
const RESOURCE_RELS = new Set(['stylesheet', 'icon', 'preload', 'modulepreload', 'prefetch', 'manifest']);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * html-rewriter-wasm hands each handler a wrapper allocated in WASM memory that only an explicit
 * free() releases (its wasm-bindgen predates FinalizationRegistry, and free() is missing from its
 * typings): without this the WASM heap grew by about 7 KB per 100 KB page, for good.
 */
function release(handle: Element | EndTag | DocumentEnd): void {
  (handle as unknown as { free(): void }).free();
}

/** The attribute value as the browser reads it: lol-html hands it over with its entities undecoded. */
function readAttr(el: Element, name: string): string | null {
  const raw = el.getAttribute(name);
  if (raw === null || !raw.includes('&')) return raw;
  return decodeHTMLAttribute(raw);
}

/** lol-html escapes '"' in values it writes, but not '&', which would otherwise start an entity. */
function writeAttr(el: Element, name: string, value: string): void {
  el.setAttribute(name, value.includes('&') ? value.replaceAll('&', '&amp;') : value);
}

type Rule = 'asset' | 'navigation' | 'srcset';

function rewriteAttr(el: Element, name: string, rule: Rule, urls: UrlRewriter): void {
  const value = readAttr(el, name);
  if (value === null) return;
  const next =
    rule === 'asset' ? urls.asset(value) : rule === 'navigation' ? urls.navigation(value) : urls.srcset(value);
  if (next !== null && next !== value) writeAttr(el, name, next);
}

function isNavigationLink(rel: string | null): boolean {
  if (rel === null) return false;
  let nav = false;
  for (const token of rel.toLowerCase().split(' ')) {
    const t = token.trim();
    if (RESOURCE_RELS.has(t)) return false;
    if (NAVIGATION_RELS.has(t)) nav = true;
  }
  return nav;
}

/**
 * lol-html calls the output sink about ten times per modified element; decoding each small chunk
 * cost more than the rewriting, so the bytes are gathered here and decoded once.
 */
class ByteSink {
  private buf: Uint8Array;
  private length = 0;
  constructor(expected: number) {
    this.buf = new Uint8Array(expected + (expected >> 3) + 1024);
  }
  push = (chunk: Uint8Array): void => {
    if (this.length + chunk.length > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.length + chunk.length));
      bigger.set(this.buf.subarray(0, this.length));
      this.buf = bigger;
    }
    this.buf.set(chunk, this.length);
    this.length += chunk.length;
  };
  text(): string {
    return decoder.decode(this.buf.subarray(0, this.length));
  }
}

interface Pass {
  out: string;
  dropLoader: boolean;
  headMissing: boolean;
  headerMissing: boolean;
  /** A <base href> came after URLs already resolved against the upstream URL: the pass must be redone with it. */
  lateBase: URL | null;
}

export async function prepareHtml(html: string, ctx: RewriteContext): Promise<PreparedPage> {
  // A page quoting this process's marker (it cannot know it, but a page is untrusted input) gets
  // markers of its own, so the split still only cuts where this module put them.
  const markers = html.includes(MARKER_ID) ? markersFor(randomUUID()) : MARKERS;
  const bytes = encoder.encode(html);
  let pass = await rewritePass(bytes, ctx, markers, ctx.upstreamUrl);
  // HTML's base URL is the first <base href> wherever it is, so a <link> before it resolves
  // against it too. Pages almost always put it first; paying a second pass only when they do not
  // spares every other page a pre-scan.
  if (pass.lateBase !== null) pass = await rewritePass(bytes, ctx, markers, pass.lateBase);
  return cut(pass, markers);
}

async function rewritePass(
  bytes: Uint8Array,
  ctx: RewriteContext,
  markers: Record<Place, string>,
  base: URL,
): Promise<Pass> {
  const urls = new UrlRewriter({ base, landing: ctx.landing, servesPath: ctx.servesPath });
  const headless = ctx.headless;
  const baseKnown = base !== ctx.upstreamUrl;

  let baseSeen = false;
  let lateBase: URL | null = null;
  let headSeen = false;
  let headPlaced = false;
  let bodySeen = false;
  let bodyEndPlaced = false;
  let loaderFound = false;
  const endMarker = headless ? markers.loader : markers.footer;

  const sink = new ByteSink(bytes.length);
  const rw = new HTMLRewriter(sink.push);
  try {
    // One handler per attribute group, each selected only with the attribute it rewrites: every
    // call costs a few microseconds, so a bare 'img' (or one list and a switch on tagName, another
    // crossing) would be paid on every element.
    const on = (selector: string, handler: (el: Element) => void): void => {
      rw.on(selector, {
        element(el) {
          try {
            handler(el);
          } finally {
            release(el);
          }
        },
      });
    };
    const navigation = (name: string) => (el: Element) => rewriteAttr(el, name, 'navigation', urls);
    const asset = (name: string) => (el: Element) => rewriteAttr(el, name, 'asset', urls);
    on('a[href], area[href]', navigation('href'));
    on('form[action]', navigation('action'));
    on('button[formaction], input[formaction]', navigation('formaction'));
    on('audio[src], track[src], embed[src], iframe[src], input[src]', asset('src'));
    on('img[src], img[srcset], source[src], source[srcset]', (el) => {
      rewriteAttr(el, 'src', 'asset', urls);
      rewriteAttr(el, 'srcset', 'srcset', urls);
    });
    on('video[src], video[poster]', (el) => {
      rewriteAttr(el, 'src', 'asset', urls);
      rewriteAttr(el, 'poster', 'asset', urls);
    });
    on('object[data]', asset('data'));
    on('script[src]', (el) => {
      if (headless && !loaderFound && ctx.isLoaderScript) {
        const r = urls.resolve(readAttr(el, 'src') ?? '', true);
        if (r !== null && ctx.isLoaderScript(r.url)) loaderFound = true;
      }
      rewriteAttr(el, 'src', 'asset', urls);
    });
    on('link[href], link[imagesrcset]', (el) => {
      rewriteAttr(el, 'href', isNavigationLink(el.getAttribute('rel')) ? 'navigation' : 'asset', urls);
      rewriteAttr(el, 'imagesrcset', 'srcset', urls);
    });
    on('meta[charset], meta[http-equiv]', rewriteMeta);
    on('base', (el) => {
      // The page now lives on the community host; a <base> would also re-point the chrome's
      // root-relative URLs at the customer's site. URLs are resolved against it instead.
      const href = baseSeen || baseKnown ? null : readAttr(el, 'href');
      el.remove();
      if (href === null) return;
      baseSeen = true;
      let url: URL;
      try {
        url = new URL(href.trim(), ctx.upstreamUrl);
      } catch {
        return;
      }
      if (!urls.used) urls.base = url;
      else if (url.href !== urls.base.href) lateBase = url;
    });
    on('head', (el) => {
      if (headSeen) return;
      headSeen = true;
      if (headless) return;
      el.onEndTag((end) => {
        try {
          end.before(markers.head, HTML);
          headPlaced = true;
        } finally {
          release(end);
        }
      });
    });
    on('body', (el) => {
      if (bodySeen) return;
      bodySeen = true;
      if (!headless) {
        // A head without </head> (optional in HTML) ends here: its stuff goes before <body>.
        if (!headPlaced) {
          el.before(markers.head, HTML);
          headPlaced = true;
        }
        el.prepend(markers.header, HTML);
      }
      el.onEndTag((end) => {
        try {
          end.before(endMarker, HTML);
          bodyEndPlaced = true;
        } finally {
          release(end);
        }
      });
    });
    rw.onDocument({
      end(end) {
        // No </body> (optional in HTML): the footer or loader goes at the very end.
        try {
          if (!bodyEndPlaced) end.append(endMarker, HTML);
        } finally {
          release(end);
        }
      },
    });
    await rw.write(bytes);
    await rw.end();
  } finally {
    rw.free();
  }

  return {
    out: sink.text(),
    lateBase,
    headMissing: !headless && !headPlaced,
    headerMissing: !headless && !bodySeen,
    dropLoader: headless && loaderFound,
  };
}

function rewriteMeta(el: Element): void {
  // The proxy re-encodes the page as UTF-8 whatever it was: the declared charset must follow.
  if (el.hasAttribute('charset')) {
    el.setAttribute('charset', 'utf-8');
    return;
  }
  if ((el.getAttribute('http-equiv') ?? '').trim().toLowerCase() === 'content-type' && el.hasAttribute('content')) {
    el.setAttribute('content', 'text/html; charset=utf-8');
  }
}

/**
 * Splits the output on the markers. Places that had no element to go into (no <head>, no <body>)
 * go at the very start; when the page has a loader script, the loader marker is only removed.
 */
function cut(pass: Pass, markers: Record<Place, string>): PreparedPage {
  const { out } = pass;
  const found: Array<{ at: number; place: Place }> = [];
  for (const place of ['head', 'header', 'footer', 'loader'] as const) {
    const at = out.indexOf(markers[place]);
    if (at !== -1) found.push({ at, place });
  }
  found.sort((a, b) => a.at - b.at);

  const parts: string[] = [];
  const places: Place[] = [];
  if (pass.headMissing) {
    parts.push('');
    places.push('head');
  }
  if (pass.headerMissing) {
    parts.push('');
    places.push('header');
  }
  let from = 0;
  let pending = '';
  for (const { at, place } of found) {
    pending += out.slice(from, at);
    from = at + markers[place].length;
    if (place === 'loader' && pass.dropLoader) continue;
    parts.push(pending);
    places.push(place);
    pending = '';
  }
  parts.push(pending + out.slice(from));

  let byteLength = 64;
  // V8 keeps most pages as one-byte strings, but a single non-Latin-1 character makes it two.
  for (const p of parts) byteLength += p.length * 2 + 16;
  return { parts, places, byteLength };
}

export function assemble(
  page: PreparedPage,
  chrome: { head?: string; header?: string; footer?: string; loader?: string },
): string {
  let html = page.parts[0];
  for (let i = 0; i < page.places.length; i++) {
    html += (chrome[page.places[i]] ?? '') + page.parts[i + 1];
  }
  return html;
}
