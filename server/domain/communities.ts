// Communities: lookup by tag or domain, and the public community object. The object is the
// whole public configuration; it never carries secrets, e-mails or keys.
import type { Community } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import type { CommunityRow } from '../db/schema.ts';
import { parseJson } from '../db/ids.ts';

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

export async function toPublicCommunity(db: Db, row: CommunityRow): Promise<Community> {
  const domains = await db.selectFrom('community_domains').select('hostname')
    .where('community_id', '=', row.id).orderBy('hostname').execute();
  return {
    communityTag: row.tag,
    name: row.name,
    visibility: row.visibility,
    accessibility: row.accessibility,
    pageSettings: parseJson(row.page_settings, []),
    storefrontConfig: parseJson(row.storefront_config, {}),
    themeConfig: parseJson(row.theme_config, {}),
    features: parseJson(row.features, []),
    domains: domains.map((d) => d.hostname),
  };
}
