// The handler context is narrowed by the route's auth kind: what mountRoute guarantees (the key of
// an apiKey route, the visitor of a session route) is not nullable, and what a route cannot have
// is null. Checked by tsc (`npx tsc --noEmit` includes tests/): a regression fails the type check,
// and the `@ts-expect-error` lines fail it if the error they expect goes away.
import { describe, expectTypeOf, it } from 'vitest';
import type { getCommunity, getPublishableKey } from '../../contract/routes/communities.ts';
import type { listEvents } from '../../contract/routes/events.ts';
import type { signIn } from '../../contract/routes/auth.ts';
import type { getMe } from '../../contract/routes/visitor.ts';
import type { widgetRsvp } from '../../contract/routes/tickets.ts';
import type { ApiKeyIdentity } from '../../server/domain/api-keys.ts';
import type { RouteHandler } from '../../server/http/handlers.ts';
import type { HandlerContext, RouteDeps } from '../../server/http/routes.ts';
import type { Visitor } from '../../server/http/session.ts';
import type { WidgetCaller } from '../../server/http/widget-actions.ts';

describe('the handler context by auth kind', () => {
  it('gives an apiKey route its key, never null, and no visitor', () => {
    expectTypeOf<HandlerContext<typeof listEvents>['key']>().toEqualTypeOf<ApiKeyIdentity>();
    expectTypeOf<HandlerContext<typeof listEvents>['visitor']>().toEqualTypeOf<null>();
    expectTypeOf<HandlerContext<typeof listEvents>['widget']>().toEqualTypeOf<null>();
    // A key's fields are read without a non-null assertion.
    const handler: RouteHandler<typeof listEvents, RouteDeps> = async ({ key }) => ({ body: key.communityId });
    expectTypeOf(handler).toBeFunction();
  });

  it('gives a session route its visitor, never null, and no key', () => {
    expectTypeOf<HandlerContext<typeof getMe>['visitor']>().toEqualTypeOf<Visitor>();
    expectTypeOf<HandlerContext<typeof getMe>['key']>().toEqualTypeOf<null>();
  });

  it('gives a none route neither a key nor a visitor', () => {
    expectTypeOf<HandlerContext<typeof getPublishableKey>['key']>().toEqualTypeOf<null>();
    expectTypeOf<HandlerContext<typeof getPublishableKey>['visitor']>().toEqualTypeOf<null>();
    expectTypeOf<HandlerContext<typeof getCommunity>['key']>().toEqualTypeOf<null>();
    // @ts-expect-error: a none route has no key to read a community from
    const handler: RouteHandler<typeof getPublishableKey, RouteDeps> = async ({ key }) => ({ body: key.communityId });
    expectTypeOf(handler).toBeFunction();
  });

  it('gives a sameOrigin route neither a key nor a visitor', () => {
    expectTypeOf<HandlerContext<typeof signIn>['key']>().toEqualTypeOf<null>();
    // @ts-expect-error: nobody is signed in yet on a sign-in route
    const handler: RouteHandler<typeof signIn, RouteDeps> = async ({ visitor }) => ({ body: visitor.userId });
    expectTypeOf(handler).toBeFunction();
  });

  it('gives a widget route its caller, and the visitor only if one is signed in', () => {
    expectTypeOf<HandlerContext<typeof widgetRsvp>['widget']>().toEqualTypeOf<WidgetCaller>();
    expectTypeOf<HandlerContext<typeof widgetRsvp>['visitor']>().toEqualTypeOf<Visitor | null>();
    expectTypeOf<HandlerContext<typeof widgetRsvp>['key']>().toEqualTypeOf<null>();
  });

  it('types params, query and body by the route', () => {
    expectTypeOf<HandlerContext<typeof listEvents>['params']['communityTag']>().toEqualTypeOf<string>();
    expectTypeOf<HandlerContext<typeof listEvents>['query']['limit']>().toEqualTypeOf<number>();
    expectTypeOf<HandlerContext<typeof signIn>['body']['email']>().toEqualTypeOf<string>();
  });
});
