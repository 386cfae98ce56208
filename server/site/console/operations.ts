// The console pages act through the leader console's API operations, in process: the same zod
// schemas (contract/routes/admin-*.ts), the same handler (server/admin/*.ts), its transaction and
// audit entry, and the same refusals. A page never writes by a path of its own, so a form and the
// JSON API cannot drift apart in what they accept or record.
//
// What the API's mountRoute does around a handler and this does not: authentication (the page
// gate already made the Leader, from the same query, server/http/leader.ts), CSRF (the hosted
// site's form checks ran first) and Idempotency-Key (a form has none; a page answers a write with
// a 303, so a reload does not repeat it).
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { RouteDef } from '../../../contract/route.ts';
import { transaction, type Trx } from '../../db/index.ts';
import { ApiError } from '../../http/api-error.ts';
import type { Leader } from '../../http/leader.ts';
import { asApiError } from '../../http/refusals.ts';
import type { HandlerContext, HandlerResult, RouteDeps } from '../../http/routes.ts';
import type { RouteHandler } from '../../http/handlers.ts';
import { parseOrThrow } from '../../http/validate.ts';

/** What a page hands an operation: the raw values, as a JSON client would send them. */
export interface OperationInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** An operation's answer, or the refusal a form shows next to its field. */
export type OperationOutcome<T> = { ok: true; body: T; result: HandlerResult } | { ok: false; error: ApiError };

type BodyOf<D extends RouteDef> = z.output<D['response']['schema']>;

/**
 * Runs one leader operation for `leader`, as the API would. A refusal (4xx: a field the schema
 * refuses, a domain taken, a role only the founder may give) comes back as `{ok: false}`; anything
 * else that fails is thrown, and the page answers its error page.
 */
export async function runOperation<D extends RouteDef>(
  def: D,
  handler: RouteHandler<D, RouteDeps>,
  deps: RouteDeps,
  leader: Leader,
  input: OperationInput,
  /** The page's request: a handler may read the site's origin from it (an invite's link). */
  req: Request,
): Promise<OperationOutcome<BodyOf<D>>> {
  if (def.auth.kind !== 'leader') throw new Error(`${def.operationId}: not a leader operation`);
  try {
    const params = def.params
      ? parseOrThrow(def.params, { ...input.params, communityTag: leader.communityTag }, 'params')
      : {};
    const query = def.query ? parseOrThrow(def.query, input.query ?? {}, 'query') : {};
    const body = def.body ? parseOrThrow(def.body, input.body ?? {}, 'body') : undefined;
    const ctx = {
      params,
      query,
      body,
      key: null,
      widget: null,
      visitor: null,
      leader,
      req,
      // Express gives every request its response; a handler only reads it.
      res: req.res as Response,
      transaction: <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => transaction(deps.db, fn),
    } as unknown as HandlerContext<D>;
    const result = await handler(ctx, deps);
    // A successful write makes the community's cached reads stale, as the API's does.
    if (def.method !== 'get') deps.readCache.invalidate(leader.communityId);
    return { ok: true, body: result.body as BodyOf<D>, result };
  } catch (err) {
    const refused = asApiError(err);
    if (refused instanceof ApiError && refused.status < 500) return { ok: false, error: refused };
    throw err;
  }
}

/**
 * The form field a refusal names, as the form calls it: the API names body fields by their
 * dotted path (`domains.1`, `themeConfig.brandColor`) and everything else by where it was
 * (`params`, `query`); a page maps the paths it shows onto its inputs.
 */
export function refusedField(error: ApiError): string | null {
  const field = error.extras?.field;
  return typeof field === 'string' && field !== '' ? field : null;
}
