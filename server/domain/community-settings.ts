// Changing an existing community's settings (`svc community update`): the import file only ever
// adds, so this is how a customer's new site becomes an embed origin, a page goes members-only or
// a domain moves. The file is a partial of the import file's community settings
// (contract/fixture.ts CommunitySettingsUpdate): a field given replaces the stored value, one left
// out stays. Validated whole, compared with what is stored, applied in one transaction, and then
// every cache of community data in this process is forgotten; other processes see the change
// within COMMUNITY_CACHE_MS (docs/api.md, "Caching").
import {
  COMMUNITY_SETTINGS_FIELDS,
  CommunitySettingsUpdate,
  fixtureIssues,
  type CommunitySettingsField,
} from '../../contract/fixture.ts';
import { isUniqueViolation, transaction, type Db, type Trx } from '../db/index.ts';
import { nowIso, parseJson } from '../db/ids.ts';
import type { CommunityRow } from '../db/schema.ts';
import { forgetCommunityCaches } from './communities.ts';
import { FixtureError } from './import.ts';

export type CommunitySettings = Record<CommunitySettingsField, unknown>;

export interface SettingsChange {
  field: CommunitySettingsField;
  before: unknown;
  after: unknown;
}

export interface SettingsUpdateResult {
  tag: string;
  communityId: string;
  /** Only the fields whose value changes, in the order of COMMUNITY_SETTINGS_FIELDS. */
  changes: SettingsChange[];
  /** False for a dry run, and when nothing changes. */
  applied: boolean;
}

const SETTINGS_FILE = 'settings file';

/** Fields whose value is a set of strings: a new order alone is not a change. */
const SET_FIELDS: ReadonlySet<CommunitySettingsField> = new Set(['domains', 'embedOrigins']);

function storedSettings(row: CommunityRow, domains: string[]): CommunitySettings {
  return {
    visibility: row.visibility,
    accessibility: row.accessibility,
    domains,
    landingUrl: row.landing_url,
    embedOrigins: parseJson<unknown>(row.embed_origins, []),
    pageSettings: parseJson<unknown>(row.page_settings, []),
    storefrontConfig: parseJson<unknown>(row.storefront_config, {}),
    themeConfig: parseJson<unknown>(row.theme_config, {}),
  };
}

/** JSON with object keys sorted, so equal values compare equal whatever order they were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** A value as compared: sets of strings in sorted order. */
function comparable(field: CommunitySettingsField, value: unknown): string {
  return canonical(SET_FIELDS.has(field) && Array.isArray(value) ? [...(value as string[])].sort() : value);
}

function changesBetween(before: CommunitySettings, update: CommunitySettingsUpdate): SettingsChange[] {
  return COMMUNITY_SETTINGS_FIELDS.filter(
    (field) => field in update && comparable(field, before[field]) !== comparable(field, update[field]),
  ).map((field) => ({ field, before: before[field], after: update[field] }));
}

/** A domain of an update that another community already serves: its index, and that community's tag. */
export interface TakenDomain {
  index: number;
  owner: string;
}

async function domainConflicts(trx: Trx, communityId: string, update: CommunitySettingsUpdate): Promise<TakenDomain[]> {
  const domains = update.domains ?? [];
  if (domains.length === 0) return [];
  const owners = await trx
    .selectFrom('community_domains')
    .innerJoin('communities', 'communities.id', 'community_domains.community_id')
    .select(['community_domains.hostname', 'communities.tag'])
    .where('community_domains.hostname', 'in', domains)
    .where('community_domains.community_id', '<>', communityId)
    .execute();
  const ownerOf = new Map(owners.map((o) => [o.hostname, o.tag]));
  return domains.flatMap((d, index) => {
    const owner = ownerOf.get(d);
    return owner ? [{ index, owner }] : [];
  });
}

async function applyChanges(trx: Trx, communityId: string, changes: SettingsChange[]): Promise<void> {
  const after = Object.fromEntries(changes.map((c) => [c.field, c.after])) as Partial<CommunitySettings>;
  const json = (field: CommunitySettingsField) => (field in after ? JSON.stringify(after[field]) : undefined);
  await trx
    .updateTable('communities')
    .set({
      visibility: after.visibility as CommunityRow['visibility'] | undefined,
      accessibility: after.accessibility as CommunityRow['accessibility'] | undefined,
      landing_url: 'landingUrl' in after ? (after.landingUrl as string | null) : undefined,
      embed_origins: json('embedOrigins'),
      page_settings: json('pageSettings'),
      storefront_config: json('storefrontConfig'),
      theme_config: json('themeConfig'),
      updated_at: nowIso(),
    })
    .where('id', '=', communityId)
    .execute();
  if (!('domains' in after)) return;
  const wanted = after.domains as string[];
  let removed = trx.deleteFrom('community_domains').where('community_id', '=', communityId);
  if (wanted.length > 0) removed = removed.where('hostname', 'not in', wanted);
  await removed.execute();
  const have = new Set(
    (
      await trx.selectFrom('community_domains').select('hostname').where('community_id', '=', communityId).execute()
    ).map((r) => r.hostname),
  );
  const added = wanted.filter((d) => !have.has(d));
  if (added.length > 0)
    await trx
      .insertInto('community_domains')
      .values(added.map((hostname) => ({ hostname, community_id: communityId })))
      .execute();
}

