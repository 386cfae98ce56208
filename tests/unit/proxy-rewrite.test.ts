import { describe, expect, it } from 'vitest';
import { assemble, prepareHtml, type RewriteContext } from '../../server/site/proxy/rewrite.ts';
import { UrlRewriter, srcsetUrlSpans } from '../../server/site/proxy/rewrite-urls.ts';

const servesBlog = (p: string): boolean => p === '/blog' || p.startsWith('/blog/');

function ctx(landing: string, upstreamPath: string, extra: Partial<RewriteContext> = {}): RewriteContext {
  const landingUrl = new URL(landing);
  const base = landingUrl.pathname.endsWith('/') ? landingUrl.pathname.slice(0, -1) : landingUrl.pathname;
  return {
    upstreamUrl: new URL(landingUrl.origin + base + upstreamPath),
    landing: landingUrl,
    servesPath: servesBlog,
    headless: false,
    ...extra,
  };
}

const ROOT = ctx('https://cust.test', '/blog/post');
const SITE = ctx('https://cust.test/site', '/blog/post');

/** The page as a visitor gets it with empty chrome: the rewritten document alone. */
async function rewrite(html: string, c: RewriteContext = ROOT): Promise<string> {
  return assemble(await prepareHtml(html, c), {});
}

/** The value of the first `name="..."` in a rewritten fragment (written by lol-html with double quotes). */
function attr(html: string, name: string): string | null {
  const at = html.indexOf(` ${name}="`);
  if (at === -1) return null;
  const from = at + name.length + 3;
  return html.slice(from, html.indexOf('"', from));
}

describe('asset URLs', () => {
  it('makes root-relative images, scripts, stylesheets and icons absolute landing URLs', async () => {
    const out = await rewrite(
      '<head><link rel="stylesheet" href="/css/a.css"><link rel="icon" href="/favicon.ico">' +
        '<script src="/js/app.js"></script></head><body><img src="/img/a.png"></body>',
    );
    expect(out).toContain('href="https://cust.test/css/a.css"');
    expect(out).toContain('href="https://cust.test/favicon.ico"');
    expect(out).toContain('src="https://cust.test/js/app.js"');
    expect(out).toContain('src="https://cust.test/img/a.png"');
  });

  it('keeps the landing base path in root-relative asset URLs written under it', async () => {
    const out = await rewrite('<img src="/site/img/a.png"><script src="../js/x.js"></script>', SITE);
    expect(out).toContain('src="https://cust.test/site/img/a.png"');
    // Relative to the upstream page https://cust.test/site/blog/post.
    expect(out).toContain('src="https://cust.test/site/js/x.js"');
  });

  it('resolves path-relative assets against the upstream page, not the community path', async () => {
    expect(await rewrite('<img src="a.png">', SITE)).toBe('<img src="https://cust.test/site/blog/a.png">');
  });

  it('rewrites every srcset candidate and keeps descriptors and separators as written', async () => {
    const out = await rewrite(
      '<img srcset="/i/a-480.png 480w,\n  /i/a-800.png 800w, https://cdn.test/a.png 2x, data:image/png;base64,AA,BB 3x">',
    );
    expect(attr(out, 'srcset')).toBe(
      'https://cust.test/i/a-480.png 480w,\n  https://cust.test/i/a-800.png 800w, https://cdn.test/a.png 2x, data:image/png;base64,AA,BB 3x',
    );
  });

  it('rewrites srcset on <source> in <picture>, and poster, data and iframe src', async () => {
    const out = await rewrite(
      '<picture><source srcset="/a.webp" type="image/webp"><img src="/a.jpg"></picture>' +
        '<video poster="/p.jpg" src="/v.mp4"><track src="/t.vtt"></video><object data="/o.svg"></object>' +
        '<iframe src="/embed"></iframe>',
    );
    for (const url of ['/a.webp', '/a.jpg', '/p.jpg', '/v.mp4', '/t.vtt', '/o.svg', '/embed']) {
      expect(out).toContain(`"https://cust.test${url}"`);
    }
  });

  it('leaves assets on other origins exactly as written', async () => {
    const html = '<img src="HTTPS://cdn.test/a.png"><script src="//cdn.test/x.js"></script>';
    expect(await rewrite(html)).toBe(html);
  });

  it('writes absolute landing-origin assets in their normal form', async () => {
    expect(await rewrite('<img src="https://CUST.test:443/a.png">')).toBe('<img src="https://cust.test/a.png">');
  });

  it('leaves data:, blob:, javascript: and fragment-only values untouched', async () => {
    const html =
      '<img src="data:image/gif;base64,R0lGOD"><img src="blob:https://cust.test/1"><iframe src="about:blank"></iframe>' +
      '<a href="javascript:void(0)">j</a><a href="#top">t</a><a href="mailto:a@b.test">m</a><a href="tel:+1">t</a>';
    expect(await rewrite(html)).toBe(html);
  });
});

