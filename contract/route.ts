// The shape of one operation. Each operation is declared once in contract/routes/*; the server's
// validation, the OpenAPI document and the typed client all read the same declaration.
import type { z } from 'zod';
import type { Scope } from './enums.ts';

export const API_TAGS = [
  'Events', 'Articles', 'Products', 'Members', 'Atlas', 'Segments', 'Applications', 'Broadcasts', 'Rules',
  'Keys', 'Community site',
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
  /** No credentials at all. */
  | { kind: 'none' };

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/communities/{communityTag}/events/{slug}`. */
  path: string;
  tag: ApiTag;
  summary: string;
  description?: string;
  auth: RouteAuth;
  params?: P;
  query?: Q;
  body?: B;
  response: {
    status: number;
    schema: R;
    description: string;
    /** List responses carry X-Total-Count, Link and (where a cursor applies) X-Next-Cursor. */
    paginated?: boolean;
  };
  /** Error statuses this operation can answer with, beyond the ones every operation has. */
  errors: number[];
}

export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  def: RouteDef<P, Q, B, R>,
): RouteDef<P, Q, B, R> {
  return def;
}

/** `/v1/communities/{communityTag}/events/{slug}` -> `/v1/communities/:communityTag/events/:slug` */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
