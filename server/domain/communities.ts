// Communities: lookup by tag or domain, and the public community object. The object is the
// whole public configuration as one viewer may see it (the nav is filtered by `visibleWhen`); it
// never carries secrets, e-mails or keys.
import type { Feature } from '../../contract/enums.ts';
import type { Community } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import type { CommunityRow } from '../db/schema.ts';
import { parseJson } from '../db/ids.ts';
import { audienceOf, type EventAudience } from './events.ts';
import { Refusal } from './refusal.ts';
import { filterNav } from './nav.ts';
import { viewerOf, type Viewer } from './page-access.ts';

/**
 * How long community data that every request needs (which community a host serves, a community's
 * origins) is trusted in a process. A change made in this process forgets it at once
 * (forgetCommunityCaches); one made by another process (the CLI, another instance) is seen
 * within this time. Documented in docs/api.md, "Caching".
 */
export const COMMUNITY_CACHE_MS = 5000;

/** Every CommunityCache, so that a change to a community can forget them all at once. */
const communityCaches = new Set<CommunityCache<unknown>>();

/**
 * Community data per database handle, trusted for COMMUNITY_CACHE_MS (an answer of "no such
 * community" too, so unknown hosts and tags cost one query per key and period, not one per request).
 */
export class CommunityCache<T> {
  readonly #byDb = new WeakMap<Db, Map<string, { value: T; at: number }>>();

  constructor() {
    communityCaches.add(this as CommunityCache<unknown>);
  }

  async get(db: Db, key: string, load: () => Promise<T>): Promise<T> {
    let entries = this.#byDb.get(db);
    if (!entries) this.#byDb.set(db, (entries = new Map()));
    const hit = entries.get(key);
    if (hit && Date.now() - hit.at < COMMUNITY_CACHE_MS) return hit.value;
    const value = await load();
    if (entries.size > 10_000) entries.clear();
    entries.set(key, { value, at: Date.now() });
    return value;
  }

  forget(db: Db): void {
    this.#byDb.delete(db);
  }
}

/**
 * Forgets everything cached about communities in this process, for this database. A settings
 * change can move a domain from one community to another, so every entry goes, not one tag's.
 */
export function forgetCommunityCaches(db: Db): void {
  for (const cache of communityCaches) cache.forget(db);
}

export async function findCommunityByTag(db: Db, tag: string): Promise<CommunityRow | undefined> {
  return db.selectFrom('communities').selectAll().where('tag', '=', tag).executeTakeFirst();
}

/** What a sale (an RSVP, a checkout, a donation) needs of its community: read once per request. */
export interface SaleCommunity {
  id: string;
  tag: string;
  name: string;
  /** themeConfig.brandColor, for the ticket e-mail. */
  brandColor: string | null;
  /** Who may see its events, for the widgets' "publicly shown events only" rule. */
  events: EventAudience;
}

/** What a sale needs of its community, read once per request; a community that is gone is refused. */
export async function saleCommunity(db: Db, by: { id: string } | { tag: string }): Promise<SaleCommunity> {
  const query = db
    .selectFrom('communities')
    .select(['id', 'tag', 'name', 'theme_config', 'visibility', 'page_settings']);
  const row = await ('id' in by ? query.where('id', '=', by.id) : query.where('tag', '=', by.tag)).executeTakeFirst();
  if (!row) throw new Refusal('community_not_found');
  const brandColor = parseJson<{ brandColor?: unknown } | null>(row.theme_config, null)?.brandColor;
  return {
    id: row.id,
    tag: row.tag,
    name: row.name,
    brandColor: typeof brandColor === 'string' ? brandColor : null,
    events: audienceOf(row.id, row),
  };
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
 * The community whose hosted site `hostname` is: one of its registered domains, `<tag>.localhost`,
 * or `<tag>.<siteDomain>` (SVC_SITE_DOMAIN).
 */
export async function findCommunityForSite(
  db: Db,
  hostname: string,
  siteDomain: string,
): Promise<CommunityRow | undefined> {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const found = await findCommunityByDomain(db, host);
  if (found || siteDomain === 'localhost' || !host.endsWith(`.${siteDomain}`)) return found;
  const tag = host.slice(0, -(siteDomain.length + 1));
  return /^[a-z0-9][a-z0-9-]*$/.test(tag) ? findCommunityByTag(db, tag) : undefined;
}

const siteCommunities = new CommunityCache<CommunityRow | null>();

/**
 * findCommunityForSite, cached like the other community lookups (5 s, forgotten on a settings
 * change): every request on a community's host asks it once, for its pages and its session site.
 */
export async function communityForSite(
  db: Db,
  hostname: string,
  siteDomain: string,
): Promise<CommunityRow | undefined> {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const key = `${siteDomain}\n${host}`;
  return (
    (await siteCommunities.get(db, key, async () => (await findCommunityForSite(db, host, siteDomain)) ?? null)) ??
    undefined
  );
}

/** The tag of the community whose site `hostname` is (see findCommunityForSite), or null. */
export async function communityTagForHost(db: Db, hostname: string, siteDomain: string): Promise<string | null> {
  return (await communityForSite(db, hostname, siteDomain))?.tag ?? null;
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
export async function toPublicCommunity(
  db: Db,
  row: CommunityRow,
  viewer: Viewer = { userId: null },
): Promise<Community> {
  const domains = await db
    .selectFrom('community_domains')
    .select('hostname')
    .where('community_id', '=', row.id)
    .orderBy('hostname')
    .execute();
  const pageSettings = parseJson<unknown>(row.page_settings, []);
  const storefront = parseJson<Community['storefrontConfig']>(row.storefront_config, {});
  const storefrontConfig =
    storefront && typeof storefront === 'object' && 'nav' in storefront
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

/** Whether the community has `feature` switched on; unreadable features count as none (fail closed). */
export function hasFeature(community: Pick<CommunityRow, 'features'>, feature: Feature): boolean {
  try {
    const features = parseJson<unknown>(community.features, []);
    return Array.isArray(features) && features.includes(feature);
  } catch {
    return false;
  }
}
