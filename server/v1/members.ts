// Members: the public directory.
import * as routes from '../../contract/routes/members.ts';
import * as members from '../domain/members.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { readablePage, readerOf } from './page-visibility.ts';

export const memberHandlers = {
  listMembers: {
    cache: true,
    handler: async ({ query, key }, { db }) => {
      const community = await readablePage(db, key.communityId, 'MEMBERS', readerOf(key), 'member directory');
      const offset = query.offset ?? 0;
      const result = await members.listAccepted(db, community.id, { limit: query.limit, offset });
      return {
        body: result.items,
        page: { total: result.total, limit: query.limit, offset, nextCursor: null, hasMore: result.hasMore },
      };
    },
  },
} satisfies Handlers<RoutesOf<typeof routes>>;
