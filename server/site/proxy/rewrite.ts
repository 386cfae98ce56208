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
import { HTMLRewriter, type Element } from 'html-rewriter-wasm';
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

// Every element the handler does something with, and nothing else: a bare 'img' would also match
// the many images that have neither attribute, at the price of a handler call each.
const SELECTOR = [
  'a[href]',
  'area[href]',
  'link[href]',
  'link[imagesrcset]',
  'img[src]',
  'img[srcset]',
  'source[src]',
  'source[srcset]',
  'script[src]',
  'video[src]',
  'video[poster]',
  'audio[src]',
  'track[src]',
  'embed[src]',
  'iframe[src]',
  'input[src]',
  'input[formaction]',
  'object[data]',
  'form[action]',
  'button[formaction]',
  'meta[charset]',
  'meta[http-equiv]',
  'base',
  'head',
  'body',
].join(', ');

// link rel tokens whose href is a page, not a resource: they follow the navigation rule.
const NAVIGATION_RELS = new Set(['canonical', 'alternate', 'prev', 'next']);
// ...unless the link is also a resource ("alternate stylesheet", "alternate icon").
const RESOURCE_RELS = new Set(['stylesheet', 'icon', 'preload', 'modulepreload', 'prefetch', 'manifest']);

const encoder = new TextEncoder();

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

/** The document base: the first <base href> resolved against the upstream URL (HTML's "frozen base URL"). */
async function findBase(bytes: Uint8Array, upstreamUrl: URL): Promise<URL> {
  let base: URL | null = null;
  const rw = new HTMLRewriter(() => {});
  try {
    rw.on('base[href]', {
      element(el) {
        if (base !== null) return;
        try {
          base = new URL((readAttr(el, 'href') ?? '').trim(), upstreamUrl);
        } catch {
          base = upstreamUrl;
        }
      },
    });
    await rw.write(bytes);
    await rw.end();
  } finally {
    rw.free();
  }
  return base ?? upstreamUrl;
}

/** A case-insensitive "could this page have a <base>": the extra parse is only paid when it might. */
function mayHaveBase(html: string): boolean {
  return html.includes('<base') || html.includes('<BASE') || html.toLowerCase().includes('<base');
}

export async function prepareHtml(html: string, ctx: RewriteContext): Promise<PreparedPage> {
  // A page quoting this process's marker (it cannot know it, but a page is untrusted input) gets
  // markers of its own, so the split still only cuts where this module put them.
  const markers = html.includes(MARKER_ID) ? markersFor(randomUUID()) : MARKERS;
  const bytes = encoder.encode(html);
  // The base must be known before the first URL is rewritten, and a <link> may precede <base>.
  const base = mayHaveBase(html) ? await findBase(bytes, ctx.upstreamUrl) : ctx.upstreamUrl;
  const urls = new UrlRewriter({ base, landing: ctx.landing, servesPath: ctx.servesPath });
  const headless = ctx.headless;

  let headSeen = false;
  let headPlaced = false;
  let bodySeen = false;
  let bodyEndPlaced = false;
  let loaderFound = false;
  const endMarker = headless ? markers.loader : markers.footer;

  const decoder = new TextDecoder();
  let out = '';
  const rw = new HTMLRewriter((chunk) => {
    out += decoder.decode(chunk, { stream: true });
  });
  try {
    rw.on(SELECTOR, {
      element(el) {
        switch (el.tagName) {
          case 'a':
          case 'area':
            rewriteAttr(el, 'href', 'navigation', urls);
            break;
          case 'img':
          case 'source':
            rewriteAttr(el, 'src', 'asset', urls);
            rewriteAttr(el, 'srcset', 'srcset', urls);
            break;
          case 'script':
            if (headless && !loaderFound && ctx.isLoaderScript) {
              const r = urls.resolve(readAttr(el, 'src') ?? '', true);
              if (r !== null && ctx.isLoaderScript(r.url)) loaderFound = true;
            }
            rewriteAttr(el, 'src', 'asset', urls);
            break;
          case 'link':
            rewriteAttr(el, 'href', isNavigationLink(el.getAttribute('rel')) ? 'navigation' : 'asset', urls);
            rewriteAttr(el, 'imagesrcset', 'srcset', urls);
            break;
          case 'video':
            rewriteAttr(el, 'src', 'asset', urls);
            rewriteAttr(el, 'poster', 'asset', urls);
            break;
          case 'input':
            rewriteAttr(el, 'src', 'asset', urls);
            rewriteAttr(el, 'formaction', 'navigation', urls);
            break;
          case 'object':
            rewriteAttr(el, 'data', 'asset', urls);
            break;
          case 'form':
            rewriteAttr(el, 'action', 'navigation', urls);
            break;
          case 'button':
            rewriteAttr(el, 'formaction', 'navigation', urls);
            break;
          case 'meta':
            rewriteMeta(el);
            break;
          case 'base':
            // The page now lives on the community host; a <base> would also re-point the chrome's
            // root-relative URLs at the customer's site. Its URLs were resolved against it above.
            el.remove();
            break;
          case 'head':
            if (headSeen) break;
            headSeen = true;
            if (!headless) {
              el.onEndTag((end) => {
                end.before(markers.head, HTML);
                headPlaced = true;
              });
            }
            break;
          case 'body':
            if (bodySeen) break;
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
              end.before(endMarker, HTML);
              bodyEndPlaced = true;
            });
            break;
          default:
            // audio, track, embed, iframe
            rewriteAttr(el, 'src', 'asset', urls);
        }
      },
    });
    rw.onDocument({
      end(end) {
        // No </body> (optional in HTML): the footer or loader goes at the very end.
        if (!bodyEndPlaced) end.append(endMarker, HTML);
      },
    });
    await rw.write(bytes);
    await rw.end();
  } finally {
    rw.free();
  }
  out += decoder.decode();

  return cut(out, markers, {
    head: !headless && !headPlaced,
    header: !headless && !bodySeen,
    dropLoader: headless && loaderFound,
  });
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
 * Splits the output on the markers. head, header: places that had no element to go into (no <head>,
 * no <body>) and go at the very start; dropLoader: a loader script exists, so its marker is dropped.
 */
function cut(
  out: string,
  markers: Record<Place, string>,
  missing: { head: boolean; header: boolean; dropLoader: boolean },
): PreparedPage {
  const found: Array<{ at: number; place: Place }> = [];
  for (const place of ['head', 'header', 'footer', 'loader'] as const) {
    const at = out.indexOf(markers[place]);
    if (at !== -1) found.push({ at, place });
  }
  found.sort((a, b) => a.at - b.at);

  const parts: string[] = [];
  const places: Place[] = [];
  if (missing.head) {
    parts.push('');
    places.push('head');
  }
  if (missing.header) {
    parts.push('');
    places.push('header');
  }
  let from = 0;
  let pending = '';
  for (const { at, place } of found) {
    pending += out.slice(from, at);
    from = at + markers[place].length;
    if (place === 'loader' && missing.dropLoader) continue;
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
