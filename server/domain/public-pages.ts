// What the public API may show of a community page's content. API keys read as the anonymous
// public (a publishable key is in every visitor's browser), so content behind a page whose
// effective visibility is MEMBERS_ONLY (the page's own setting, else the community's) is not
// served. A disabled page does not hide its content here: the leader may have turned the built-in
// page off precisely to render the content on their own site through this API.
import type { Db } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import { evaluatePageAccess, type PageKey } from './page-access.ts';

export interface PublicCommunity {
  id: string;
  tag: string;
  name: string;
  founderUserId: string | null;
  storefrontConfig: unknown;
}

export type PageCheck =
  | { kind: 'missing' }
  | { kind: 'members-only' }
  | { kind: 'public'; community: PublicCommunity };

export async function publicPage(db: Db, communityId: string, page: PageKey): Promise<PageCheck> {
  const row = await db.selectFrom('communities')
    .select(['id', 'tag', 'name', 'visibility', 'page_settings', 'founder_user_id', 'storefront_config'])
    .where('id', '=', communityId).executeTakeFirst();
  // A cached key can outlive its community by a few seconds.
  if (!row) return { kind: 'missing' };
  const verdict = evaluatePageAccess(
    { visibility: row.visibility, pageSettings: parseJson<unknown>(row.page_settings, null) }, { userId: null }, page,
  );
  if (verdict.resolvedVisibility !== 'PUBLIC') return { kind: 'members-only' };
  return {
    kind: 'public',
    community: {
      id: row.id, tag: row.tag, name: row.name, founderUserId: row.founder_user_id,
      storefrontConfig: parseJson<unknown>(row.storefront_config, {}),
    },
  };
}
