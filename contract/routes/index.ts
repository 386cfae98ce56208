// The route table: every operation of the public API and the site API, in document order.
import type { RouteDef } from '../route.ts';
import * as auth from './auth.ts';
import * as communities from './communities.ts';
import * as events from './events.ts';
import * as visitor from './visitor.ts';

// Listed by hand: namespace objects enumerate exports alphabetically, and the reference should
// read in this order.
export const ROUTES: RouteDef[] = [
  communities.getPublishableKey,
  events.listEvents,
  events.getEvent,
  events.listEventTiers,
  events.getTierForm,
  communities.getCommunity,
  communities.getCommunityByDomain,
  communities.getPageAccess,
  ...visitor.VISITOR_ROUTES,
  ...auth.AUTH_ROUTES,
] as RouteDef[];
export { auth, communities, events, visitor };
