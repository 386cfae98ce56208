// A broadcast's body as stored: the html sanitized like an article's, and a text part, given or
// derived from that sanitized html. The dispatcher's render replaces `{{name}}` per recipient in
// both, so the derivation must keep the placeholder intact (no upper-cased headings, no wrapping
// inside the braces).
//
// The sanitizer is handed in (server/domain/broadcasts.ts passes sanitizeArticleHtml): domain/
// imports this folder (the audience, the wake-up), so this folder importing domain/ would make
// the folder cycle tests/unit/architecture.test.ts refuses.
import { convert } from 'html-to-text';

export interface BroadcastContentInput {
  html?: string | null;
  text?: string | null;
}

export interface BroadcastContent {
  /** Sanitized; null for a text-only broadcast. */
  html: string | null;
  text: string;
}

/** `{{name}}`, with any spaces inside the braces: the one placeholder a broadcast has. */
export const NAME_PLACEHOLDER = /\{\{\s*name\s*\}\}/g;

/** Line width of a derived text part: what mail clients show without wrapping again. */
const WRAP = 78;

const NO_UPPERCASE = { uppercase: false };

/** The text part of sanitized html: headings as written, links as `text [url]`, wrapped at 78. */
export function htmlToText(html: string): string {
  // `{{ name }}` has spaces the wrap could break at; written compactly it is one word.
  return convert(html.replace(NAME_PLACEHOLDER, '{{name}}'), {
    wordwrap: WRAP,
    selectors: [
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: NO_UPPERCASE })),
      { selector: 'table', options: { uppercaseHeaderCells: false } },
      // Same-text links (`<a href="https://x">https://x</a>`) are shown once.
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ],
  }).trim();
}

/**
 * What is stored for a broadcast: at least one of html and text is given (the contract refuses a
 * body without both). An html that sanitizes to nothing visible still derives a text part; the
 * caller decides whether an empty result is acceptable.
 */
export function prepareBroadcastContent(
  input: BroadcastContentInput,
  sanitizeHtml: (html: string) => string,
): BroadcastContent {
  const html = input.html === undefined || input.html === null ? null : sanitizeHtml(input.html);
  const given = input.text === undefined || input.text === null ? null : input.text;
  const text = given ?? (html === null ? '' : htmlToText(html));
  return { html, text };
}
