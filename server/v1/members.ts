// Members: the public directory.
import type { Router } from 'express';
import { listMembers } from '../../contract/routes/members.ts';
import * as members from '../domain/members.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { readablePage, readerOf } from './page-visibility.ts';

export function mountMembers(router: Router, deps: RouteDeps): void {
  const { db } = deps;

  mountRoute(router, listMembers, async ({ query, key }) => {
    const community = await readablePage(db, key!.communityId, 'MEMBERS', readerOf(key!), 'member directory');
    const offset = query.offset ?? 0;
    const result = await members.listAccepted(db, community.id, { limit: query.limit, offset });
    return { body: result.items, page: { total: result.total, limit: query.limit, offset, nextCursor: null, hasMore: result.hasMore } };
  }, deps, { cache: true });
}
