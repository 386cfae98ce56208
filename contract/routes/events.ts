import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset, QueryBool, Uuid } from '../common.ts';
import { Event, Tier, TierForm } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

export const listEvents = route({
  operationId: 'listEvents',
  method: 'get',
  path: `${base}/events`,
  tag: 'Events',
  summary: 'List events',
  description:
    'Public events ordered by start date (oldest first; newest first with `past=true`). Page with `limit` and ' +
    'either `offset` or the opaque `cursor` from the `X-Next-Cursor` header, never both. `X-Total-Count` is the ' +
    'number of events matching the filters; `Link: <...>; rel="next"` points at the next page while there is one.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  query: z
    .object({
      limit: Limit,
      offset: OptionalOffset.describe('default 0; not together with cursor'),
      cursor: z.string().min(1).max(512).optional().describe('opaque, from X-Next-Cursor'),
      featured: QueryBool.optional().describe('true = only the featured event'),
      upcoming: QueryBool.optional().describe('true = startDate >= now'),
      past: QueryBool.optional().describe('true = startDate < now, newest first (an svc addition)'),
    })
    .strict(),
  response: { status: 200, schema: z.array(Event), description: 'A page of events', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const getEvent = route({
  operationId: 'getEvent',
  method: 'get',
  path: `${base}/events/{slug}`,
  tag: 'Events',
  summary: 'Get one event by slug',
  description: 'The single-event response also carries `donationConfig`.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ slug: z.string().min(1).max(120) }),
  response: { status: 200, schema: Event, description: 'The event' },
  errors: [401, 403, 404, 429],
});

export const listEventTiers = route({
  operationId: 'listEventTiers',
  method: 'get',
  path: `${base}/events/{slug}/tiers`,
  tag: 'Events',
  summary: "List an event's ticket tiers",
  description: 'Every tier of the event, active or not, so a page can show closed and sold-out tiers.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ slug: z.string().min(1).max(120) }),
  response: { status: 200, schema: z.array(Tier), description: 'Tiers of the event' },
  errors: [401, 403, 404, 429],
});

export const getTierForm = route({
  operationId: 'getTierForm',
  method: 'get',
  path: `${base}/tiers/{tierId}/form`,
  tag: 'Events',
  summary: "Get a tier's checkout form",
  description: 'A tier without a form answers with an empty schema.',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ tierId: Uuid }),
  response: { status: 200, schema: TierForm, description: 'The form' },
  errors: [400, 401, 403, 404, 429],
});