describe('navigation URLs', () => {
  it('makes an anchor to a route the community site serves relative, with its query and fragment', async () => {
    expect(await rewrite('<a href="/blog/post?x=1#c">p</a>')).toBe('<a href="/blog/post?x=1#c">p</a>');
    expect(await rewrite('<a href="https://cust.test/blog/post?x=1#c">p</a>')).toBe('<a href="/blog/post?x=1#c">p</a>');
  });

  it('strips the landing base path from links to served routes', async () => {
    expect(await rewrite('<a href="https://cust.test/site/blog/post">p</a>', SITE)).toBe('<a href="/blog/post">p</a>');
    expect(await rewrite('<a href="other">p</a>', SITE)).toBe('<a href="/blog/other">p</a>');
  });

  it('keeps links to routes the community site does not serve on the landing host', async () => {
    expect(await rewrite('<a href="/about">a</a>')).toBe('<a href="https://cust.test/about">a</a>');
    // Outside the base path: not a community path at all, even where /sitemap starts like /site.
    expect(await rewrite('<a href="/sitemap.xml">a</a>', SITE)).toBe('<a href="https://cust.test/sitemap.xml">a</a>');
  });

  it('leaves absolute links to other origins, fragments, mailto: and tel: untouched', async () => {
    const html =
      '<a href="https://other.test/blog/post">o</a><a href="#top">t</a><a href="mailto:x@cust.test">m</a><a href="tel:+1">t</a>';
    expect(await rewrite(html)).toBe(html);
  });

  it('rewrites form actions, formaction and area hrefs by the same rule', async () => {
    const out = await rewrite(
      '<form action="/blog/comment" method="post"><button formaction="/contact">c</button>' +
        '<input type="submit" formaction="/blog/x"></form><map><area href="/blog/a"></map>',
    );
    expect(out).toBe(
      '<form action="/blog/comment" method="post"><button formaction="https://cust.test/contact">c</button>' +
        '<input type="submit" formaction="/blog/x"></form><map><area href="/blog/a"></map>',
    );
  });

  it('treats canonical, alternate, prev and next links as navigation but an alternate stylesheet as an asset', async () => {
    const out = await rewrite(
      '<link rel="canonical" href="https://cust.test/blog/post"><link rel="next" href="/blog/page/2">' +
        '<link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="alternate stylesheet" href="/dark.css">',
    );
    expect(out).toBe(
      '<link rel="canonical" href="/blog/post"><link rel="next" href="/blog/page/2">' +
        '<link rel="alternate" type="application/rss+xml" href="https://cust.test/feed.xml"><link rel="alternate stylesheet" href="https://cust.test/dark.css">',
    );
  });
});

describe('a page with its own <base href>', () => {
  const html =
    '<html><head><link rel="stylesheet" href="s.css"><base href="https://cust.test/site/"></head>' +
    '<body><img src="img.png"><a href="blog/x">x</a></body></html>';

  it('resolves relative URLs against it, even those before it, and removes it', async () => {
    const out = await rewrite(html, SITE);
    expect(out).toContain('src="https://cust.test/site/img.png"');
    expect(out).toContain('href="/blog/x"');
    expect(out).toContain('href="https://cust.test/site/s.css"');
    expect(out.toLowerCase()).not.toContain('<base');
  });

  it('takes the first <base href> only', async () => {
    const out = await rewrite('<BASE HREF="/a/"><base href="/b/"><img src="i.png">');
    expect(out).toBe('<img src="https://cust.test/a/i.png">');
  });
});

describe('charset', () => {
  it('declares utf-8 in <meta charset> and in a content-type <meta http-equiv>', async () => {
    const out = await rewrite(
      '<meta charset="ISO-8859-1"><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><meta name="x" content="y">',
    );
    expect(out).toBe(
      '<meta charset="utf-8"><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><meta name="x" content="y">',
    );
  });
});

describe('charset of the bytes', () => {
  it('keeps non-ASCII text intact whatever charset the page declared (the caller decoded it)', async () => {
    const html = '<meta charset="iso-8859-1"><p>Caf\u00e9 \u00fc\u00df \u20ac \u{1F600}</p><img src="/\u00e4.png">';
    expect(await rewrite(html)).toBe(
      '<meta charset="utf-8"><p>Caf\u00e9 \u00fc\u00df \u20ac \u{1F600}</p><img src="https://cust.test/%C3%A4.png">',
    );
  });
});

