// The article sanitizer against known XSS vectors and random HTML. Outputs are judged by parsing
// them (htmlparser2, and Chromium's own HTML parser for the vector list), never by string
// matching alone: what matters is which elements, attributes and URLs a browser ends up with.
import { chromium, type Browser, type Page } from '@playwright/test';
import fc from 'fast-check';
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTICLE_TAGS,
  EMBED_SANDBOX,
  LINK_REL,
  readTimeMinutes,
  sanitizeArticleHtml as sanitize,
} from '../../server/domain/article-html.ts';

const ALLOWED_TAGS = new Set<string>(ARTICLE_TAGS);
const URL_RULES: Record<string, { attr: string; schemes: string[] }> = {
  a: { attr: 'href', schemes: ['http:', 'https:', 'mailto:'] },
  img: { attr: 'src', schemes: ['http:', 'https:'] },
  iframe: { attr: 'src', schemes: ['https:'] },
};
const EMBED_HOSTS = ['www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com'];

/** Every reason `html` (a sanitizer output) would be unsafe, as a browser-independent parse sees it. */
function violations(html: string): string[] {
  const found: string[] = [];
  const walk = (nodes: ChildNode[]) => {
    for (const node of nodes) {
      if (node.type === 'script' || node.type === 'style') found.push(`<${(node as Element).name}> element`);
      if (node.type === 'comment' || node.type === 'directive' || node.type === 'cdata')
        found.push(`${node.type} node`);
      if (!('attribs' in node)) continue;
      const el = node as Element;
      if (!ALLOWED_TAGS.has(el.name)) found.push(`<${el.name}> is not allowed`);
      for (const [name, value] of Object.entries(el.attribs)) {
        if (/^on/i.test(name)) found.push(`event handler ${name} on <${el.name}>`);
        if (['style', 'srcset', 'formaction', 'action', 'xlink:href', 'background', 'data', 'srcdoc'].includes(name)) {
          found.push(`${name} on <${el.name}>`);
        }
        if (['href', 'src', 'cite'].includes(name)) {
          const rule = URL_RULES[el.name];
          let url: URL | null = null;
          try {
            url = new URL(value);
          } catch {
            /* relative: not allowed either */
          }
          if (!rule || rule.attr !== name || !url || !rule.schemes.includes(url.protocol))
            found.push(`${name}="${value}" on <${el.name}>`);
          if (el.name === 'iframe' && url && !EMBED_HOSTS.includes(url.hostname))
            found.push(`iframe from ${url.hostname}`);
        }
      }
      if (el.name === 'iframe' && el.attribs.sandbox !== EMBED_SANDBOX) found.push('iframe without the forced sandbox');
      if (el.name === 'a' && el.attribs.rel !== LINK_REL) found.push('link without the forced rel');
      if (el.name === 'a' && el.attribs.target !== undefined && el.attribs.target !== '_blank')
        found.push(`target=${el.attribs.target}`);
      walk(el.children);
    }
  };
  walk(parseDocument(html).children);
  // Text is always escaped, so every raw `<name` in the output is a real tag: check them without
  // trusting any parser.
  for (const m of html.matchAll(/<\/?([^\s/>]+)/g)) {
    if (!ALLOWED_TAGS.has(m[1])) found.push(`raw tag <${m[1]}>`);
  }
  return found;
}

