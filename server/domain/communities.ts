// Communities: lookup by tag or domain, and the public community object. The object is the
// whole public configuration as one viewer may see it (the nav is filtered by `visibleWhen`); it
// never carries secrets, e-mails or keys.
import type { Community } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import type { CommunityRow } from '../db/schema.ts';
import { parseJson } from '../db/ids.ts';
import { filterNav } from './nav.ts';
import { viewerOf, type Viewer } from './page-access.ts';

export async function findCommunityByTag(db: Db, tag: string): Promise<CommunityRow | undefined> {
  return db.selectFrom('communities').selectAll().where('tag', '=', tag).executeTakeFirst();
}

/** `<tag>.localhost` always names the community `<tag>`: it can only resolve on the developer's machine. */
const DEV_HOST = /^([a-z0-9][a-z0-9-]*)\.localhost$/;

export async function findCommunityByDomain(db: Db, hostname: string): Promise<CommunityRow | undefined> {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const viaDomain = await db
    .selectFrom('community_domains')
    .innerJoin('communities', 'communities.id', 'community_domains.community_id')
    .selectAll('communities')
    .where('community_domains.hostname', '=', host)
    .executeTakeFirst();
  if (viaDomain) return viaDomain;
  const dev = DEV_HOST.exec(host);
  return dev ? findCommunityByTag(db, dev[1]) : undefined;
}

/**
 * The viewer behind a user id for this community: one membership lookup (none when anonymous).
 * If the membership cannot be read, the user counts as signed in but not a member, so nothing
 * member-only is shown on a failure (fail closed).
 */
export async function communityViewer(db: Db, communityId: string, userId: string | null): Promise<Viewer> {
  if (userId === null) return { userId: null };
  try {
    return await viewerOf(db, communityId, userId);
  } catch {
    return { userId, membership: null };
  }
}

/** The public community object for `viewer` (anonymous unless given). */
export async function toPublicCommunity(db: Db, row: CommunityRow, viewer: Viewer = { userId: null }): Promise<Community> {
  const domains = await db.selectFrom('community_domains').select('hostname')
    .where('community_id', '=', row.id).orderBy('hostname').execute();
  const pageSettings = parseJson<unknown>(row.page_settings, []);
  const storefront = parseJson<Community['storefrontConfig']>(row.storefront_config, {});
  const storefrontConfig = storefront && typeof storefront === 'object' && 'nav' in storefront
    ? { ...storefront, nav: filterNav(storefront.nav, viewer, { visibility: row.visibility, pageSettings }) }
    : storefront;
  return {
    communityTag: row.tag,
    name: row.name,
    visibility: row.visibility,
    accessibility: row.accessibility,
    pageSettings: pageSettings as Community['pageSettings'],
    storefrontConfig,
    themeConfig: parseJson(row.theme_config, {}),
    features: parseJson(row.features, []),
    domains: domains.map((d) => d.hostname),
  };
}
