// Where a community's broadcast links point: its hosted site, which serves the unsubscribe page
// and the web version. The site's origin is its first registered domain (by name, so it is the
// same every time), else `<tag>.<SVC_SITE_DOMAIN>`, on the platform's scheme and port, as the
// demo's and the sign-in pages' links to a hosted site are.
import type { Db, Trx } from '../db/index.ts';

export async function communitySiteOrigin(
  db: Db | Trx,
  community: { id: string; tag: string },
  platformUrl: string,
  siteDomain: string,
): Promise<string> {
  const domain = await db
    .selectFrom('community_domains')
    .select('hostname')
    .where('community_id', '=', community.id)
    .orderBy('hostname')
    .limit(1)
    .executeTakeFirst();
  const platform = new URL(platformUrl);
  const host = domain?.hostname ?? `${community.tag}.${siteDomain}`;
  return `${platform.protocol}//${host}${platform.port ? `:${platform.port}` : ''}`;
}

export const unsubscribeUrl = (origin: string, token: string): string =>
  `${origin}/unsubscribe?token=${encodeURIComponent(token)}`;
