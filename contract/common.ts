// Building blocks shared by resource, request and fixture schemas.
import { z } from 'zod';
import { coded } from './errors.ts';

// What text may hold. PostgreSQL refuses NUL in text and unpaired UTF-16 surrogates in jsonb, and
// control characters are never what a person typed, so no string of any request carries them (the
// server checks every string of every path, query and body: server/http/validate.ts). Text that
// can span lines keeps tab, line feed and carriage return; one-line text (names, titles, tags,
// e-mails, path and query values) keeps none of the C0 controls.

/** The C0 controls and DEL that no text keeps; multi-line text keeps tab, LF and CR. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** Every C0 control and DEL: the characters one-line text refuses (also the `Line` pattern the document shows). */
const LINE_CONTROLS = '\\u0000-\\u001f\\u007f';
const CONTROL_IN_LINE = new RegExp(`[${LINE_CONTROLS}]`);
const ONE_LINE = new RegExp(`^[^${LINE_CONTROLS}]*$`);
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` is refused, or null when it is fine. */
export function refusedText(text: string, kind: 'line' | 'text'): 'control character' | 'unpaired surrogate' | null {
  if ((kind === 'line' ? CONTROL_IN_LINE : CONTROL_IN_TEXT).test(text)) return 'control character';
  if (LONE_SURROGATE.test(text)) return 'unpaired surrogate';
  return null;
}

/**
 * One line of text (names, titles, labels), trimmed: no control characters at all, tab and line
 * breaks included. Multi-line text is a plain z.string(); the server refuses its other controls.
 */
export const Line = (max: number) =>
  z.string().trim().max(max).regex(ONE_LINE, 'must be one line of text without control characters');

export const Uuid = z.string().uuid();
export const IsoDateTime = z.iso.datetime({
  offset: true,
  error: coded('INVALID_DATE', 'must be an ISO 8601 date-time'),
});
export const Slug = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, {
    error: coded('INVALID_SLUG', 'must be lowercase letters, digits and single hyphens'),
  });
export const CommunityTag = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, { error: coded('INVALID_SLUG', 'must be lowercase letters, digits and hyphens') });
export const Email = z.email({ error: coded('INVALID_EMAIL', 'must be an e-mail address') }).max(254);
/** The page-visibility rule of the reads of a page's content, for route descriptions (docs/api.md). */
export const pageVisibilityNote = (page: string) =>
  `When the ${page} page is members-only, the publishable key gets 403 PAGE_MEMBERS_ONLY; secret keys are not gated by page visibility.`;
/** Money in the smallest currency unit. */
export const AmountCents = z
  .int({ error: coded('INVALID_AMOUNT', 'must be a non-negative integer in the smallest currency unit') })
  .min(0, { error: coded('INVALID_AMOUNT', 'must be a non-negative integer in the smallest currency unit') });
export const Currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code')
  .overwrite((c) => c.toUpperCase());
export const HexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex color');
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

/** The URL parser's reading of `text`, or null. */
function parsedUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** Stripe's placeholder in a success URL: the parser would percent-encode its braces in a path. */
const SESSION_ID_PLACEHOLDER = '{CHECKOUT_SESSION_ID}';

/**
 * A URL a checkout sends its buyer back to (successUrl, cancelUrl). Stored and handed to the
 * payment processor as the URL parser normalises it (`href`: `\` read as `/`, tabs and newlines
 * gone, dot segments resolved, lower-case host), so every later reader (a browser, Stripe, an
 * e-mail client) sees the same host the origin rule judged; `{CHECKOUT_SESSION_ID}` is kept as
 * is. Credentials in the URL are refused: no return URL needs them.
 */
export const ReturnUrl = HttpUrl.refine((text) => {
  const url = parsedUrl(text);
  return !url || (!url.username && !url.password);
}, 'must not contain a user name or password').overwrite(
  (text) => parsedUrl(text)?.href.replaceAll(encodeURI(SESSION_ID_PLACEHOLDER), SESSION_ID_PLACEHOLDER) ?? text,
);

/**
 * Schemas the OpenAPI document shows by what they mean rather than by their wire spelling, with
 * the JSON Schema to show instead (server/openapi/schemas.ts applies it).
 */
export const documentedAs = z.registry<{ type: 'boolean' }>();

/**
 * Query-string boolean: only `true`/`false`/`1`/`0` are accepted, anything else is a 400. The
 * document declares it `type: boolean`, so generated clients take a boolean (openapi-fetch and
 * others write it as `true`/`false`) instead of a union of four strings.
 */
export const QueryBool = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1')
  .register(documentedAs, { type: 'boolean' });

export const Limit = z.coerce
  .number({ error: 'must be an integer from 1 to 100' })
  .int('must be an integer from 1 to 100')
  .min(1)
  .max(100)
  .default(20);
/** Without a default, so a list can tell "no offset" (cursor paging allowed) from `offset=0`. */
export const OptionalOffset = z.coerce
  .number({ error: 'must be a non-negative integer' })
  .int('must be a non-negative integer')
  .min(0)
  .optional();
