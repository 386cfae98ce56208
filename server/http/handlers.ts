// Handler maps: each route module exports its handlers keyed by the contract's operationId, and
// mountHandlers walks the route table and mounts the one handler of each route. createApp then
// checks that every declared route was mounted exactly once (assertEveryRouteMounted), so a
// route without a handler, or a handler without a route, fails the boot rather than a request.
import type { Request, Response, Router } from 'express';
import type { RouteDef } from '../../contract/route.ts';
import {
  mountNavigation,
  mountRoute,
  type HandlerContext,
  type HandlerResult,
  type MountOptions,
  type RouteDeps,
} from './routes.ts';

/** One route's handler: its typed context, and the services of the module that handles it. */
export type RouteHandler<D extends RouteDef, Deps> = (ctx: HandlerContext<D>, deps: Deps) => Promise<HandlerResult>;

/** A browser navigation's handler: it answers with a redirect itself (see mountNavigation). */
export type NavigationHandler<Deps> = (req: Request, res: Response, deps: Deps) => Promise<void>;

/** A handler, a handler with its mount options (e.g. `{ cache: true }`), or a navigation's handler. */
export type HandlerEntry<D extends RouteDef, Deps> =
  RouteHandler<D, Deps> | (MountOptions & { handler: RouteHandler<D, Deps> }) | { navigation: NavigationHandler<Deps> };

/**
 * The handlers of a set of routes, one per operationId, each typed by its own route. Used with
 * `satisfies`, so a module that leaves out one of the routes it names does not compile.
 */
export type Handlers<Routes extends RouteDef, Deps = RouteDeps> = {
  [D in Routes as D['operationId']]: HandlerEntry<D, Deps>;
};

/** The route declarations among a contract module's exports (`import * as routes`). */
export type RoutesOf<Module> = Extract<Module[keyof Module], RouteDef>;

/** A module's handler map with the services its handlers are given. */
export interface HandlerGroup {
  handlers: Readonly<Record<string, unknown>>;
  deps: unknown;
}

export function handlerGroup<Deps>(
  handlers: Readonly<Record<string, HandlerEntry<never, Deps>>>,
  deps: Deps,
): HandlerGroup {
  return { handlers, deps };
}

type Bound =
  | { handler: (ctx: HandlerContext<RouteDef>) => Promise<HandlerResult>; options: MountOptions }
  | { navigation: (req: Request, res: Response) => Promise<void> };

/** The groups' handlers by operationId; two handlers for one operationId fail the boot. */
function byOperationId(groups: HandlerGroup[]): Map<string, Bound> {
  const bound = new Map<string, Bound>();
  for (const group of groups) {
    for (const [operationId, entry] of Object.entries(group.handlers)) {
      if (bound.has(operationId)) throw new Error(`${operationId}: two handlers for one route`);
      const full = (typeof entry === 'function' ? { handler: entry } : entry) as HandlerEntry<RouteDef, unknown>;
      if ('navigation' in full) {
        const navigation = full.navigation;
        bound.set(operationId, { navigation: (req, res) => navigation(req, res, group.deps) });
      } else {
        const { handler, ...options } = full as Exclude<typeof full, RouteHandler<RouteDef, unknown>>;
        bound.set(operationId, { handler: (ctx) => handler(ctx, group.deps), options });
      }
    }
  }
  return bound;
}

const mountedOnRouter = new WeakMap<Router, Set<string>>();

/** What assertEveryRouteMounted counts: only routes mounted from a handler map. */
function recordMount(router: Router, operationId: string): void {
  let ids = mountedOnRouter.get(router);
  if (!ids) mountedOnRouter.set(router, (ids = new Set()));
  if (ids.has(operationId)) throw new Error(`${operationId}: mounted twice`);
  ids.add(operationId);
}

/**
 * Mounts the handlers of `routes` (the part of `table` this router serves), in table order. A
 * handler whose operationId is not among `routes` fails: it names no declared route, or one this
 * router does not serve. A route without a handler here is left for another call;
 * assertEveryRouteMounted catches the ones nobody mounts.
 */
export function mountHandlers(
  router: Router,
  routes: RouteDef[],
  groups: HandlerGroup[],
  deps: RouteDeps,
  table: RouteDef[],
): void {
  const handlers = byOperationId(groups);
  const served = new Set(routes.map((r) => r.operationId));
  const declared = new Set(table.map((r) => r.operationId));
  for (const operationId of handlers.keys()) {
    if (!declared.has(operationId))
      throw new Error(`${operationId}: a handler for a route the contract does not declare`);
    if (!served.has(operationId))
      throw new Error(`${operationId}: a handler mounted on a router that does not serve its path`);
  }
  for (const def of routes) {
    const bound = handlers.get(def.operationId);
    if (!bound) continue;
    recordMount(router, def.operationId);
    if ('navigation' in bound) mountNavigation(router, def, bound.navigation);
    else mountRoute(router, def, bound.handler, deps, bound.options);
  }
}

/** Fails the boot unless every route of `table` is mounted exactly once across `routers`. */
export function assertEveryRouteMounted(table: RouteDef[], routers: Router[]): void {
  const declared = new Set(table.map((r) => r.operationId));
  const seen = new Set<string>();
  for (const router of routers) {
    for (const operationId of mountedOnRouter.get(router) ?? []) {
      if (!declared.has(operationId)) throw new Error(`${operationId}: mounted, but the contract does not declare it`);
      if (seen.has(operationId)) throw new Error(`${operationId}: mounted twice`);
      seen.add(operationId);
    }
  }
  const missing = table.filter((r) => !seen.has(r.operationId)).map((r) => r.operationId);
  if (missing.length > 0) throw new Error(`${missing.join(', ')}: declared in the contract but without a handler`);
}
