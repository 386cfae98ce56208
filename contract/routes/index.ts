// The route table: every operation of the public API and the site API, in document order.
import type { RouteDef } from '../route.ts';
import * as articles from './articles.ts';
import * as atlas from './atlas.ts';
import * as auth from './auth.ts';
import * as broadcasts from './broadcasts.ts';
import * as communities from './communities.ts';
import * as events from './events.ts';
import * as members from './members.ts';
import * as products from './products.ts';
import * as rules from './rules.ts';
import * as segments from './segments.ts';
import * as admin from './admin.ts';
import * as adminBroadcasts from './admin-broadcasts.ts';
import * as adminIntegrations from './admin-integrations.ts';
import * as adminInvites from './admin-invites.ts';
import * as adminMembers from './admin-members.ts';
import * as adminSettings from './admin-settings.ts';
import * as applications from './applications.ts';
import * as tickets from './tickets.ts';
import * as donations from './donations.ts';
import * as visitor from './visitor.ts';

/**
 * The widgets' writes under WIDGET_ACTIONS_BASE and the signed-in member's own checkout: the
 * routes server/actions serves, on a router of its own ahead of the site API's.
 */
export const WIDGET_ACTION_ROUTES: RouteDef[] = [
  ...tickets.TICKET_WIDGET_ROUTES,
  ...donations.DONATION_WIDGET_ROUTES,
  ...applications.APPLICATION_WIDGET_ROUTES,
] as RouteDef[];

// Listed by hand: namespace objects enumerate exports alphabetically, and the reference should
// read in this order.
export const ROUTES: RouteDef[] = [
  communities.getPublishableKey,
  events.listEvents,
  events.getEvent,
  events.listEventTiers,
  events.getTierForm,
  ...tickets.TICKET_ROUTES,
  ...donations.DONATION_ROUTES,
  ...articles.ARTICLE_ROUTES,
  ...products.PRODUCT_ROUTES,
  ...members.MEMBER_ROUTES,
  ...atlas.ATLAS_ROUTES,
  ...segments.SEGMENT_ROUTES,
  ...applications.APPLICATION_ROUTES,
  ...broadcasts.BROADCAST_ROUTES,
  ...rules.RULES_ROUTES,
  communities.getCommunity,
  communities.getCommunityByDomain,
  communities.getPageAccess,
  ...visitor.VISITOR_ROUTES,
  ...WIDGET_ACTION_ROUTES,
  ...auth.AUTH_ROUTES,
  ...admin.ADMIN_ROUTES,
  ...adminSettings.ADMIN_SETTINGS_ROUTES,
  ...adminMembers.ADMIN_MEMBER_ROUTES,
  ...adminIntegrations.ADMIN_INTEGRATIONS_ROUTES,
  ...adminInvites.ADMIN_INVITE_ROUTES,
  ...adminBroadcasts.ADMIN_BROADCAST_ROUTES,
] as RouteDef[];
export {
  admin,
  adminBroadcasts,
  adminIntegrations,
  adminInvites,
  adminMembers,
  adminSettings,
  applications,
  articles,
  atlas,
  auth,
  broadcasts,
  communities,
  donations,
  events,
  members,
  products,
  rules,
  segments,
  tickets,
  visitor,
};
