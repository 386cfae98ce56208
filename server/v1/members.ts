// Members: the public directory.
import type { Router } from 'express';
import { listMembers } from '../../contract/routes/members.ts';
import * as members from '../domain/members.ts';
import { publicPage } from '../domain/public-pages.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

export function mountMembers(router: Router, deps: RouteDeps): void {
  const { db } = deps;

  mountRoute(router, listMembers, async ({ query, key }) => {
    const page = await publicPage(db, key!.communityId, 'MEMBERS');
    if (page.kind === 'missing') throw notFound(messages.communityNotFound);
    if (page.kind === 'members-only') throw new ApiError('PAGE_MEMBERS_ONLY', messages.pageMembersOnly('member directory'));
    const offset = query.offset ?? 0;
    const result = await members.listAccepted(db, page.community.id, { limit: query.limit, offset });
    return { body: result.items, page: { total: result.total, limit: query.limit, offset, nextCursor: null, hasMore: result.hasMore } };
  }, deps, { cache: true });
}