// OWASP XSS filter evasion cheat sheet style, plus the mutation-XSS classics.
const VECTORS: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(1);">',
  '<IMG SRC=javascript:alert(1)>',
  '<IMG SRC=`javascript:alert(1)`>',
  '<img src="https://ok.example/a.png" onerror="alert(1)" onload=alert(2)>',
  '<img """><script>alert(1)</script>">',
  '<img srcset="javascript:alert(1) 1x, https://ok.example/a.png 2x" src="https://ok.example/a.png">',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">click</text></a></svg>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="jAvAsCrIpT:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
  '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="jav&#x0A;ascript:alert(1)">x</a>',
  '<a href="jav&Tab;ascript&colon;alert(1)">x</a>',
  '<a href="java\tscript:alert(1)">x</a>',
  '<a href="java\nscript:alert(1)">x</a>',
  '<a href=" &#14;  javascript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<a href="//evil.example/">protocol relative</a>',
  '<a href="https://ok.example" target="_top" onclick="alert(1)" style="position:fixed">x</a>',
  '<iframe src="https://evil.example/embed/x"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="https://www.youtube.com.evil.example/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com/watch?v=x" sandbox="allow-top-navigation allow-forms"></iframe>',
  '<iframe src="https://player.vimeo.com/video/1" sandbox="allow-top-navigation" onload="alert(1)"></iframe>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<style>@import "https://evil.example/x.css";</style><p>after</p>',
  '<style><img src=x onerror=alert(1)></style>',
  '<div style="width: expression(alert(1));">x</div>',
  '<p style="background:url(javascript:alert(1))">x</p>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button formaction="javascript:alert(2)">go</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<table background="javascript:alert(1)"><tr><td onmouseover=alert(1)>x</td></tr></table>',
  '<details open ontoggle=alert(1)>',
  '<body onload=alert(1)>',
  '<input autofocus onfocus=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<textarea><img src=x onerror=alert(1)></textarea>',
  '<xmp><img src=x onerror=alert(1)></xmp>',
  '<template><img src=x onerror=alert(1)></template>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<![CDATA[<img src=x onerror=alert(1)>]]>',
  '<a href="https://ok.example">ok</a><a/href="javascript:alert(1)">slash</a>',
  '<img src=x:alert(alt) onerror=eval(src) alt=0>',
  '<blockquote cite="javascript:alert(1)">q</blockquote>',
  '<code class="language-js" onclick=alert(1)>x</code>',
];

let browser: Browser;
let page: Page;
let dialogs = 0;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  page = await browser.newPage();
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  // Nothing leaves the machine: every sub-resource is refused (so onerror paths do run).
  await page.route('**/*', (route) => (route.request().url().startsWith('about:') ? route.continue() : route.abort()));
  await page.setContent('<!doctype html><html><body><main id="out"></main></body></html>');
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('article html: happy path', () => {
  it('keeps the article allow-list intact', () => {
    const html =
      '<h2>Title</h2><p>Text with <em>em</em>, <strong>strong</strong> and <a href="https://example.com/x" target="_blank">a link</a>.</p>' +
      '<ul><li>one</li></ul><ol start="3"><li>three</li></ol><blockquote>quote</blockquote><pre><code class="language-ts">const a = 1;</code></pre>' +
      '<figure><img src="https://img.example/a.png" alt="A" width="10" height="20" /><figcaption>Cap</figcaption></figure>' +
      '<table><thead><tr><th scope="col">H</th></tr></thead><tbody><tr><td colspan="2">D</td></tr></tbody></table><hr /><br />' +
      '<p><a href="mailto:hello@example.com">mail</a></p>';
    expect(sanitize(html)).toBe(
      html
        .replace('target="_blank"', `target="_blank" rel="${LINK_REL}"`)
        .replace('href="mailto:hello@example.com"', `href="mailto:hello@example.com" rel="${LINK_REL}"`),
    );
  });

  it('keeps YouTube, youtube-nocookie and Vimeo embeds with a forced sandbox', () => {
    for (const src of [
      'https://www.youtube.com/embed/abc',
      'https://www.youtube-nocookie.com/embed/abc',
      'https://youtube.com/embed/x',
      'https://player.vimeo.com/video/42',
    ]) {
      const out = sanitize(
        `<iframe src="${src}" width="560" height="315" allowfullscreen sandbox="allow-top-navigation" allow="camera"></iframe>`,
      );
      expect(out).toBe(
        `<iframe src="${src}" sandbox="${EMBED_SANDBOX}" width="560" height="315" allowfullscreen></iframe>`,
      );
    }
  });

  it('escapes text and keeps it', () => {
    expect(sanitize('a & b < c > d')).toBe('a &amp; b &lt; c &gt; d');
    expect(sanitize('<div>inside an unknown tag</div>')).toBe('inside an unknown tag');
  });

  it('counts read time from words at 225 a minute, rounded up, at least 1', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'w').join(' ');
    expect(readTimeMinutes('')).toBe(1);
    expect(readTimeMinutes(`<p>${words(225)}</p>`)).toBe(1);
    expect(readTimeMinutes(`<p>${words(225)}</p><p>w</p>`)).toBe(2);
    expect(readTimeMinutes('<p>one</p><p>two</p>'.repeat(300))).toBe(3);
  });
});

