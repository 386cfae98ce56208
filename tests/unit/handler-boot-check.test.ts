// The app does not start unless every route the contract declares has exactly one handler and
// every handler a declared route (server/http/handlers.ts); the message names the operationId.
import crypto from 'node:crypto';
import express from 'express';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/index.ts';
import { createLogger } from '../../server/http/logger.ts';
import { createRateLimits } from '../../server/http/rate-limit.ts';
import { assertEveryRouteMounted, handlerGroup, mountHandlers } from '../../server/http/handlers.ts';
import { mountRoute, type RouteDeps } from '../../server/http/routes.ts';
import { SessionTokens } from '../../server/domain/sessions.ts';
import { ROUTES, WIDGET_ACTION_ROUTES } from '../../contract/routes/index.ts';
import { eventHandlers } from '../../server/v1/events.ts';
import { visitorHandlers } from '../../server/site/visitor.ts';
import { ticketHandlers } from '../../server/v1/tickets.ts';
import { ticketActionHandlers } from '../../server/actions/tickets.ts';
import type { SaleRouteDeps } from '../../server/use-cases/checkout.ts';

// Building the app runs no query: an empty database is enough.
const database = openDatabase({ kind: 'sqlite', file: ':memory:' });
afterAll(() => database.close());

function buildApp() {
  const config = loadConfig({ PORT: '0', SVC_SEED_DEMO: 'false', LOG_LEVEL: 'silent' });
  const rateLimits = createRateLimits(config.rateLimits, null, `svc:test:${crypto.randomUUID()}`);
  return createApp({
    config,
    database,
    logger: createLogger('silent'),
    rateLimits,
    sessions: new SessionTokens(crypto.randomBytes(32)),
  });
}

const restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.splice(0)) undo();
});

/** Changes a module's handler map for one test. */
function edit(handlers: object, operationId: string, entry: unknown) {
  const map = handlers as Record<string, unknown>;
  const had = Object.hasOwn(map, operationId);
  const before = map[operationId];
  if (entry === undefined) delete map[operationId];
  else map[operationId] = entry;
  restore.push(() => {
    if (had) map[operationId] = before;
    else delete map[operationId];
  });
}

describe('the boot check of handlers against the route table', () => {
  it('builds the app when every declared route has its handler', () => {
    expect(() => buildApp()).not.toThrow();
  });

  it('refuses to build the app when a declared route has no handler', () => {
    edit(visitorHandlers, 'getMe', undefined);
    expect(() => buildApp()).toThrow('getMe: declared in the contract but without a handler');
  });

  it('refuses to build the app when a handler names no declared route', () => {
    edit(eventHandlers, 'listUnicorns', async () => ({ body: [] }));
    expect(() => buildApp()).toThrow('listUnicorns: a handler for a route the contract does not declare');
  });

  it('refuses two handlers for one route', () => {
    const deps = {} as RouteDeps;
    const router = express.Router();
    const routes = ROUTES.filter((r) => r.path.startsWith('/v1/'));
    expect(() =>
      mountHandlers(
        router,
        routes,
        [handlerGroup(eventHandlers, deps), handlerGroup(eventHandlers, deps)],
        deps,
        ROUTES,
      ),
    ).toThrow('listEvents: two handlers for one route');
  });

  it('refuses to build the app when a widget action has no handler, or its handler sits in the site API', () => {
    edit(ticketActionHandlers, 'widgetRsvp', undefined);
    expect(() => buildApp()).toThrow('widgetRsvp: declared in the contract but without a handler');
    edit(visitorHandlers, 'widgetRsvp', async () => ({ body: {} }));
    expect(() => buildApp()).toThrow('widgetRsvp: a handler mounted on a router that does not serve its path');
  });

  it('refuses a /v1 handler among the widget actions', () => {
    const deps = {} as SaleRouteDeps;
    expect(() =>
      mountHandlers(express.Router(), WIDGET_ACTION_ROUTES, [handlerGroup(ticketHandlers, deps)], deps, ROUTES),
    ).toThrow('rsvpToEvent: a handler mounted on a router that does not serve its path');
  });

  it('counts only routes mounted from a handler map', () => {
    const deps = {} as RouteDeps;
    const router = express.Router();
    const [only] = ROUTES;
    mountRoute(router, only, async () => ({ body: {} }), deps);
    expect(() => assertEveryRouteMounted([only], [router])).toThrow(
      `${only.operationId}: declared in the contract but without a handler`,
    );
  });

  it('refuses a handler on a router that does not serve its path', () => {
    const deps = {} as RouteDeps;
    const routes = ROUTES.filter((r) => r.path.startsWith('/api/'));
    expect(() => mountHandlers(express.Router(), routes, [handlerGroup(eventHandlers, deps)], deps, ROUTES)).toThrow(
      'listEvents: a handler mounted on a router that does not serve its path',
    );
  });
});
