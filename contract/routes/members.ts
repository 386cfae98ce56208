// The public member directory. Kick, ban and applications belong to the membership issue.
import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset, pageVisibilityNote } from '../common.ts';
import { Member } from '../resources.ts';
import { route } from '../route.ts';

export const listMembers = route({
  operationId: 'listMembers',
  method: 'get',
  path: '/v1/communities/{communityTag}/members',
  tag: 'Members',
  summary: 'List members',
  description:
    'ACCEPTED members only (never PENDING, REJECTED or BANNED), in the order they joined (oldest first, ties by ' +
    'membership id, so "Load more" by offset neither skips nor repeats anyone while people join), each exactly ' +
    '`{userId, name, usertag, profileImage, bio, joinedAt}`: never e-mail, phone, status or payment identifiers (the rows ' +
    'come from an explicit column list, copied field by field, so a column added later cannot leak). `joinedAt` is when ' +
    'the membership was ACCEPTED (the request time for memberships accepted before that was recorded). A kicked or banned ' +
    'member leaves the list at once, cached answers included. `X-Total-Count` and `Link` as ' +
    `on every list. ${pageVisibilityNote('MEMBERS')}`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: z.object({ communityTag: CommunityTag }),
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(Member), description: 'A page of members', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const MEMBER_ROUTES = [listMembers];