describe('places for the chrome', () => {
  const page =
    '<!DOCTYPE html>\n<html lang="en"><head><title>T</title>\n</head>\n<body class="home" data-x=\'1\'>\n<p>Hi</p>\n</body>\n</html>\n';
  const chrome = { head: '<style>H</style>', header: '<svc-header></svc-header>', footer: '<svc-footer></svc-footer>' };

  it('marks head, header and footer in document order', async () => {
    const prepared = await prepareHtml(page, ROOT);
    expect(prepared.places).toEqual(['head', 'header', 'footer']);
    expect(prepared.parts).toHaveLength(4);
    expect(prepared.byteLength).toBeGreaterThanOrEqual(page.length);
  });

  it('puts head stuff before </head>, the header right after <body ...> and the footer right before </body>', async () => {
    const out = assemble(await prepareHtml(page, ROOT), chrome);
    expect(out).toBe(
      '<!DOCTYPE html>\n<html lang="en"><head><title>T</title>\n<style>H</style></head>\n' +
        '<body class="home" data-x=\'1\'><svc-header></svc-header>\n<p>Hi</p>\n<svc-footer></svc-footer></body>\n</html>\n',
    );
  });

  it('puts the head stuff before <body> when </head> is left out, and the footer at the end without </body>', async () => {
    const out = assemble(await prepareHtml('<head><title>T</title><body><p>x', ROOT), chrome);
    expect(out).toBe(
      '<head><title>T</title><style>H</style><body><svc-header></svc-header><p>x<svc-footer></svc-footer>',
    );
  });

  it('puts head and header at the very start and the footer at the end of a document without head or body', async () => {
    const prepared = await prepareHtml('<p>Just a fragment</p>', ROOT);
    expect(prepared.places).toEqual(['head', 'header', 'footer']);
    expect(assemble(prepared, chrome)).toBe(
      '<style>H</style><svc-header></svc-header><p>Just a fragment</p><svc-footer></svc-footer>',
    );
  });

  it('marks only the first <body>', async () => {
    const out = assemble(await prepareHtml('<body><p>a</p></body><body>b</body>', ROOT), chrome);
    expect(out.split('<svc-header>')).toHaveLength(2);
    expect(out.split('<svc-footer>')).toHaveLength(2);
  });

  it('never leaks a marker into the page, even with empty chrome', async () => {
    for (const html of [page, '<p>x', '<body>x</body>']) {
      const prepared = await prepareHtml(html, ROOT);
      const out = assemble(prepared, { head: '', header: '', footer: '', loader: '' });
      expect(out).not.toContain('svc-place');
      expect(assemble(prepared, {})).toBe(out);
      expect(out).toBe(html);
    }
  });

  it('cuts only where it put markers, even when the page quotes a marker-looking comment', async () => {
    const html = '<body><!--svc-place:00000000-0000-0000-0000-000000000000:footer--><p>x</p></body>';
    const prepared = await prepareHtml(html, ROOT);
    expect(prepared.places).toEqual(['head', 'header', 'footer']);
    expect(assemble(prepared, {})).toBe(html);
  });
});

describe('headless', () => {
  const isLoaderScript = (src: URL): boolean => src.pathname.endsWith('/widgets/loader.js');
  const headless = ctx('https://cust.test', '/blog/post', { headless: true, isLoaderScript });

  it('has no place at all when the page already loads the widget loader', async () => {
    const html =
      '<html><head><script type="module" src="https://svc.test/widgets/loader.js"></script></head><body><svc-header></svc-header></body></html>';
    const prepared = await prepareHtml(html, headless);
    expect(prepared.places).toEqual([]);
    expect(assemble(prepared, { loader: '<script src="/x"></script>' })).toBe(html);
  });

  it("leaves a root-relative loader as written: it is the community host's own", async () => {
    const html =
      '<html><head><script src="/widgets/loader.js" async></script></head><body><svc-header></svc-header></body></html>';
    const prepared = await prepareHtml(html, headless);
    expect(prepared.places).toEqual([]);
    expect(assemble(prepared, {})).toBe(html);
  });

  it('marks a loader place before </body> when the page has no loader', async () => {
    const prepared = await prepareHtml('<head></head><body><svc-header></svc-header><p>x</p></body>', headless);
    expect(prepared.places).toEqual(['loader']);
    expect(assemble(prepared, { loader: '<script src="/widgets/loader.js"></script>', header: 'NO' })).toBe(
      '<head></head><body><svc-header></svc-header><p>x</p><script src="/widgets/loader.js"></script></body>',
    );
  });

  it('recognises a loader written relative to the page', async () => {
    const prepared = await prepareHtml('<body><script src="/widgets/loader.js"></script></body>', headless);
    expect(prepared.places).toEqual([]);
  });

  it('puts the loader place at the end of a page without </body>', async () => {
    const prepared = await prepareHtml('<p>x', headless);
    expect(prepared.places).toEqual(['loader']);
    expect(assemble(prepared, { loader: 'L' })).toBe('<p>xL');
  });
});

