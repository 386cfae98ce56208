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
    'No authentication. Provisions the key on the first call and returns the same key afterwards; concurrent first ' +
    'calls get the same key (one publishable key per community). A publishable key is browser-safe and never grants ' +
    'more than READ_PUBLIC, whatever is stored. An unknown community is 404 here (nothing is disclosed by it).',
  auth: { kind: 'none' },
  params: z.object({ communityTag: CommunityTag }),
  response: { status: 200, schema: PublishableKeyResponse, description: 'The publishable key' },
  errors: [404, 429],
});

/** The nav filter and its caching, shared by both community lookups (docs/decisions/0015-credentialed-answers-are-never-cached.md). */
const COMMUNITY_NAV_NOTE =
  'The sign-in cookie (or Bearer) is optional. `storefrontConfig.nav`, dropdown `children` included, keeps only the items ' +
  'the viewer may see:\n\n' +
  '- `visibleWhen` absent, null or `always`: everyone; `authenticated`: any signed-in user (non-members, PENDING, REJECTED ' +
  'and BANNED too); `approvedMember`: ACCEPTED members of this community only; any other value counts as ' +
  '`approvedMember` (fail closed).\n' +
  '- A dropdown whose children are all hidden keeps its own `href` as a plain item, or disappears when it has none. An ' +
  'item that is not an object is dropped.\n' +
  '- An item whose site-relative `href` opens a built-in page that is disabled (`/events...` EVENTS, `/blog...` BLOG, ' +
  '`/conversations...` CHAT, `/` HOME, and so on) is hidden for everyone; `external` items and absolute URLs are not ' +
  'judged. A dropdown parent on a disabled page loses its `href` but keeps its children.\n' +
  '- An invalid, expired or forged token reads as anonymous; if the membership cannot be read, the user counts as ' +
  'signed in but not a member.\n\n' +
  'A request with no credential (none of the sign-in cookies, no `Authorization`; other cookies do not count) gets the ' +
  'anonymous answer with `Cache-Control: public, max-age=60`; one with a cookie or Bearer token, valid or not, gets ' +
  '`private, no-store`. Both carry `Vary: Cookie, Authorization` (docs/decisions/0015-credentialed-answers-are-never-cached.md).';

export const getCommunity = route({
  operationId: 'getCommunity',
  method: 'get',
  path: '/api/communities/{communityTag}',
  tag: 'Community site',
  summary: 'Get the community object',
  description:
    'Served on `{site_base}`. Configuration is read-only: it changes only in the admin app (and `svc community update`). ' +
    'Never carries secrets, e-mails, keys, the founder or the landing URL. Any origin may read it (CORS `*`, no ' +
    'credentials).\n\n' +
    COMMUNITY_NAV_NOTE,
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
  description:
    'Hostnames match case-insensitively; in development `<tag>.localhost` resolves to the community `<tag>`. The ' +
    'answer is that of `GET /api/communities/{communityTag}`, filtered and cached the same way.\n\n' +
    COMMUNITY_NAV_NOTE,
  auth: { kind: 'none' },
  params: z.object({
    hostname: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.-]+$/, 'must be a hostname'),
  }),
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
    'the verdicts are for an anonymous visitor. One verdict per page key (HOME, EVENTS, MARKETPLACE, FEED, MEMBERS, ATLAS, ' +
    'BLOG, CHAT): `allow`, `reason` whenever it is false, and `resolvedVisibility`. The same rules serve the hosted pages:\n\n' +
    '- A page whose setting has `enabled` other than `true` is `page_disabled` (for members too); a page key with no ' +
    'setting at all is enabled and inherits.\n' +
    "- The effective visibility is the page's own, else the community's; CHAT is always MEMBERS_ONLY. MEMBERS_ONLY " +
    'needs an ACCEPTED membership of this community (PENDING, REJECTED and BANNED do not count). The reason is ' +
    '`community_private` when the page merely inherits a MEMBERS_ONLY community, `page_members_only` when the page (or ' +
    'CHAT) itself requires it.\n' +
    '- `resolvedVisibility` is the effective visibility: what the page would be with the gate lifted.\n' +
    '- Fails closed: an unknown community or page visibility counts as MEMBERS_ONLY, unreadable page settings disable ' +
    'every page, and if the membership cannot be read the viewer counts as anonymous.\n\n' +
    'Sent `Cache-Control: private, no-store` with `Vary: Cookie, Authorization`: the answer depends on the viewer.',
  auth: { kind: 'none' },
  params: z.object({ communityTag: CommunityTag }),
  response: { status: 200, schema: PageAccess, description: 'Verdicts by page key' },
  errors: [404, 429],
});
