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
  type FixtureIssue,
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

/** Domains this update adds that another community already serves. */
async function domainConflicts(
  trx: Trx,
  communityId: string,
  update: CommunitySettingsUpdate,
): Promise<FixtureIssue[]> {
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
  return domains.flatMap((d, i) => {
    const owner = ownerOf.get(d);
    return owner ? [{ path: `domains[${i}]`, message: `domain is already used by community "${owner}"` }] : [];
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

/**
 * Validates `input` (a FixtureError naming each field otherwise), compares it with the stored
 * settings and, unless `dryRun`, writes the changes in one transaction. Null when there is no
 * community `tag`. `source` names the file in error messages.
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
    // A no-op write that takes the row's lock first: two updates of one community run one after
    // the other, each comparing with what the other wrote.
    await trx
      .updateTable('communities')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('tag', '=', tag)
      .execute();
    const row = await trx.selectFrom('communities').selectAll().where('tag', '=', tag).executeTakeFirst();
    if (!row) return null;
    const conflicts = await domainConflicts(trx, row.id, update);
    if (conflicts.length > 0) throw new FixtureError(conflicts, opts.source, SETTINGS_FILE);
    const domains = await trx
      .selectFrom('community_domains')
      .select('hostname')
      .where('community_id', '=', row.id)
      .orderBy('hostname')
      .execute();
    const changes = changesBetween(
      storedSettings(
        row,
        domains.map((d) => d.hostname),
      ),
      update,
    );
    const applied = !opts.dryRun && changes.length > 0;
    if (applied) await applyChanges(trx, row.id, changes);
    return { tag, communityId: row.id, changes, applied };
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