describe('what is not a URL stays byte for byte', () => {
  it('keeps inline scripts, inline styles, comments and text identical', async () => {
    const inline =
      '<script>var s = "<a href=\\"/blog/x\\">"; if (a < b && c > d) {}</script>' +
      '<style>body{background:url(/img/bg.png)} a[href^="/"]{}</style>' +
      '<!-- <img src="/not/an/image.png"> -->' +
      '<p style="background:url(/x.png)">Caf\u00e9 &amp; &lt;tags&gt; \u{1F600} <b>bold</b></p>';
    const html = `<html><head>${inline}</head><body>${inline}<img src="/a.png" alt='keep &amp; "quoted"'></body></html>`;
    const out = await rewrite(html);
    expect(out).toBe(html.replace('src="/a.png"', 'src="https://cust.test/a.png"'));
  });

  it('reads entities in a URL attribute and writes quotes and ampersands back escaped, in the quotes it had', async () => {
    const out = await rewrite(`<a href='/blog/post?a=1&amp;b="2"&#38;c=it&#39;s'>x</a>`);
    // The browser reads ?a=1&b="2"&c=it's; the URL parser percent-encodes the quotes.
    expect(out).toBe(`<a href='/blog/post?a=1&amp;b=%222%22&amp;c=it%27s'>x</a>`);
    const unquoted = await rewrite('<img src=/i.png?a=1&amp;b=2 alt=x>');
    expect(unquoted).toBe('<img src="https://cust.test/i.png?a=1&amp;b=2" alt=x>');
    const img = await rewrite('<img src="/i.png?a=1&amp;b=2" alt="x">');
    expect(img).toBe('<img src="https://cust.test/i.png?a=1&amp;b=2" alt="x">');
  });

  it('escapes a double quote that survives URL parsing (in the fragment)', async () => {
    const out = await rewrite(`<a href='/blog/post#say-"hi"&amp;bye'>x</a>`);
    expect(out).toBe(`<a href='/blog/post#say-%22hi%22&amp;bye'>x</a>`);
    const single = await rewrite(`<a href="/about#it's">x</a>`);
    expect(single).toBe(`<a href="https://cust.test/about#it's">x</a>`);
  });
});

describe('concurrent pages', () => {
  it('rewrites pages prepared at the same time independently', async () => {
    const pages = Array.from(
      { length: 20 },
      (_, i) => `<body><a href="/blog/${i}">${i}</a><img src="/i/${i}.png"></body>`,
    );
    const results = await Promise.all(pages.map((p) => rewrite(p)));
    results.forEach((out, i) => {
      expect(out).toBe(`<body><a href="/blog/${i}">${i}</a><img src="https://cust.test/i/${i}.png"></body>`);
    });
  });
});

describe('srcset parsing', () => {
  it('finds candidate URLs the way the HTML spec splits them', () => {
    const spans = (s: string): string[] => srcsetUrlSpans(s).map(([a, b]) => s.slice(a, b));
    expect(spans('a.png')).toEqual(['a.png']);
    expect(spans(' a.png 1x , b.png 2x ')).toEqual(['a.png', 'b.png']);
    // A URL is a run of non-spaces: a comma inside it is part of it, trailing commas end it.
    expect(spans('a.png,b.png 2x')).toEqual(['a.png,b.png']);
    expect(spans('a.png,, b.png 2x')).toEqual(['a.png', 'b.png']);
    expect(spans('a,b.png 1x,c.png 2x')).toEqual(['a,b.png', 'c.png']);
    expect(spans('a.png (min-width: 1px, 2px) 1x, b.png')).toEqual(['a.png', 'b.png']);
    expect(spans(',, ,')).toEqual([]);
  });
});

describe('root-relative values resolved without the URL parser', () => {
  it('gives what the URL parser gives, for plain values and for every character that sends a value to the parser', () => {
    const base = new URL('https://cust.test/x/y');
    const urls = new UrlRewriter({ base, landing: new URL('https://cust.test'), servesPath: () => true });
    const values = [
      '/blog/post-7',
      '/blog/post-7?p=2&q=a,b;c:d@e!f$g*h(i)+j=k~l_m#frag',
      '/a//b/',
      '/',
      '/a.png?x=/./y',
      '/a/./b',
      '/a/../b',
      '/a/..',
      '/.well-known/x',
      '/a b',
      '/a%2e%2e/b',
      "/it's?q='x'",
      '/a"b',
      '/a<b>',
      '/a^b|c`d{e}f[g]',
      '/a\\b',
      '/caf\u00e9',
      '/a#b#c',
      '/a#b c',
      '/a?b#c?d',
    ];
    for (const v of values) {
      const parsed = new URL(v, base);
      expect(urls.asset(v), v).toBe(parsed.href);
      expect(urls.navigation(v), v).toBe(parsed.pathname + parsed.search + parsed.hash);
    }
  });
});
