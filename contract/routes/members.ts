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
    'ACCEPTED members only, in the order they joined (oldest first, so offset pages stay stable while people join), ' +
    'with exactly the public fields. Never e-mail, phone, status or payment identifiers. `X-Total-Count` and `Link` as ' +
    `on every list. ${pageVisibilityNote('MEMBERS')}`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: z.object({ communityTag: CommunityTag }),
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(Member), description: 'A page of members', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const MEMBER_ROUTES = [listMembers];
