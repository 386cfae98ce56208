// What the v1 API may show of a community page's content (articles, products, the member
// directory), and to whom. A page whose effective visibility is MEMBERS_ONLY (the page's own
// setting, else the community's) hides its content from the anonymous public, which is how the
// publishable key reads: it sits in every visitor's browser. The community's own server (its
// secret keys) decides itself who sees what, so page visibility does not apply to it. A disabled
// page does not hide its content from anyone here: the leader may have turned the built-in page
// off precisely to render the content on their own site through this API.
import type { Db } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import { evaluatePageAccess, type PageKey, type Visibility } from './page-access.ts';
import { Refusal } from './refusal.ts';

export interface PublicCommunity {
  id: string;
  tag: string;
  name: string;
  founderUserId: string | null;
  storefrontConfig: unknown;
}

/** Who reads: the anonymous public (publishable key, widgets), or the community's own server (secret keys). */
export type PageReader = 'public' | 'community';

export type PageCheck =
  { kind: 'missing' } | { kind: 'members-only' } | { kind: 'readable'; community: PublicCommunity };

/** Whether `reader` is kept out of content behind a page of this effective visibility. */
export function pageHidesFrom(resolvedVisibility: Visibility, reader: PageReader): boolean {
  return reader === 'public' && resolvedVisibility !== 'PUBLIC';
}

/** The page's effective visibility, with no viewer: PUBLIC or MEMBERS_ONLY (fail closed). */
export function resolvedPageVisibility(
  row: { visibility: string; page_settings: string | null },
  page: PageKey,
): Visibility {
  return evaluatePageAccess(
    { visibility: row.visibility, pageSettings: parseJson<unknown>(row.page_settings, null) },
    { userId: null },
    page,
  ).resolvedVisibility;
}

export async function pageContent(db: Db, communityId: string, page: PageKey, reader: PageReader): Promise<PageCheck> {
  const row = await db
    .selectFrom('communities')
    .select(['id', 'tag', 'name', 'visibility', 'page_settings', 'founder_user_id', 'storefront_config'])
    .where('id', '=', communityId)
    .executeTakeFirst();
  // A cached key can outlive its community by a few seconds.
  if (!row) return { kind: 'missing' };
  if (pageHidesFrom(resolvedPageVisibility(row, page), reader)) return { kind: 'members-only' };
  return {
    kind: 'readable',
    community: {
      id: row.id,
      tag: row.tag,
      name: row.name,
      founderUserId: row.founder_user_id,
      storefrontConfig: parseJson<unknown>(row.storefront_config, {}),
    },
  };
}

/** The community whose `page` content `reader` may read, refused when it is gone or the page hides it; `what` names it ("blog"). */
export async function readablePage(
  db: Db,
  communityId: string,
  page: PageKey,
  reader: PageReader,
  what: string,
): Promise<PublicCommunity> {
  const check = await pageContent(db, communityId, page, reader);
  if (check.kind === 'missing') throw new Refusal('community_not_found');
  if (check.kind === 'members-only') throw new Refusal('page_members_only', { what });
  return check.community;
}
