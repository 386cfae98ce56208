// Turns a customer's HTML page into a template for the community chrome: its URLs rewritten for
// the community host (rewrite-urls.ts) and the document cut where the chrome goes. The cut pieces
// are what the proxy caches once for every visitor; assemble() glues in one visitor's chrome.
//
// The page is read by htmlparser2's streaming tokenizer (the one behind cheerio and sanitize-html),
// which reports where each tag and attribute value starts and ends in the source; the rewriter
// replaces exactly those spans and inserts the chrome's places at tag boundaries, so everything it
// does not change (text, inline scripts and styles, comments, every other tag) comes out byte for
// byte, and no regular expression ever reads the HTML. (lol-html, as html-rewriter-wasm, was the
// first engine: 4 to 12 ms per 100 KB page, each element handler and attribute crossing into WASM
// through asyncify; this takes about 1 ms. tests/bench/chrome-proxy.ts measures it.)
import { decodeHTMLAttribute } from 'entities/decode';
import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
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

// link rel tokens whose href is a page, not a resource: they follow the navigation rule...
const NAVIGATION_RELS = new Set(['canonical', 'alternate', 'prev', 'next']);
// ...unless the link is also a resource ("alternate stylesheet", "alternate icon").
const RESOURCE_RELS = new Set(['stylesheet', 'icon', 'preload', 'modulepreload', 'prefetch', 'manifest']);

type Rule = 'asset' | 'navigation' | 'srcset';

/** For each tag the rewriter reads, which of its attributes carry a URL and by which rule. */
const URL_ATTRIBUTES: Record<string, Record<string, Rule>> = {
  a: { href: 'navigation' },
  area: { href: 'navigation' },
  form: { action: 'navigation' },
  button: { formaction: 'navigation' },
  input: { formaction: 'navigation', src: 'asset' },
  audio: { src: 'asset' },
  track: { src: 'asset' },
  embed: { src: 'asset' },
  iframe: { src: 'asset' },
  img: { src: 'asset', srcset: 'srcset' },
  source: { src: 'asset', srcset: 'srcset' },
  video: { src: 'asset', poster: 'asset' },
  object: { data: 'asset' },
  script: { src: 'asset' },
  // href's rule depends on rel (isNavigationLink).
  link: { href: 'asset', imagesrcset: 'srcset' },
};
/** Tags read for something else than URLs: the chrome's places, the base, the charset. */
const STRUCTURE_TAGS = new Set(['head', 'body', 'base', 'meta']);

function isNavigationLink(rel: string | undefined): boolean {
  if (rel === undefined) return false;
  let nav = false;
  for (const token of rel.toLowerCase().split(/\s+/)) {
    if (RESOURCE_RELS.has(token)) return false;
    if (NAVIGATION_RELS.has(token)) nav = true;
  }
  return nav;
}

/** One attribute of the tag being read: its name, its value as the browser reads it, and where the value is in the source. */
interface Attribute {
  name: string;
  value: string;
  start: number;
  end: number;
  quote: QuoteType;
}

/** A change to the source: the span [start, end) replaced by `text`, or (start === end) text inserted. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A place for the chrome at a source offset. */
interface Mark {
  at: number;
  place: Place;
}

interface Pass {
  edits: Edit[];
  marks: Mark[];
  loaderFound: boolean;
  headPlaced: boolean;
  bodySeen: boolean;
  bodyEndPlaced: boolean;
  /** A <base href> came after URLs already resolved against the upstream URL: the pass must be redone with it. */
  lateBase: URL | null;
}

export async function prepareHtml(html: string, ctx: RewriteContext): Promise<PreparedPage> {
  let pass = rewritePass(html, ctx, ctx.upstreamUrl);
  // HTML's base URL is the first <base href> wherever it is, so a <link> before it resolves
  // against it too. Pages almost always put it first; paying a second pass only when they do not
  // spares every other page a pre-scan.
  if (pass.lateBase !== null) pass = rewritePass(html, ctx, pass.lateBase);
  return cut(html, pass, ctx.headless);
}

