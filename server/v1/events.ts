// Events: list, detail, tiers, tier form.
import type { Router } from 'express';
import { getEvent, getTierForm, listEvents, listEventTiers } from '../../contract/routes/events.ts';
import * as events from '../domain/events.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

export function mountEvents(router: Router, deps: RouteDeps): void {
  const { db } = deps;
  const audienceOf = async (communityId: string) => {
    const audience = await events.publicAudience(db, communityId);
    if (!audience) throw notFound(messages.communityNotFound);
    return audience;
  };

  mountRoute(router, listEvents, async ({ query, key }) => {
    if (query.offset !== undefined && query.cursor !== undefined) {
      throw new ApiError('INVALID_INPUT', messages.offsetAndCursor, { field: 'cursor' });
    }
    if (query.upcoming && query.past) {
      throw new ApiError('INVALID_INPUT', messages.upcomingAndPast, { field: 'past' });
    }
    const page = await events.listEvents(db, await audienceOf(key!.communityId), query);
    return {
      body: page.items,
      page: { total: page.total, limit: query.limit, offset: query.cursor ? null : (query.offset ?? 0), nextCursor: page.nextCursor, hasMore: page.hasMore },
    };
  }, deps, { cache: true });

  mountRoute(router, getEvent, async ({ params, key }) => {
    const event = await events.getEvent(db, await audienceOf(key!.communityId), params.slug);
    if (!event) throw notFound(messages.eventNotFound);
    return { body: event };
  }, deps, { cache: true });

  mountRoute(router, listEventTiers, async ({ params, key }) => {
    const tiers = await events.listEventTiers(db, await audienceOf(key!.communityId), params.slug);
    if (!tiers) throw notFound(messages.eventNotFound);
    return { body: tiers };
  }, deps, { cache: true });

  mountRoute(router, getTierForm, async ({ params, key }) => {
    const form = await events.getTierForm(db, await audienceOf(key!.communityId), params.tierId);
    if (!form) throw notFound(messages.tierNotFound);
    return { body: form };
  }, deps, { cache: true });
}
