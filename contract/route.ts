// The shape of one operation. Each operation is declared once in contract/routes/*; the server's
// validation, the OpenAPI document and the typed client all read the same declaration.
import type { z } from 'zod';
import type { Scope } from './enums.ts';

export const API_TAGS = [
  'Events',
  'Articles',
  'Products',
  'Members',
  'Atlas',
  'Segments',
  'Applications',
  'Broadcasts',
  'Rules',
  'Keys',
  'Community site',
  'Leader console',
] as const;
export type ApiTag = (typeof API_TAGS)[number];

export type RouteAuth =
  /** `X-API-Key` with this scope; ADMIN satisfies any scope. */
  | { kind: 'apiKey'; scope: Scope }
  /**
   * A signed-in visitor: the sign-in cookie (`svc_auth_<tag>`, `svc_auth`, `svc_auth_<host>`) or
   * `Authorization: Bearer`. Cookie-authenticated writes must come from the site's own origin.
   */
  | { kind: 'session' }
  /**
   * No credentials, but a write only from the site's own pages (same checks as a cookie write):
   * sign-in, sign-up and password reset, so another site cannot sign a visitor in or out.
   */
  | { kind: 'sameOrigin' }
  /**
   * A write a widget makes (RSVP, donate, apply): the community's publishable key from an `Origin`
   * listed in its embed origins, or no key, same-origin on the community's hosted site (the
   * signed-in visitor optional). Secret keys are refused. The path must start with
   * `WIDGET_ACTIONS_BASE`; see server/http/widget-actions.ts and docs/api.md "Widget actions".
   */
  | { kind: 'widget' }
  /**
   * A leader of `{communityTag}`: a signed-in visitor (as `session`, the same cookie and CSRF rules)
   * whose ACCEPTED membership in that community has the founder or admin role. Anyone else is
   * refused with 403 NOT_A_LEADER and nothing more. The path must start with `LEADER_CONSOLE_BASE`;
   * see server/http/leader.ts and docs/leader-console.md.
   */
  | { kind: 'leader' }
  /** No credentials at all. */
  | { kind: 'none' };

/** Where every `leader` route lives: `{site_base}/api/admin/{communityTag}/...`. */
export const LEADER_CONSOLE_BASE = '/api/admin/{communityTag}';

/**
 * Where every `widget` route lives: `{site_base}/api/actions/{communityTag}/` followed by the
 * resource path as `/v1` spells it after the community (e.g. `/events/{slug}/rsvp`). Outside
 * `/api/communities`, whose CORS answers any origin.
 */
export const WIDGET_ACTIONS_BASE = '/api/actions/{communityTag}';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  /** Kept literal by `route()`, so a handler's context can depend on the auth kind. */
  A extends RouteAuth = RouteAuth,
  /** Kept literal by `route()`, so handler maps can be keyed and checked by it (server/http/handlers.ts). */
  O extends string = string,
> {
  operationId: O;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/communities/{communityTag}/events/{slug}`. */
  path: string;
  tag: ApiTag;
  summary: string;
  description?: string;
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  response: {
    status: number;
    schema: R;
    description: string;
    /** List responses carry X-Total-Count, Link and (where a cursor applies) X-Next-Cursor. */
    paginated?: boolean;
    /**
     * The answer holds a secret shown once (a new key, a signing secret). It is never stored, so
     * an `Idempotency-Key` (whose replay would show it again) is refused on the route.
     */
    holdsSecret?: boolean;
    /**
     * A body that is not JSON (a CSV download): the handler answers with `stream`, and `schema`
     * is the document's description of it. Default `application/json`.
     */
    contentType?: 'text/csv';
  };
  /** Error statuses this operation can answer with, beyond the ones every operation has. */
  errors: number[];
}

export function route<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType,
  A extends RouteAuth,
  O extends string,
>(def: RouteDef<P, Q, B, R, A, O>): RouteDef<P, Q, B, R, A, O> {
  return def;
}

/** `/v1/communities/{communityTag}/events/{slug}` -> `/v1/communities/:communityTag/events/:slug` */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
