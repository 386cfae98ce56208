// Events: list, detail, tiers, tier form.
import * as routes from '../../contract/routes/events.ts';
import * as events from '../domain/events.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import type { Db } from '../db/index.ts';

async function audienceOf(db: Db, communityId: string): Promise<events.EventAudience> {
  const audience = await events.publicAudience(db, communityId);
  if (!audience) throw notFound(messages.communityNotFound);
  return audience;
}

async function listEvents({ query, key }: HandlerContext<typeof routes.listEvents>, { db }: RouteDeps) {
  if (query.offset !== undefined && query.cursor !== undefined) {
    throw new ApiError('INVALID_INPUT', messages.offsetAndCursor, { field: 'cursor' });
  }
  if (query.upcoming && query.past) {
    throw new ApiError('INVALID_INPUT', messages.upcomingAndPast, { field: 'past' });
  }
  const page = await events.listEvents(db, await audienceOf(db, key.communityId), query);
  return {
    body: page.items,
    page: {
      total: page.total,
      limit: query.limit,
      offset: query.cursor ? null : (query.offset ?? 0),
      nextCursor: page.nextCursor,
      hasMore: page.hasMore,
    },
  };
}

async function getEvent({ params, key }: HandlerContext<typeof routes.getEvent>, { db }: RouteDeps) {
  const event = await events.getEvent(db, await audienceOf(db, key.communityId), params.slug);
  if (!event) throw notFound(messages.eventNotFound);
  return { body: event };
}

async function listEventTiers({ params, key }: HandlerContext<typeof routes.listEventTiers>, { db }: RouteDeps) {
  const tiers = await events.listEventTiers(db, await audienceOf(db, key.communityId), params.slug);
  if (!tiers) throw notFound(messages.eventNotFound);
  return { body: tiers };
}

async function getTierForm({ params, key }: HandlerContext<typeof routes.getTierForm>, { db }: RouteDeps) {
  const form = await events.getTierForm(db, await audienceOf(db, key.communityId), params.tierId);
  if (!form) throw notFound(messages.tierNotFound);
  return { body: form };
}

export const eventHandlers = {
  listEvents: { cache: true, handler: listEvents },
  getEvent: { cache: true, handler: getEvent },
  listEventTiers: { cache: true, handler: listEventTiers },
  getTierForm: { cache: true, handler: getTierForm },
} satisfies Handlers<RoutesOf<typeof routes>>;