/** What changeSettingsIn found: the changes (applied unless a dry run), or the domains that clash. */
export type SettingsChangeOutcome =
  | { communityId: string; changes: SettingsChange[]; takenDomains: [] }
  | { communityId: string; changes: []; takenDomains: TakenDomain[] };

/**
 * The settings of one community as stored (the import file's fields), read in `db` or a
 * transaction; null when there is no such community.
 */
export async function readCommunitySettings(db: Db | Trx, communityId: string): Promise<CommunitySettings | null> {
  const row = await db.selectFrom('communities').selectAll().where('id', '=', communityId).executeTakeFirst();
  if (!row) return null;
  return storedSettings(row, await domainsOf(db, row.id));
}

async function domainsOf(db: Db | Trx, communityId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('community_domains')
    .select('hostname')
    .where('community_id', '=', communityId)
    .orderBy('hostname')
    .execute();
  return rows.map((d) => d.hostname);
}

/**
 * Compares a validated update with the stored settings of the community `where` names and, unless
 * `dryRun`, writes the changes, all in the caller's transaction (so the leader console writes its
 * audit entry beside them). Null when there is no such community. A domain another community
 * serves changes nothing: its index is in `takenDomains`. The caller forgets the caches once the
 * transaction has committed (forgetCommunityCaches, and the console tells other processes).
 */
export async function changeSettingsIn(
  trx: Trx,
  where: { tag: string } | { id: string },
  update: CommunitySettingsUpdate,
  opts: { dryRun?: boolean } = {},
): Promise<SettingsChangeOutcome | null> {
  const [column, value] = 'tag' in where ? (['tag', where.tag] as const) : (['id', where.id] as const);
  // A no-op write that takes the row's lock first: two updates of one community run one after
  // the other, each comparing with what the other wrote.
  await trx
    .updateTable('communities')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where(column, '=', value)
    .execute();
  const row = await trx.selectFrom('communities').selectAll().where(column, '=', value).executeTakeFirst();
  if (!row) return null;
  const takenDomains = await domainConflicts(trx, row.id, update);
  if (takenDomains.length > 0) return { communityId: row.id, changes: [], takenDomains };
  const changes = changesBetween(storedSettings(row, await domainsOf(trx, row.id)), update);
  if (!opts.dryRun && changes.length > 0) await applyChanges(trx, row.id, changes);
  return { communityId: row.id, changes, takenDomains: [] };
}

/**
 * `svc community update`: validates `input` (a FixtureError naming each field otherwise), compares
 * it with the stored settings and, unless `dryRun`, writes the changes in one transaction. Null
 * when there is no community `tag`. `source` names the file in error messages.
 */
export async function updateCommunitySettings(
  db: Db,
  tag: string,
  input: unknown,
  opts: { dryRun?: boolean; source?: string } = {},
): Promise<SettingsUpdateResult | null> {
  const parsed = CommunitySettingsUpdate.safeParse(input);
  if (!parsed.success) throw new FixtureError(fixtureIssues(parsed.error), opts.source, SETTINGS_FILE);
  const update = parsed.data;
  const result = await transaction(db, async (trx) => {
    const outcome = await changeSettingsIn(trx, { tag }, update, opts);
    if (!outcome) return null;
    if (outcome.takenDomains.length > 0)
      throw new FixtureError(
        outcome.takenDomains.map(({ index, owner }) => ({
          path: `domains[${index}]`,
          message: `domain is already used by community "${owner}"`,
        })),
        opts.source,
        SETTINGS_FILE,
      );
    const { communityId, changes } = outcome;
    return { tag, communityId, changes, applied: !opts.dryRun && changes.length > 0 };
  }).catch((err: unknown) => {
    // Another community took one of the domains since it was checked.
    if (isUniqueViolation(err))
      throw new FixtureError(
        [{ path: 'domains', message: 'a domain was taken by another community meanwhile' }],
        opts.source,
        SETTINGS_FILE,
      );
    throw err;
  });
  if (result?.applied) forgetCommunityCaches(db);
  return result;
}

/**
 * The index of the first of `domains` that is one of the platform's own hosts, or -1: `localhost`
 * and `*.localhost`, the host of SVC_PUBLIC_URL, SVC_SITE_DOMAIN and its subdomains. A registered
 * domain is looked up before `<tag>.localhost` and `<tag>.<SVC_SITE_DOMAIN>`
 * (findCommunityForSite), so one of these on a community would take another community's site.
 */
export function platformHostIndex(domains: readonly string[], platform: { publicUrl: string; siteDomain?: string }) {
  const own = [new URL(platform.publicUrl).hostname.toLowerCase(), 'localhost'];
  if (platform.siteDomain) own.push(platform.siteDomain.toLowerCase());
  return domains.findIndex((d) => own.some((host) => d === host || d.endsWith(`.${host}`)));
}