/** A value written back into the source, in the quotes it had (an unquoted one gets double quotes). */
function quoted(value: string, quote: QuoteType): string {
  const amp = value.includes('&') ? value.replaceAll('&', '&amp;') : value;
  if (quote === QuoteType.Single) return amp.includes("'") ? amp.replaceAll("'", '&#39;') : amp;
  const safe = amp.includes('"') ? amp.replaceAll('"', '&quot;') : amp;
  return quote === QuoteType.Double ? safe : `"${safe}"`;
}

function rewritePass(html: string, ctx: RewriteContext, base: URL): Pass {
  const urls = new UrlRewriter({ base, landing: ctx.landing, servesPath: ctx.servesPath });
  const baseKnown = base !== ctx.upstreamUrl;
  const pass: Pass = {
    edits: [],
    marks: [],
    loaderFound: false,
    headPlaced: false,
    bodySeen: false,
    bodyEndPlaced: false,
    lateBase: null,
  };
  let headSeen = false;
  let baseSeen = false;

  // The tag being read: its name (lower case), where its '<' is, and its attributes so far.
  let tag = '';
  let tagStart = 0;
  let reading = false;
  const attributes: Attribute[] = [];
  let attrName = '';
  let valueStart = -1;
  let valueEnd = -1;

  const replace = (attribute: Attribute, value: string) =>
    pass.edits.push({ start: attribute.start, end: attribute.end, text: quoted(value, attribute.quote) });

  const rewrite = (attribute: Attribute, rule: Rule) => {
    const next =
      rule === 'asset'
        ? urls.asset(attribute.value)
        : rule === 'navigation'
          ? urls.navigation(attribute.value)
          : urls.srcset(attribute.value);
    if (next !== null && next !== attribute.value) replace(attribute, next);
  };

  const attribute = (name: string) => attributes.find((a) => a.name === name);

  /** The whole start tag has been read (`end`: the offset just past its '>'). */
  const startTag = (end: number) => {
    if (!reading) return;
    reading = false;
    const rules = URL_ATTRIBUTES[tag];
    if (rules) {
      for (const a of attributes) {
        const rule = rules[a.name];
        if (rule === undefined || a.quote === QuoteType.NoValue) continue;
        if (tag === 'script' && ctx.headless && ctx.isLoaderScript) {
          const r = urls.resolve(a.value, true);
          if (r !== null && ctx.isLoaderScript(r.url)) {
            // The page's own loader, as written: `/widgets/loader.js` is the community host's
            // (same-origin, no key), so it must not be pinned to the customer's host.
            pass.loaderFound = true;
            continue;
          }
        }
        rewrite(
          a,
          tag === 'link' && a.name === 'href' && isNavigationLink(attribute('rel')?.value) ? 'navigation' : rule,
        );
      }
      return;
    }
    if (tag === 'meta') {
      // The proxy re-encodes the page as UTF-8 whatever it was: the declared charset must follow.
      const charset = attribute('charset');
      if (charset) return replace(charset, 'utf-8');
      const content = attribute('content');
      if (content && attribute('http-equiv')?.value.trim().toLowerCase() === 'content-type') {
        replace(content, 'text/html; charset=utf-8');
      }
      return;
    }
    if (tag === 'base') {
      // The page now lives on the community host; a <base> would also re-point the chrome's
      // root-relative URLs at the customer's site. URLs are resolved against it instead.
      pass.edits.push({ start: tagStart, end, text: '' });
      const href = baseSeen || baseKnown ? undefined : attribute('href');
      if (href === undefined || href.quote === QuoteType.NoValue) return;
      baseSeen = true;
      let url: URL;
      try {
        url = new URL(href.value.trim(), ctx.upstreamUrl);
      } catch {
        return;
      }
      if (!urls.used) urls.base = url;
      else if (url.href !== urls.base.href) pass.lateBase = url;
      return;
    }
    if (tag === 'head') {
      headSeen = true;
      return;
    }
    if (tag === 'body' && !pass.bodySeen) {
      pass.bodySeen = true;
      if (ctx.headless) return;
      // A head without </head> (optional in HTML) ends here: its stuff goes before <body>.
      if (!pass.headPlaced) {
        pass.marks.push({ at: tagStart, place: 'head' });
        pass.headPlaced = true;
      }
      pass.marks.push({ at: end, place: 'header' });
    }
  };

  const callbacks: TokenizerCallbacks = {
    onopentagname(start, end) {
      tag = html.slice(start, end).toLowerCase();
      tagStart = start - 1;
      attributes.length = 0;
      reading = tag in URL_ATTRIBUTES || STRUCTURE_TAGS.has(tag);
    },
    onattribname(start, end) {
      if (!reading) return;
      attrName = html.slice(start, end).toLowerCase();
      valueStart = -1;
    },
    onattribdata(start, end) {
      if (!reading) return;
      if (valueStart === -1) valueStart = start;
      valueEnd = end;
    },
    onattribentity() {},
    onattribend(quote) {
      if (!reading) return;
      // The first of two same-named attributes is the one the browser uses.
      if (attribute(attrName)) return;
      const raw = valueStart === -1 ? '' : html.slice(valueStart, valueEnd);
      attributes.push({
        name: attrName,
        value: raw.includes('&') ? decodeHTMLAttribute(raw) : raw,
        // A value that is there but empty ("") has no data: its place is just inside the quotes.
        start: valueStart === -1 ? -1 : valueStart,
        end: valueStart === -1 ? -1 : valueEnd,
        quote,
      });
    },
    onopentagend(end) {
      startTag(end + 1);
    },
    onselfclosingtag(end) {
      startTag(end + 1);
    },
    onclosetag(start, end) {
      const name = html.slice(start, end).toLowerCase();
      // `start` is the name's; its '</' is two before.
      if (name === 'head' && headSeen && !pass.headPlaced && !ctx.headless) {
        pass.marks.push({ at: start - 2, place: 'head' });
        pass.headPlaced = true;
      } else if (name === 'body' && !pass.bodyEndPlaced) {
        pass.marks.push({ at: start - 2, place: ctx.headless ? 'loader' : 'footer' });
        pass.bodyEndPlaced = true;
      }
    },
    oncdata() {},
    oncomment() {},
    ondeclaration() {},
    onend() {},
    onprocessinginstruction() {},
    ontext() {},
    ontextentity() {},
  };
  const tokenizer = new Tokenizer({ decodeEntities: false }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
  // An empty value ("") that a rule filled in has no span of its own: it is never rewritten (an
  // empty URL is the page itself), so such edits are not made; drop any that slipped through.
  pass.edits = pass.edits.filter((e) => e.start >= 0);
  return pass;
}

/**
 * Applies the edits and cuts the document at the chrome's places. Places that had no element to
 * go into (no <head>, no <body>) go at the very start, the end places at the very end.
 */
function cut(html: string, pass: Pass, headless: boolean): PreparedPage {
  const marks = [...pass.marks];
  if (!headless) {
    if (!pass.headPlaced) marks.unshift({ at: 0, place: 'head' });
    if (!pass.bodySeen) marks.splice(pass.headPlaced ? 0 : 1, 0, { at: 0, place: 'header' });
    if (!pass.bodyEndPlaced) marks.push({ at: html.length, place: 'footer' });
  } else if (!pass.bodyEndPlaced) {
    marks.push({ at: html.length, place: 'loader' });
  }
  const keep = headless && pass.loaderFound ? marks.filter((m) => m.place !== 'loader') : marks;
  // Edits and marks in source order; a mark at an edit's start goes before it (a place is never inside a tag).
  const events = [
    ...pass.edits.map((e) => ({ at: e.start, edit: e, mark: null as Mark | null })),
    ...keep.map((m) => ({ at: m.at, edit: null as Edit | null, mark: m })),
  ].sort((a, b) => a.at - b.at || (a.mark ? -1 : 0) - (b.mark ? -1 : 0));

  const parts: string[] = [];
  const places: Place[] = [];
  let current = '';
  let from = 0;
  for (const event of events) {
    if (event.at < from) continue;
    current += html.slice(from, event.at);
    from = event.at;
    if (event.mark) {
      parts.push(current);
      places.push(event.mark.place);
      current = '';
    } else if (event.edit) {
      current += event.edit.text;
      from = event.edit.end;
    }
  }
  parts.push(current + html.slice(from));

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
