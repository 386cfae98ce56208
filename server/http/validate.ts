// Input validation in one place. Every string of a request's path, query and body is checked for
// what no text may hold (control characters, unpaired surrogates: contract/common.ts) before its
// zod schema runs; zod failures become the 400 envelope with `extras.field`. Schemas may pin a
// stable code by writing their message as `[CODE] text` (see contract/errors.ts `coded`).
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { refusedText } from '../../contract/common.ts';
import { splitCoded } from '../../contract/errors.ts';
import { expressPath, type RouteDef } from '../../contract/route.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';

type Where = 'params' | 'query' | 'body';

export function toApiError(error: z.ZodError, where: Where): ApiError {
  const issue = error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]].join('.');
    return new ApiError('INVALID_INPUT', messages.unknownField(field), { field });
  }
  const field = path.length ? path.join('.') : where;
  const { code, message } = splitCoded(issue.message);
  // Required fields read better as "x is required" than zod's "expected string, received undefined".
  const text =
    issue.code === 'invalid_type' && /received undefined/.test(issue.message)
      ? `${field} is required`
      : `${field}: ${message}`;
  return new ApiError(code ?? 'INVALID_INPUT', text, { field });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.output<S> {
  // Path and query values are one line by nature; bodies may hold multi-line text, and their
  // one-line fields say so in their schema (`Line`).
  assertPlainText(value, where === 'body' ? 'text' : 'line', where);
  const result = schema.safeParse(value);
  if (!result.success) throw toApiError(result.error, where);
  return result.data;
}

/**
 * How deep a body's arrays and objects may nest. Free-form parts (storefrontConfig's) take any
 * JSON, and a few kilobytes of `[[[[...` would otherwise exhaust the stack of this walk (and of
 * zod's and the database's after it): a 500 where a 400 is due.
 */
export const MAX_NESTING = 64;

/**
 * Refuses the first string (or object key) anywhere in `value` that holds what no text may,
 * naming it by its dotted path as zod failures are named. A key is named by the object it is in.
 */
export function assertPlainText(value: unknown, kind: 'line' | 'text', where: Where, at: string[] = []): void {
  const field = () => (at.length ? at.join('.') : where);
  if (at.length > MAX_NESTING && typeof value === 'object' && value !== null)
    throw new ApiError('INVALID_INPUT', messages.nestedTooDeeply(field(), MAX_NESTING), { field: field() });
  if (typeof value === 'string') {
    const why = refusedText(value, kind);
    if (why) throw new ApiError('INVALID_INPUT', messages.refusedText(field(), why), { field: field() });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => assertPlainText(item, kind, where, [...at, String(i)]));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const why = refusedText(key, 'line');
      if (why) throw new ApiError('INVALID_INPUT', messages.refusedKey(field(), why), { field: field() });
      assertPlainText(item, kind, where, [...at, key]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The URL, before any route runs
// ---------------------------------------------------------------------------------------------

/** The route-table path templates, split in segments, to name a path parameter in an error. */
function templatesOf(routes: readonly RouteDef[]): string[][] {
  return [...new Set(routes.map((r) => expressPath(r.path)))].map((p) => p.split('/'));
}

/**
 * The name of the path parameter at segment `index` of `segments`, when a route of the table has
 * a parameter there and its other literal segments match; else `path`.
 */
function pathFieldAt(templates: string[][], segments: string[], index: number): string {
  for (const template of templates) {
    if (template.length !== segments.length || !template[index].startsWith(':')) continue;
    if (template.every((t, i) => i === index || t.startsWith(':') || t === segments[i]))
      return template[index].slice(1);
  }
  return 'path';
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * Judges the URL before any route reads it, so no route can 500 on it, contract route or not
 * (site pages, widget-action preflights, checkout pages, the Stripe webhook): a path segment that
 * is not valid percent-encoded UTF-8 or holds a control character, and a query key or value that
 * is not valid percent-encoded UTF-8 or holds NUL, is a 400 naming the path parameter (or `path`)
 * or the query parameter (or `query`). Other controls in query values are left to each route:
 * contract routes refuse them when they validate the query (parseOrThrow); a page that takes a
 * return path judges that path itself.
 */
export function refuseUnreadableUrl(routes: readonly RouteDef[]): RequestHandler {
  const templates = templatesOf(routes);
  return (req, _res, next) => {
    const url = req.url;
    // Nothing to decode: the HTTP parser has already refused raw control bytes.
    if (!url.includes('%')) return next();
    const q = url.indexOf('?');
    const segments = (q < 0 ? url : url.slice(0, q)).split('/');
    for (const [i, segment] of segments.entries()) {
      if (!segment.includes('%')) continue;
      const text = decoded(segment);
      const why = text === null ? 'encoding' : refusedText(text, 'line');
      if (why) {
        const field = pathFieldAt(templates, segments, i);
        throw new ApiError(
          'INVALID_INPUT',
          why === 'encoding' ? messages.badPathEncoding(field) : messages.refusedText(field, why),
          { field },
        );
      }
    }
    if (q >= 0) assertReadableQuery(url.slice(q + 1));
    next();
  };
}

function assertReadableQuery(query: string): void {
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const key = decoded((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    if (key === null || key.includes('\u0000'))
      throw new ApiError('INVALID_INPUT', messages.badQueryEncoding('query'), { field: 'query' });
    const value = eq < 0 ? '' : decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
    if (value === null) throw new ApiError('INVALID_INPUT', messages.badQueryEncoding(key), { field: key });
    if (value.includes('\u0000'))
      throw new ApiError('INVALID_INPUT', messages.refusedText(key, 'control character'), { field: key });
  }
}
