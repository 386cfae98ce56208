// Article content is HTML that other people's pages render (the hosted blog, customers' sites
// through the API), so it is reduced to an allow-list on every write. sanitize-html does the
// parsing and the allow-list; the URL rules below are ours and use the WHATWG URL parser, the
// one browsers use, so an href is judged exactly as a browser would resolve it (entities are
// already decoded by the parser; tabs and newlines inside a scheme are dropped by URL parsing).
import sanitizeHtml from 'sanitize-html';

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
const IMAGE_SCHEMES = new Set(['http:', 'https:']);

/** Embeds allowed in articles: host -> the path prefix of its embeddable player. */
const EMBED_HOSTS: Record<string, string> = {
  'www.youtube.com': '/embed/',
  'youtube.com': '/embed/',
  'www.youtube-nocookie.com': '/embed/',
  'player.vimeo.com': '/video/',
};

/** The origins an article's embeds load from: what a page showing articles lets frames load. */
export const EMBED_ORIGINS: readonly string[] = Object.keys(EMBED_HOSTS).map((host) => `https://${host}`);

/**
 * Forced on every embed. Players need scripts and their own origin to run; everything else
 * (top navigation, forms, modals, downloads) stays off, so an embed cannot act on the page.
 */
export const EMBED_SANDBOX = 'allow-scripts allow-same-origin allow-presentation allow-popups';
export const LINK_REL = 'noopener noreferrer nofollow';

export const ARTICLE_TAGS = [
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'br',
  'hr',
  'blockquote',
  'pre',
  'code',
  'ul',
  'ol',
  'li',
  'em',
  'strong',
  'b',
  'i',
  'u',
  's',
  'sub',
  'sup',
  'mark',
  'a',
  'img',
  'figure',
  'figcaption',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'iframe',
] as const;

/** Absolute URL with an allowed scheme, normalised by the URL parser; null otherwise. */
function allowedUrl(value: string | undefined, schemes: Set<string>): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Relative URLs resolve against whichever page shows the article, so they are not kept.
    return null;
  }
  return schemes.has(url.protocol) ? url.href : null;
}

function embedUrl(value: string | undefined): string | null {
  const href = allowedUrl(value, new Set(['https:']));
  if (!href) return null;
  const url = new URL(href);
  const prefix = EMBED_HOSTS[url.hostname];
  return prefix && url.pathname.startsWith(prefix) && !url.username && !url.password && !url.port ? href : null;
}

type Attribs = sanitizeHtml.Attributes;

function link(tagName: string, attribs: Attribs): sanitizeHtml.Tag {
  const out: Attribs = {};
  const href = allowedUrl(attribs.href, LINK_SCHEMES);
  if (href) out.href = href;
  if (attribs.title) out.title = attribs.title;
  if (attribs.target === '_blank') out.target = '_blank';
  out.rel = LINK_REL;
  return { tagName, attribs: out };
}

function image(tagName: string, attribs: Attribs): sanitizeHtml.Tag {
  const out: Attribs = {};
  const src = allowedUrl(attribs.src, IMAGE_SCHEMES);
  if (src) out.src = src;
  for (const a of ['alt', 'title', 'width', 'height']) if (attribs[a] !== undefined) out[a] = attribs[a];
  return { tagName, attribs: out };
}

function embed(tagName: string, attribs: Attribs): sanitizeHtml.Tag {
  const src = embedUrl(attribs.src);
  // An embed from anywhere else goes entirely (see exclusiveFilter), not as an empty frame.
  if (!src) return { tagName, attribs: {} };
  const out: Attribs = { src, sandbox: EMBED_SANDBOX };
  for (const a of ['width', 'height', 'title']) if (attribs[a] !== undefined) out[a] = attribs[a];
  if (attribs.allowfullscreen !== undefined) out.allowfullscreen = '';
  return { tagName, attribs: out };
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...ARTICLE_TAGS],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    iframe: ['src', 'sandbox', 'width', 'height', 'title', 'allowfullscreen'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start', 'reversed'],
    code: ['class'],
  },
  // Only syntax-highlighting hints survive as classes.
  allowedClasses: { code: [/^language-[a-z0-9+#-]{1,30}$/] },
  allowedSchemes: [...LINK_SCHEMES].map((s) => s.slice(0, -1)),
  allowedSchemesByTag: { img: ['http', 'https'], iframe: ['https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedIframeHostnames: Object.keys(EMBED_HOSTS),
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
  // Raw-text and template-like elements lose their text too, not only their tags.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'xmp', 'noembed', 'noframes', 'template'],
  // A frame's inner text is never shown by browsers; keeping it would only carry markup along.
  textFilter: (text, tagName) => (tagName === 'iframe' ? '' : text),
  enforceHtmlBoundary: false,
  parseStyleAttributes: false,
  transformTags: { a: link, img: image, iframe: embed },
  exclusiveFilter: (frame) => frame.tag === 'iframe' && !frame.attribs.src,
};

/** Passes are almost always 2; the bound only stops a pathological input from looping. */
const MAX_PASSES = 6;

/**
 * The stored form of article content. Idempotent: sanitizing the output again returns it
 * unchanged. One pass is not always a fixed point: dropping a wrapper can leave elements nested
 * in a way the parser splits on the next read (`<h1><object><h1>` gives `<h1><h1></h1></h1>`,
 * which reads back as two siblings), so passes repeat until the output stops changing. Every
 * pass is a full sanitize, so each intermediate result is already safe.
 */
export function sanitizeArticleHtml(html: string): string {
  let out = sanitizeHtml(html, OPTIONS);
  for (let pass = 1; pass < MAX_PASSES; pass++) {
    const next = sanitizeHtml(out, OPTIONS);
    if (next === out) return out;
    out = next;
  }
  return out;
}

/** Reading speed used for `readTimeMinutes`: a common middle value for adult screen reading. */
export const WORDS_PER_MINUTE = 225;

/**
 * Minutes to read the text of (sanitized) article HTML: words / 225, rounded up, at least 1.
 * Tags count as word breaks; entities are part of the word they sit in.
 */
export function readTimeMinutes(html: string): number {
  const text = html.replace(/<[^>]*>/g, ' ');
  const words = text.match(/\S+/g)?.length ?? 0;
  return Math.max(1, Math.ceil(words / WORDS_PER_MINUTE));
}