describe('article html: errors', () => {
  it('drops embeds from hosts off the allow-list, and non-embed paths of allowed hosts', () => {
    expect(sanitize('<p>a</p><iframe src="https://evil.example/embed/x">t</iframe><p>b</p>')).toBe('<p>a</p><p>b</p>');
    expect(sanitize('<iframe src="https://www.youtube.com/watch?v=x"></iframe>')).toBe('');
    expect(sanitize('<iframe src="http://www.youtube.com/embed/x"></iframe>')).toBe('');
    expect(sanitize('<iframe src="https://user:pw@player.vimeo.com/video/1"></iframe>')).toBe('');
  });

  it('drops relative, protocol-relative and non-http(s) URLs but keeps the element', () => {
    expect(sanitize('<a href="/local">x</a>')).toBe(`<a rel="${LINK_REL}">x</a>`);
    expect(sanitize('<a href="//evil.example">x</a>')).toBe(`<a rel="${LINK_REL}">x</a>`);
    expect(sanitize('<img src="data:image/png;base64,AAAA" alt="d">')).toBe('<img alt="d" />');
    expect(sanitize('<a href="ftp://files.example/x">x</a>')).toBe(`<a rel="${LINK_REL}">x</a>`);
  });
});

describe('article html: security', () => {
  it.each(VECTORS.map((v) => [v]))('neutralizes %s', (vector) => {
    const out = sanitize(vector);
    expect(violations(out)).toEqual([]);
    expect(sanitize(out)).toBe(out);
  });

  it("leaves nothing dangerous once Chromium's parser reads the outputs, and nothing runs when they are rendered", async () => {
    const outputs = VECTORS.map((v) => sanitize(v));
    const problems = await page.evaluate(
      ({ outputs: outs, allowed }) => {
        const found: string[] = [];
        for (const html of outs) {
          const t = document.createElement('template');
          t.innerHTML = html;
          for (const el of Array.from(t.content.querySelectorAll('*'))) {
            const name = el.localName;
            if (!allowed.includes(name) || el.namespaceURI !== 'http://www.w3.org/1999/xhtml')
              found.push(`${html}: <${name}>`);
            for (const a of Array.from(el.attributes)) {
              if (/^on/i.test(a.name) || ['style', 'srcset', 'srcdoc', 'formaction', 'action'].includes(a.name))
                found.push(`${html}: ${a.name}`);
              if (['href', 'src', 'cite'].includes(a.name)) {
                const protocol = new URL(a.value, 'https://base.invalid/').protocol;
                if (!['http:', 'https:', 'mailto:'].includes(protocol)) found.push(`${html}: ${a.name}=${a.value}`);
              }
            }
          }
        }
        return found;
      },
      { outputs, allowed: [...ALLOWED_TAGS] },
    );
    expect(problems).toEqual([]);

    // Render every output live; any handler or script that survived would raise a dialog.
    const before = dialogs;
    await page.evaluate((html) => {
      document.getElementById('out')!.innerHTML = html;
    }, outputs.join('\n'));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    expect(dialogs - before).toBe(0);
    // The same vectors unsanitized do raise dialogs, so the check above can see an attack.
    await page.evaluate((html) => {
      document.getElementById('out')!.innerHTML = html;
    }, '<img src="https://x.invalid/a.png" onerror="alert(1)">');
    await expect.poll(() => dialogs - before, { timeout: 5000 }).toBeGreaterThan(0);
  }, 30_000);

  // A grammar of tags, attributes and values, dangerous ones included, nested and unbalanced.
  const tagNames = fc.constantFrom(
    ...ARTICLE_TAGS,
    'script',
    'style',
    'svg',
    'math',
    'object',
    'embed',
    'form',
    'meta',
    'base',
    'link',
    'noscript',
    'textarea',
    'xmp',
    'template',
    'div',
    'span',
    'input',
    'button',
    'details',
    'video',
    'source',
    'body',
    'html',
    'title',
    'mtext',
    'mglyph',
    'foreignObject',
    'SCRIPT',
    'ImG',
    'A',
  );
  const attrNames = fc.constantFrom(
    'href',
    'src',
    'srcset',
    'style',
    'onclick',
    'onerror',
    'onload',
    'ONMOUSEOVER',
    'onfocus',
    'xlink:href',
    'formaction',
    'action',
    'data',
    'srcdoc',
    'background',
    'target',
    'rel',
    'sandbox',
    'class',
    'title',
    'alt',
    'cite',
    'allowfullscreen',
    'http-equiv',
    'content',
    'width',
    'colspan',
    'id',
    'name',
  );
  const schemePrefixes = fc.constantFrom(
    'javascript:',
    'JaVaScRiPt:',
    'java\tscript:',
    'java\nscript:',
    ' javascript:',
    '\u0001javascript:',
    'jav&#x09;ascript:',
    '&#106;avascript:',
    'javascript&colon;',
    'vbscript:',
    'data:text/html,',
    'data:image/svg+xml,',
    'http://',
    'https://',
    'https://www.youtube.com/embed/',
    'https://player.vimeo.com/video/',
    'https://evil.example/embed/',
    'mailto:',
    '//',
    '/',
    '#',
    '',
  );
  const values = fc.oneof(
    fc
      .tuple(
        schemePrefixes,
        fc.constantFrom('alert(1)', 'x.example/a', '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', ''),
      )
      .map(([a, b]) => a + b),
    fc.constantFrom(
      '_blank',
      '_top',
      'expression(alert(1))',
      'language-js',
      'allow-top-navigation',
      '0;url=javascript:alert(1)',
      'refresh',
    ),
    fc.string({ maxLength: 12 }),
  );
  const quote = fc.constantFrom('"', "'", '');
  const attr = fc
    .tuple(attrNames, quote, values)
    .map(([n, q, v]) => (q ? `${n}=${q}${v.replaceAll(q, '')}${q}` : `${n}=${v.replace(/[\s>]/g, '')}`));
  const text = fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom(
      '</noscript>',
      '<!--',
      '-->',
      ']]>',
      '<![CDATA[',
      '&lt;script&gt;',
      '</textarea>',
      '</style>',
      '<',
      '>',
      '&',
      '"',
    ),
  );
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text,
      fc
        .tuple(tagNames, fc.array(attr, { maxLength: 4 }), fc.array(tie('node'), { maxLength: 4 }), fc.boolean())
        .map(
          ([tag, attrs, children, close]) =>
            `<${[tag, ...attrs].join(' ')}>${children.join('')}${close ? `</${tag}>` : ''}`,
        ),
    ),
  }));
  const html = fc.array(node, { maxLength: 5 }).map((parts) => parts.join(''));

  it('never lets an event handler, a script element or a non-allowed URL scheme through random HTML', () => {
    fc.assert(
      fc.property(html, (input) => {
        expect(violations(sanitize(input))).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  }, 30_000);

  it('is idempotent on random HTML: sanitize(sanitize(x)) === sanitize(x)', () => {
    fc.assert(
      fc.property(html, (input) => {
        const once = sanitize(input);
        expect(sanitize(once)).toBe(once);
      }),
      { numRuns: 1500 },
    );
  }, 30_000);
});
