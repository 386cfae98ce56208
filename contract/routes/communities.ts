import { z } from 'zod';
import { CommunityTag } from '../common.ts';
import { Community, PageAccess, PublishableKeyResponse } from '../resources.ts';
import { route } from '../route.ts';

export const getPublishableKey = route({
  operationId: 'getPublishableKey',
  method: 'get',
  path: '/v1/communities/{communityTag}/publishable-key',
  tag: 'Keys',
  summary: "Get the community's publishable key",
  description:
    'No authentication. Provisions the key on the first call and returns the same key afterwards. ' +
    'A publishable key is browser-safe and never grants more than READ_PUBLIC.',
  auth: { kind: 'none' },
  params: z.object({ communityTag: CommunityTag }),
  response: { status: 200, schema: PublishableKeyResponse, description: 'The publishable key' },
  errors: [404, 429],
});

export const getCommunity = route({
  operationId: 'getCommunity',
  method: 'get',
  path: '/api/communities/{communityTag}',
  tag: 'Community site',
  summary: 'Get the community object',
  description:
    'Served on `{site_base}`. Configuration is read-only: it changes only in the admin app. The sign-in cookie (or Bearer) ' +
    'is optional: nav items are filtered by `visibleWhen` for the viewer (`authenticated`: any signed-in user; `approvedMember`: ' +
    'ACCEPTED members only), so a request with credentials is answered `private, no-store`.',
  auth: { kind: 'none' },
  params: z.object({ communityTag: CommunityTag }),
  response: { status: 200, schema: Community, description: 'The community' },
  errors: [404, 429],
});

export const getCommunityByDomain = route({
  operationId: 'getCommunityByDomain',
  method: 'get',
  path: '/api/communities/by-domain/{hostname}',
  tag: 'Community site',
  summary: 'Resolve a community by its custom domain',
  description: 'In development `<tag>.localhost` resolves to the community `<tag>`.',
  auth: { kind: 'none' },
  params: z.object({ hostname: z.string().min(1).max(253).regex(/^[A-Za-z0-9.-]+$/, 'must be a hostname') }),
  response: { status: 200, schema: Community, description: 'The community' },
  errors: [400, 404, 429],
});

export const getPageAccess = route({
  operationId: 'getPageAccess',
  method: 'get',
  path: '/api/communities/{communityTag}/page-access',
  tag: 'Community site',
  summary: 'May the viewer open each page of the community',
  description:
    'Served on `{site_base}`. The sign-in cookie is optional (also `Authorization: Bearer`); without one, or with an invalid one, ' +
    'the verdicts are for an anonymous visitor. One verdict per page key: `allow`, `reason` whenever it is false ' +
    '(`community_private`, `page_members_only`, `page_disabled`), and `resolvedVisibility`. Only ACCEPTED members count as members; ' +
    'CHAT always requires membership. Never cached by shared caches: the answer depends on the viewer.',
  auth: { kind: 'none' },
  params: z.object({ communityTag: CommunityTag }),
  response: { status: 200, schema: PageAccess, description: 'Verdicts by page key' },
  errors: [404, 429],
});
