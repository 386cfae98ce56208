// Events: list, detail, tiers, tier form.
import * as routes from '../../contract/routes/events.ts';
import * as events from '../domain/events.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import type { Db } from '../db/index.ts';
import type { ApiKeyIdentity, KeyCommunity } from '../domain/api-keys.ts';

/**
 * Who may see which events: from the community as read with the key in this request when it was
 * (one query fewer on every keyed read with the key cache missing or off), else read now.
 */
async function audienceOf(
  db: Db,
  { key, keyCommunity }: { key: ApiKeyIdentity; keyCommunity: KeyCommunity | null },
): Promise<events.EventAudience> {
  const audience = keyCommunity
    ? events.audienceOf(key.communityId, keyCommunity)
    : await events.publicAudience(db, key.communityId);
  if (!audience) throw notFound(messages.communityNotFound);
  return audience;
}

async function listEvents(ctx: HandlerContext<typeof routes.listEvents>, { db }: RouteDeps) {
  const { query } = ctx;
  if (query.offset !== undefined && query.cursor !== undefined) {
    throw new ApiError('INVALID_INPUT', messages.offsetAndCursor, { field: 'cursor' });
  }
  if (query.upcoming && query.past) {
    throw new ApiError('INVALID_INPUT', messages.upcomingAndPast, { field: 'past' });
  }
  const page = await events.listEventsEncoded(db, await audienceOf(db, ctx), query);
  return {
    body: undefined,
    json: page.json,
    page: {
      total: page.total,
      limit: query.limit,
      offset: query.cursor ? null : (query.offset ?? 0),
      nextCursor: page.nextCursor,
      hasMore: page.hasMore,
    },
  };
}

async function getEvent(ctx: HandlerContext<typeof routes.getEvent>, { db }: RouteDeps) {
  const event = await events.getEvent(db, await audienceOf(db, ctx), ctx.params.slug);
  if (!event) throw notFound(messages.eventNotFound);
  return { body: event };
}

async function listEventTiers(ctx: HandlerContext<typeof routes.listEventTiers>, { db }: RouteDeps) {
  const tiers = await events.listEventTiers(db, await audienceOf(db, ctx), ctx.params.slug);
  if (!tiers) throw notFound(messages.eventNotFound);
  return { body: tiers };
}

async function getTierForm(ctx: HandlerContext<typeof routes.getTierForm>, { db }: RouteDeps) {
  const form = await events.getTierForm(db, await audienceOf(db, ctx), ctx.params.tierId);
  if (!form) throw notFound(messages.tierNotFound);
  return { body: form };
}

export const eventHandlers = {
  listEvents: { cache: true, handler: listEvents },
  getEvent: { cache: true, handler: getEvent },
  listEventTiers: { cache: true, handler: listEventTiers },
  getTierForm: { cache: true, handler: getTierForm },
} satisfies Handlers<RoutesOf<typeof routes>>;
