// prepareBroadcastContent: what a broadcast stores for its html and text parts.
import { describe, expect, it } from 'vitest';
import { htmlToText, prepareBroadcastContent as prepare } from '../../server/broadcasts/content.ts';
import { sanitizeArticleHtml } from '../../server/domain/article-html.ts';

const prepareBroadcastContent = (input: Parameters<typeof prepare>[0]) => prepare(input, sanitizeArticleHtml);

describe('prepareBroadcastContent', () => {
  it('sanitizes the html with the article sanitizer', () => {
    const { html } = prepareBroadcastContent({ html: '<p onclick="x()">Hi<script>alert(1)</script></p>' });
    expect(html).toBe('<p>Hi</p>');
  });

  it('keeps a given text part as given, even beside html', () => {
    const text = '  Hello {{name}},\n\n\tsee you  ';
    expect(prepareBroadcastContent({ html: '<p>Other</p>', text })).toEqual({ html: '<p>Other</p>', text });
  });

  it('stores no html for a text-only broadcast', () => {
    expect(prepareBroadcastContent({ text: 'Plain' })).toEqual({ html: null, text: 'Plain' });
  });

  it('derives the text part from the sanitized html, never from what the sanitizer removed', () => {
    const { text } = prepareBroadcastContent({ html: '<p>Visible</p><script>hidden()</script><style>p{}</style>' });
    expect(text).toBe('Visible');
  });
});

describe('htmlToText', () => {
  it('keeps headings as written so {{name}} survives', () => {
    expect(htmlToText('<h1>Hello {{name}}</h1><h2>Second</h2><p>Body</p>')).toBe('Hello {{name}}\n\n\nSecond\n\nBody');
  });

  it('writes links as text [url], and a link whose text is its url once', () => {
    expect(htmlToText('<p>Read <a href="https://example.com/a">this</a></p>')).toBe(
      'Read this [https://example.com/a]',
    );
    expect(htmlToText('<p><a href="https://example.com/">https://example.com/</a></p>')).toBe('https://example.com/');
  });

  it('keeps line breaks and list items on lines of their own', () => {
    expect(htmlToText('<p>one<br>two</p><ul><li>a</li><li>b</li></ul>')).toBe('one\ntwo\n\n * a\n * b');
  });

  it('wraps at 78 columns without breaking a spaced {{ name }} placeholder', () => {
    const text = htmlToText(`<p>${'word '.repeat(14)}abc {{  name }} tail</p>`);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(78);
    expect(text).toContain('{{name}}');
    expect(text.replace(/\s+/g, ' ')).toBe(`${'word '.repeat(14)}abc {{name}} tail`);
  });
});
