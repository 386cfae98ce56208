import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset, QueryBool, Uuid } from '../common.ts';
import { Event, Tier, TierForm } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

const EVENT_VISIBILITY =
  "Only public events are shown, failing closed: an event's own visibility wins; an event without one (null) inherits " +
  "the EVENTS page setting's visibility, else the community's. So in a MEMBERS_ONLY community only events explicitly " +
  'marked PUBLIC are listed. This holds for every key.';

export const listEvents = route({
  operationId: 'listEvents',
  method: 'get',
  path: `${base}/events`,
  tag: 'Events',
  summary: 'List events',
  description:
    'Public events ordered by start date (oldest first, ties by id; newest first with `past=true`). Page with `limit` and ' +
    'either `offset` or the opaque `cursor` from the `X-Next-Cursor` header, never both. `X-Total-Count` is the ' +
    'number of events matching the filters; `Link: <...>; rel="next"` points at the next page while there is one.\n\n' +
    '- ' +
    EVENT_VISIBILITY +
    '\n' +
    "- `upcoming=true`: start date >= now; `past=true` (an svc addition for the widget's past view): start date < now, " +
    'newest first. Both at once is a 400.\n' +
    '- `featured=true`: only the featured event (the database allows one per community).\n' +
    '- `event.tiers` lists the active tiers only; `donationConfig` is on the single-event response only.',
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
  description:
    `The single-event response also carries \`donationConfig\`. ${EVENT_VISIBILITY} An event that is not shown is a 404, ` +
    'as is an unknown slug.',
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
  description:
    'Every tier of the event, active or not (`isActive`), so a page can show closed and sold-out tiers. `sold` counts ' +
    'issued tickets; seats held by open checkouts are not sold yet but are not available either. The event must be one ' +
    'the list shows (404 otherwise).',
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
  description:
    "A tier without a form answers `{tierId, schema: []}`. A field's `id` is stable and keys the answers " +
    '(`formAnswers` of RSVP and checkout).',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ tierId: Uuid }),
  response: { status: 200, schema: TierForm, description: 'The form' },
  errors: [400, 401, 403, 404, 429],
});
