// Imports a fixture file (contract/fixture.ts) into the database in one transaction.
//
// The rule that makes it idempotent: import is additive. Every row has a natural key (community
// tag, user e-mail/usertag, (community, slug) events, (event, name) tiers, ...). A row whose key
// already exists is left exactly as it is (counted `unchanged`), a missing row is created. So a
// second import of the same file creates nothing, and a demo file with relative dates does not
// drag existing events around each time it is imported. Changing existing rows is the admin
// API's job, not the importer's.
import fs from 'node:fs/promises';
import { PostgresAdapter, sql } from 'kysely';
import type { Scope } from '../../contract/enums.ts';
import {
  formatFixturePath,
  parseFixture,
  type Fixture,
  type FixtureCommunity,
  type FixtureIssue,
  type FixtureUser,
} from '../../contract/fixture.ts';
import { transaction, type Db, type Trx } from '../db/index.ts';
import { newId, parseJson } from '../db/ids.ts';
import type { WebhookEndpointStatus } from '../db/schema.ts';
import { createEndpoint } from '../webhooks/endpoints.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import { checkReceiverUrl, type LookupFn, type ReceiverPolicy, type ResolvedAddress } from '../webhooks/ssrf.ts';
import { createSecretKey, provisionPublishableKey } from './api-keys.ts';
import { hashPassword } from './passwords.ts';
import { sanitizeArticleHtml } from './article-html.ts';
import { directKey } from './conversations.ts';

// ---------------------------------------------------------------------------------------------
// Result and errors

export const COUNT_KINDS = [
  'communities',
  'domains',
  'users',
  'memberships',
  'events',
  'tiers',
  'articles',
  'products',
  'segments',
  'atlasCategories',
  'atlasHotspots',
  'conversations',
  'apiKeys',
  'webhooks',
] as const;
export type CountKind = (typeof COUNT_KINDS)[number];
export interface Count {
  created: number;
  unchanged: number;
}
export type Counts = Record<CountKind, Count>;

export interface ImportedSecretKey {
  id: string;
  name: string;
  /** The whole `sk_live_` key when this import created it; null when it already existed (shown once). */
  key: string | null;
  prefix: string;
  scopes: Scope[];
}

export interface ImportedWebhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookEndpointStatus;
  /** The signing secret when this import registered the endpoint; null when it already was (shown once). */
  secret: string | null;
  /**
   * For a new endpoint, false when its host did not resolve at import time (it is accepted and
   * checked again at every delivery); null for an endpoint that was already registered.
   */
  resolved: boolean | null;
}

export interface ImportedCommunity {
  tag: string;
  id: string;
  publishableKey: string;
  secretKeys: ImportedSecretKey[];
  webhooks: ImportedWebhook[];
  counts: Counts;
}

export interface ImportResult {
  communities: ImportedCommunity[];
  /** Sums over all communities. A user listed under several communities counts once. */
  totals: Counts;
  created: number;
  unchanged: number;
}

/**
 * A fixture (or another file in its schema, `what`: a settings file) that does not validate, or
 * does not fit what the database already holds.
 */
export class FixtureError extends Error {
  constructor(
    readonly issues: FixtureIssue[],
    source?: string,
    readonly what = 'fixture',
  ) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(
      `invalid ${what}${source ? ` ${source}` : ''} (${count}):\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
    );
    this.name = 'FixtureError';
  }
}

/**
 * Import only adds: of `items`, those whose natural key is not yet in `have` are returned to be
 * created, and `count` records how many were created and how many already existed.
 */
function onlyMissing<T>(items: T[], have: Iterable<string>, keyOf: (item: T) => string, count: Count): T[] {
  const existing = new Set(have);
  const missing = items.filter((item) => !existing.has(keyOf(item)));
  count.unchanged += items.length - missing.length;
  count.created += missing.length;
  return missing;
}

const emptyCounts = (): Counts =>
  Object.fromEntries(COUNT_KINDS.map((k) => [k, { created: 0, unchanged: 0 }])) as Counts;

// ---------------------------------------------------------------------------------------------
// Entry points

/** Reads and JSON-parses a fixture file (or a settings file, `what`); a missing file or bad JSON is a FixtureError. */
export async function readFixtureFile(file: string, what = 'fixture'): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new FixtureError([{ path: '(file)', message: `cannot read the file: ${why}` }], file, what);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FixtureError([{ path: '(file)', message: `not valid JSON: ${(err as Error).message}` }], file, what);
  }
}

export interface ImportOptions {
  /** The instant relative dates resolve against and rows are stamped with. Default: now. */
  now?: Date;
  /** What image paths in the file (`/demo/banners/…`) resolve against: SVC_PUBLIC_URL. */
  baseUrl?: string;
  /**
   * What registering webhook endpoints needs: the key that encrypts their signing secrets and the
   * receiver policy (private addresses allowed or not, DNS). Required when the file has webhooks.
   */
  webhooks?: { secrets: SecretBox; policy: ReceiverPolicy };
}

/**
 * Validates `input` as an import file and imports it in one transaction: everything or nothing.
 * Throws FixtureError (with JSON paths) when the file is invalid or conflicts with the database.
 */
export async function importFixture(db: Db, input: unknown, opts: ImportOptions = {}): Promise<ImportResult> {
  const now = opts.now ?? new Date();
  const parsed = parseFixture(input, { now, baseUrl: opts.baseUrl });
  if (!parsed.success) throw new FixtureError(parsed.issues);
  const fixture = parsed.data;
  // Receiver URLs are checked (and their names resolved) before the transaction opens, so no DNS
  // lookup holds it open; the registration inside reuses these answers.
  const hooks = webhookContext(fixture, opts.webhooks);
  const receiverIssues = await checkReceivers(fixture, hooks);

  return transaction(db, async (trx) => {
    await holdEventWriters(trx, fixture);
    const issues = [...(await checkAgainstDatabase(trx, fixture)), ...receiverIssues];
    if (issues.length > 0) throw new FixtureError(issues);

    const stamp = now.toISOString();
    const counts = fixture.communities.map(() => emptyCounts());
    const userIds = await importUsers(trx, fixture, counts, stamp);
    const communities: ImportedCommunity[] = [];
    for (const [i, c] of fixture.communities.entries()) {
      communities.push(await importCommunity(trx, c, counts[i], userIds, stamp, hooks));
    }
    const totals = emptyCounts();
    for (const c of communities) {
      for (const k of COUNT_KINDS) {
        totals[k].created += c.counts[k].created;
        totals[k].unchanged += c.counts[k].unchanged;
      }
    }
    const sum = (f: keyof Count) => COUNT_KINDS.reduce((n, k) => n + totals[k][f], 0);
    return { communities, totals, created: sum('created'), unchanged: sum('unchanged') };
  });
}

/**
 * Each event the import inserts updates its class's year, month, day and hour counters
 * (migration 0029), one statement per event, so across the transaction it takes those counter
 * rows in the fixture's order, not the key order a single statement's upsert keeps. Another
 * transaction writing events of the same community (another import, a bulk loader) could then
 * hold a row this one waits for while waiting for one this one holds: a deadlock. So on
 * PostgreSQL an import with events first takes SHARE ROW EXCLUSIVE on events, before it locks any
 * counter row: other event writers wait for it, or it for them, whole. Readers, and writes that
 * only reference events (tickets, tiers), go on. Only imports and loaders write events, so
 * nothing a request does waits. SQLite has one writer at a time.
 */
async function holdEventWriters(trx: Trx, f: Fixture): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  if (!f.communities.some((c) => c.events.length > 0)) return;
  await sql`lock table ${sql.table('events')} in share row exclusive mode`.execute(trx);
}

// ---------------------------------------------------------------------------------------------
// Checks that need the database: references and conflicts the schema cannot see

const at = (...path: PropertyKey[]) => formatFixturePath(path);

async function checkAgainstDatabase(trx: Trx, f: Fixture): Promise<FixtureIssue[]> {
  const issues: FixtureIssue[] = [];
  const fileUsers = new Map<string, { user: FixtureUser; path: PropertyKey[] }>();
  f.communities.forEach((c, ci) =>
    c.users.forEach((u, ui) => {
      if (!fileUsers.has(u.usertag)) fileUsers.set(u.usertag, { user: u, path: ['communities', ci, 'users', ui] });
    }),
  );

  const refs = new Set<string>();
  for (const c of f.communities) {
    refs.add(c.founder);
    c.memberships.forEach((m) => refs.add(m.usertag));
    c.products.forEach((p) => {
      if (p.seller) refs.add(p.seller);
    });
  }
  const emails = [...fileUsers.values()].map((u) => u.user.email);
  const tags = [...new Set([...fileUsers.keys(), ...refs])];
  const phones = [...fileUsers.values()].flatMap((u) => (u.user.phone ? [u.user.phone] : []));
  // `tags` is never empty: every community names its founder.
  const dbUsers = await trx
    .selectFrom('users')
    .select(['id', 'email', 'usertag', 'phone'])
    .where((eb) =>
      eb.or([
        eb('usertag', 'in', tags),
        ...(emails.length > 0 ? [eb('email', 'in', emails)] : []),
        ...(phones.length > 0 ? [eb('phone', 'in', phones)] : []),
      ]),
    )
    .execute();
  const dbByEmail = new Map(dbUsers.map((u) => [u.email, u]));
  const dbByTag = new Map(dbUsers.map((u) => [u.usertag, u]));
  const dbByPhone = new Map(dbUsers.filter((u) => u.phone).map((u) => [u.phone as string, u]));

  const filePhones = new Map<string, string>();
  for (const [tag, { user, path }] of fileUsers) {
    const byEmail = dbByEmail.get(user.email);
    const byTag = dbByTag.get(tag);
    if (byEmail && byEmail.usertag !== tag) {
      issues.push({
        path: at(...path, 'email'),
        message: `e-mail already belongs to the existing user "${byEmail.usertag}"`,
      });
    } else if (byTag && byTag.email !== user.email) {
      issues.push({
        path: at(...path, 'usertag'),
        message: 'usertag is taken by an existing user with another e-mail',
      });
    }
    if (user.phone) {
      const owner = dbByPhone.get(user.phone);
      const otherInFile = filePhones.get(user.phone);
      if (owner && owner.usertag !== tag)
        issues.push({ path: at(...path, 'phone'), message: 'phone number belongs to another existing user' });
      else if (otherInFile && otherInFile !== tag)
        issues.push({
          path: at(...path, 'phone'),
          message: `phone number is also given to "${otherInFile}" in this file`,
        });
      filePhones.set(user.phone, tag);
    }
  }
  const knownUser = (tag: string) => fileUsers.has(tag) || dbByTag.has(tag);
  const noUser = (tag: string) => `no user "${tag}" in this file or the database`;

  const tagsInFile = f.communities.map((c) => c.tag);
  const existing = new Map(
    (await trx.selectFrom('communities').select(['id', 'tag']).where('tag', 'in', tagsInFile).execute()).map((r) => [
      r.tag,
      r.id,
    ]),
  );
  const allDomains = f.communities.flatMap((c) => c.domains);
  const domainRows =
    allDomains.length === 0
      ? []
      : await trx
          .selectFrom('community_domains')
          .innerJoin('communities', 'communities.id', 'community_domains.community_id')
          .select(['community_domains.hostname', 'community_domains.community_id', 'communities.tag'])
          .where('community_domains.hostname', 'in', allDomains)
          .execute();
  const domainOwner = new Map(domainRows.map((d) => [d.hostname, d]));

  for (const [ci, c] of f.communities.entries()) {
    const communityId = existing.get(c.tag);
    if (!knownUser(c.founder)) issues.push({ path: at('communities', ci, 'founder'), message: noUser(c.founder) });
    c.memberships.forEach((m, mi) => {
      if (!knownUser(m.usertag))
        issues.push({ path: at('communities', ci, 'memberships', mi, 'usertag'), message: noUser(m.usertag) });
    });
    c.products.forEach((p, pi) => {
      if (p.seller && !knownUser(p.seller))
        issues.push({ path: at('communities', ci, 'products', pi, 'seller'), message: noUser(p.seller) });
    });
    c.domains.forEach((d, di) => {
      const owner = domainOwner.get(d);
      if (owner && owner.community_id !== communityId) {
        issues.push({
          path: at('communities', ci, 'domains', di),
          message: `domain is already used by community "${owner.tag}"`,
        });
      }
    });

    // Membership segments: by name, among this community's segments in the file or in the database.
    const segmentNames = new Set(c.segments.map((s) => s.name));
    if (communityId) {
      const rows = await trx.selectFrom('segments').select('name').where('community_id', '=', communityId).execute();
      rows.forEach((r) => segmentNames.add(r.name));
    }
    c.memberships.forEach((m, mi) => {
      if (m.segment && !segmentNames.has(m.segment)) {
        issues.push({
          path: at('communities', ci, 'memberships', mi, 'segment'),
          message: `no segment named "${m.segment}" in this community`,
        });
      }
    });

    // A new featured event cannot displace one the database already has (one per community).
    const fi = c.events.findIndex((e) => e.featured);
    if (communityId && fi >= 0) {
      const current = await trx
        .selectFrom('events')
        .select('slug')
        .where('community_id', '=', communityId)
        .where('featured', '=', 1)
        .executeTakeFirst();
      if (current && current.slug !== c.events[fi].slug) {
        const exists = await trx
          .selectFrom('events')
          .select('id')
          .where('community_id', '=', communityId)
          .where('slug', '=', c.events[fi].slug)
          .executeTakeFirst();
        if (!exists) {
          issues.push({
            path: at('communities', ci, 'events', fi, 'featured'),
            message: `community already has a featured event ("${current.slug}")`,
          });
        }
      }
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Writers. Each looks its rows up by natural key once, then inserts only what is missing.

/** Creates the file's users; returns usertag -> id for every user the file refers to. */
async function importUsers(trx: Trx, f: Fixture, counts: Counts[], stamp: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const refs = new Set<string>();
  for (const c of f.communities) {
    refs.add(c.founder);
    c.memberships.forEach((m) => refs.add(m.usertag));
    c.products.forEach((p) => {
      if (p.seller) refs.add(p.seller);
    });
    c.users.forEach((u) => refs.add(u.usertag));
  }
  // Never empty: every community names its founder.
  const rows = await trx
    .selectFrom('users')
    .select(['id', 'usertag'])
    .where('usertag', 'in', [...refs])
    .execute();
  rows.forEach((r) => ids.set(r.usertag, r.id));

  for (const [ci, c] of f.communities.entries()) {
    for (const u of c.users) {
      if (ids.has(u.usertag)) {
        counts[ci].users.unchanged++;
        continue;
      }
      const id = newId();
      await trx
        .insertInto('users')
        .values({
          id,
          email: u.email,
          name: u.name,
          usertag: u.usertag,
          profile_image: u.profileImage ?? null,
          bio: u.bio ?? null,
          phone: u.phone ?? null,
          password_hash: u.password ? await hashPassword(u.password) : null,
          created_at: stamp,
        })
        .execute();
      ids.set(u.usertag, id);
      counts[ci].users.created++;
    }
  }
  return ids;
}

async function importCommunity(
  trx: Trx,
  c: FixtureCommunity,
  counts: Counts,
  userIds: Map<string, string>,
  stamp: string,
  hooks: WebhookContext | null,
): Promise<ImportedCommunity> {
  const userId = (tag: string): string => {
    const id = userIds.get(tag);
    // checkAgainstDatabase has already reported unknown usertags.
    if (!id) throw new Error(`internal: user ${tag} was not resolved`);
    return id;
  };

  let communityId: string;
  const found = await trx.selectFrom('communities').select('id').where('tag', '=', c.tag).executeTakeFirst();
  if (found) {
    communityId = found.id;
    // A no-op write that takes the community's row lock (PostgreSQL) or the write lock (SQLite):
    // two imports into one community run one after the other instead of both adding a row.
    await trx
      .updateTable('communities')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', communityId)
      .execute();
    counts.communities.unchanged++;
  } else {
    communityId = newId();
    await trx
      .insertInto('communities')
      .values({
        id: communityId,
        tag: c.tag,
        name: c.name,
        visibility: c.visibility,
        accessibility: c.accessibility,
        page_settings: JSON.stringify(c.pageSettings),
        storefront_config: JSON.stringify(c.storefrontConfig),
        theme_config: JSON.stringify(c.themeConfig),
        features: JSON.stringify(c.features),
        landing_url: c.landingUrl ?? null,
        embed_origins: JSON.stringify(c.embedOrigins),
        rules_version: c.rulesVersion,
        founder_user_id: userId(c.founder),
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    counts.communities.created++;
  }

  await importDomains(trx, communityId, c, counts);
  const segmentIds = await importSegments(trx, communityId, c, counts, stamp);
  await importMemberships(trx, communityId, c, counts, userId, segmentIds, stamp);
  await importEvents(trx, communityId, c, counts, stamp);
  await importArticles(trx, communityId, c, counts, stamp);
  await importProducts(trx, communityId, c, counts, userId, stamp);
  await importAtlas(trx, communityId, c, counts, stamp);
  await importConversations(trx, c, counts, userId);
  const secretKeys = await importApiKeys(trx, communityId, c, counts);
  const webhooks = await importWebhooks(trx, communityId, c, counts, hooks);
  const publishableKey = await provisionPublishableKey(trx, communityId);
  return { tag: c.tag, id: communityId, publishableKey, secretKeys, webhooks, counts };
}

async function importDomains(trx: Trx, communityId: string, c: FixtureCommunity, counts: Counts): Promise<void> {
  const have = (
    await trx.selectFrom('community_domains').select('hostname').where('community_id', '=', communityId).execute()
  ).map((r) => r.hostname);
  const missing = onlyMissing(c.domains, have, (d) => d, counts.domains);
  if (missing.length > 0) {
    await trx
      .insertInto('community_domains')
      .values(missing.map((hostname) => ({ hostname, community_id: communityId })))
      .execute();
  }
}

async function importSegments(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  stamp: string,
): Promise<Map<string, string>> {
  const ids = new Map(
    (await trx.selectFrom('segments').select(['id', 'name']).where('community_id', '=', communityId).execute()).map(
      (r) => [r.name, r.id],
    ),
  );
  for (const [i, s] of c.segments.entries()) {
    if (ids.has(s.name)) {
      counts.segments.unchanged++;
      continue;
    }
    const id = newId();
    await trx
      .insertInto('segments')
      .values({
        id,
        community_id: communityId,
        name: s.name,
        description: s.description ?? null,
        color: s.color,
        currency: s.currency,
        price_monthly: s.priceMonthly ?? null,
        price_quarterly: s.priceQuarterly ?? null,
        price_yearly: s.priceYearly ?? null,
        price_one_time: s.priceOneTime ?? null,
        installment_total_price: s.installmentTotalPrice ?? null,
        installment_count: s.installmentCount ?? null,
        installment_interval_months: s.installmentIntervalMonths ?? null,
        access_duration_months: s.accessDurationMonths ?? null,
        installment_renews_annually: s.installmentRenewsAnnually ? 1 : 0,
        founding_price_monthly: s.foundingPriceMonthly ?? null,
        founding_price_quarterly: s.foundingPriceQuarterly ?? null,
        founding_price_yearly: s.foundingPriceYearly ?? null,
        founding_member_cap: s.foundingMemberCap ?? null,
        auto_approve: s.autoApprove ? 1 : 0,
        is_active: s.isActive ? 1 : 0,
        sort_order: i,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    if (s.form && s.form.length > 0) {
      await trx
        .insertInto('segment_forms')
        .values({ segment_id: id, schema: JSON.stringify(s.form) })
        .execute();
    }
    ids.set(s.name, id);
    counts.segments.created++;
  }
  return ids;
}

async function importMemberships(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  userId: (tag: string) => string,
  segmentIds: Map<string, string>,
  stamp: string,
): Promise<void> {
  const have = new Set(
    (await trx.selectFrom('memberships').select('user_id').where('community_id', '=', communityId).execute()).map(
      (r) => r.user_id,
    ),
  );
  // The founder is always an ACCEPTED member with the founder role, listed or not.
  const entries = c.memberships.some((m) => m.usertag === c.founder)
    ? c.memberships
    : [
        {
          usertag: c.founder,
          status: 'ACCEPTED' as const,
          role: 'founder' as const,
          segment: null,
          createdAt: undefined,
          acceptedAt: undefined,
        },
        ...c.memberships,
      ];
  for (const m of entries) {
    const uid = userId(m.usertag);
    if (have.has(uid)) {
      counts.memberships.unchanged++;
      continue;
    }
    const createdAt = m.createdAt ?? stamp;
    await trx
      .insertInto('memberships')
      .values({
        id: newId(),
        community_id: communityId,
        user_id: uid,
        status: m.status,
        role: m.usertag === c.founder ? 'founder' : (m.role ?? 'member'),
        segment_id: m.segment ? (segmentIds.get(m.segment) ?? null) : null,
        created_at: createdAt,
        // joinedAt in the directory is the acceptance time; an ACCEPTED row always has one.
        accepted_at: m.acceptedAt ?? (m.status === 'ACCEPTED' ? createdAt : null),
      })
      .execute();
    have.add(uid);
    counts.memberships.created++;
  }
}

async function importEvents(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  stamp: string,
): Promise<void> {
  const eventIds = new Map(
    (await trx.selectFrom('events').select(['id', 'slug']).where('community_id', '=', communityId).execute()).map(
      (r) => [r.slug, r.id],
    ),
  );
  const tierKeys = new Set(
    (await trx.selectFrom('tiers').select(['event_id', 'name']).where('community_id', '=', communityId).execute()).map(
      (r) => `${r.event_id}\u0000${r.name}`,
    ),
  );

  for (const e of c.events) {
    let eventId = eventIds.get(e.slug);
    if (eventId) {
      counts.events.unchanged++;
    } else {
      eventId = newId();
      await trx
        .insertInto('events')
        .values({
          id: eventId,
          community_id: communityId,
          slug: e.slug,
          name: e.name,
          description: e.description ?? null,
          start_date: e.startDate,
          end_date: e.endDate ?? null,
          location: e.location ? JSON.stringify(e.location) : null,
          banner_url: e.bannerUrl ?? null,
          format: e.format,
          // 1 or NULL, never 0: the partial unique index counts only featured = 1.
          featured: e.featured ? 1 : null,
          visibility: e.visibility,
          donation_config: e.donationConfig ? JSON.stringify(e.donationConfig) : null,
          created_at: stamp,
          updated_at: stamp,
        })
        .execute();
      counts.events.created++;
    }
    for (const [ti, t] of e.tiers.entries()) {
      if (tierKeys.has(`${eventId}\u0000${t.name}`)) {
        counts.tiers.unchanged++;
        continue;
      }
      const tierId = newId();
      await trx
        .insertInto('tiers')
        .values({
          id: tierId,
          event_id: eventId,
          community_id: communityId,
          name: t.name,
          price_cents: t.priceCents,
          currency: t.currency,
          capacity: t.capacity ?? null,
          sold: t.sold,
          is_active: t.isActive ? 1 : 0,
          sort_order: ti,
          created_at: stamp,
        })
        .execute();
      if (t.form && t.form.length > 0) {
        await trx
          .insertInto('tier_forms')
          .values({ tier_id: tierId, schema: JSON.stringify(t.form) })
          .execute();
      }
      counts.tiers.created++;
    }
  }
}

async function importArticles(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  stamp: string,
): Promise<void> {
  const have = (await trx.selectFrom('articles').select('slug').where('community_id', '=', communityId).execute()).map(
    (r) => r.slug,
  );
  const missing = onlyMissing(c.articles, have, (a) => a.slug, counts.articles);
  if (missing.length === 0) return;
  await trx
    .insertInto('articles')
    .values(
      missing.map((a) => ({
        id: newId(),
        community_id: communityId,
        slug: a.slug,
        title: a.title,
        excerpt: a.excerpt ?? '',
        // A fixture is as untrusted as an API call: its HTML goes through the same sanitizer.
        content: sanitizeArticleHtml(a.content ?? ''),
        category: a.category ?? null,
        banner_url: a.bannerUrl ?? null,
        status: a.status,
        // A published article has a publication time; a draft keeps one only if the file gives it.
        published_at: a.publishedAt ?? (a.status === 'PUBLISHED' ? stamp : null),
        created_at: stamp,
        updated_at: stamp,
      })),
    )
    .execute();
}

async function importProducts(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  userId: (tag: string) => string,
  stamp: string,
): Promise<void> {
  const have = (await trx.selectFrom('products').select('sku').where('community_id', '=', communityId).execute()).map(
    (r) => r.sku,
  );
  const missing = onlyMissing(c.products, have, (p) => p.sku, counts.products);
  if (missing.length === 0) return;
  await trx
    .insertInto('products')
    .values(
      missing.map((p) => ({
        id: newId(),
        community_id: communityId,
        sku: p.sku,
        name: p.name,
        description: p.description ?? null,
        price_cents: p.priceCents,
        currency: p.currency,
        image_url: p.imageUrl ?? null,
        is_active: p.isActive ? 1 : 0,
        seller_id: p.seller ? userId(p.seller) : null,
        donation_config: p.donationConfig ? JSON.stringify(p.donationConfig) : null,
        created_at: stamp,
        updated_at: stamp,
      })),
    )
    .execute();
}

async function importAtlas(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  stamp: string,
): Promise<void> {
  const byName = new Map(
    (
      await trx.selectFrom('atlas_categories').select(['id', 'name']).where('community_id', '=', communityId).execute()
    ).map((r) => [r.name, r.id]),
  );
  const byKey = new Map<string, string>();
  for (const [i, cat] of c.atlas.categories.entries()) {
    let id = byName.get(cat.name);
    if (id) {
      counts.atlasCategories.unchanged++;
    } else {
      id = newId();
      await trx
        .insertInto('atlas_categories')
        .values({
          id,
          community_id: communityId,
          name: cat.name,
          icon: cat.icon ?? null,
          color: cat.color ?? null,
          sort_order: i,
        })
        .execute();
      counts.atlasCategories.created++;
    }
    byKey.set(cat.key, id);
  }
  const haveHotspots = (
    await trx.selectFrom('atlas_hotspots').select('name').where('community_id', '=', communityId).execute()
  ).map((r) => r.name);
  const missing = onlyMissing(c.atlas.hotspots, haveHotspots, (h) => h.name, counts.atlasHotspots);
  if (missing.length === 0) return;
  await trx
    .insertInto('atlas_hotspots')
    .values(
      missing.map((h) => ({
        id: newId(),
        community_id: communityId,
        category_id: byKey.get(h.category) as string,
        name: h.name,
        description: h.description ?? null,
        latitude: h.latitude,
        longitude: h.longitude,
        image_url: h.imageUrl ?? null,
        created_at: stamp,
      })),
    )
    .execute();
}

/**
 * A direct conversation is one per pair of users (the messaging API's own rule, its `direct_key`),
 * so a pair that already has one is left as it is, messages and all; a new one gets its messages
 * numbered in order and the first speaker's side read up to their last message.
 */
async function importConversations(
  trx: Trx,
  c: FixtureCommunity,
  counts: Counts,
  userId: (tag: string) => string,
): Promise<void> {
  for (const conv of c.conversations) {
    const [a, b] = conv.between.map(userId);
    const key = directKey(a, b);
    const existing = await trx
      .selectFrom('conversations')
      .select('id')
      .where('direct_key', '=', key)
      .executeTakeFirst();
    if (existing) {
      counts.conversations.unchanged++;
      continue;
    }
    const id = newId();
    const messages = conv.messages.map((m, i) => ({
      id: newId(),
      conversation_id: id,
      seq: i + 1,
      sender_id: userId(m.from),
      body: m.body,
      created_at: m.at,
    }));
    const last = messages[messages.length - 1];
    await trx
      .insertInto('conversations')
      .values({
        id,
        kind: 'direct',
        direct_key: key,
        created_by: messages[0].sender_id,
        last_seq: last.seq,
        last_message_id: last.id,
        last_activity_at: last.created_at,
        created_at: messages[0].created_at,
      })
      .execute();
    await trx
      .insertInto('conversation_members')
      .values(
        [a, b].map((user) => {
          const own = messages.filter((m) => m.sender_id === user).at(-1);
          return {
            conversation_id: id,
            user_id: user,
            joined_at: messages[0].created_at,
            last_read_seq: own?.seq ?? 0,
            last_read_at: own?.created_at ?? null,
          };
        }),
      )
      .execute();
    await trx.insertInto('messages').values(messages).execute();
    counts.conversations.created++;
  }
}

/** A named key is created only when no live secret key of that name exists; its secret is shown once. */
async function importApiKeys(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
): Promise<ImportedSecretKey[]> {
  const live = new Map(
    (
      await trx
        .selectFrom('api_keys')
        .select(['id', 'name', 'key_prefix', 'scopes'])
        .where('community_id', '=', communityId)
        .where('kind', '=', 'secret')
        .where('revoked_at', 'is', null)
        .execute()
    )
      .filter((r) => r.name !== null)
      .map((r) => [r.name as string, r]),
  );
  const out: ImportedSecretKey[] = [];
  for (const k of c.apiKeys) {
    const existing = live.get(k.name);
    if (existing) {
      out.push({
        id: existing.id,
        name: k.name,
        key: null,
        prefix: existing.key_prefix,
        scopes: parseJson<Scope[]>(existing.scopes, []),
      });
      counts.apiKeys.unchanged++;
      continue;
    }
    const created = await createSecretKey(trx, communityId, k.scopes, k.name);
    out.push({ id: created.id, name: k.name, key: created.key, prefix: created.prefix, scopes: created.scopes });
    counts.apiKeys.created++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints

interface WebhookContext {
  secrets: SecretBox;
  policy: ReceiverPolicy;
}

/** The caller's secrets and policy, with a lookup that answers each host name once per import. */
function webhookContext(f: Fixture, given: ImportOptions['webhooks']): WebhookContext | null {
  if (!f.communities.some((c) => c.webhooks.length > 0)) return null;
  if (!given) {
    // A programming error, not a problem of the file: every caller that imports files with
    // webhooks (`svc import`) passes them.
    throw new Error(
      'importFixture: the file registers webhooks, so options.webhooks (secrets and receiver policy) is required',
    );
  }
  const answers = new Map<string, Promise<ResolvedAddress[]>>();
  const lookup: LookupFn = (host) => {
    let answer = answers.get(host);
    if (!answer) {
      answer = given.policy.lookup(host);
      // A failed lookup is an answer too (the host does not resolve); keep it from being unhandled.
      answer.catch(() => undefined);
      answers.set(host, answer);
    }
    return answer;
  };
  return { secrets: given.secrets, policy: { allowPrivate: given.policy.allowPrivate, lookup } };
}

/** Every receiver URL against the policy (https, public addresses), reported by JSON path. */
async function checkReceivers(f: Fixture, hooks: WebhookContext | null): Promise<FixtureIssue[]> {
  if (!hooks) return [];
  const issues: FixtureIssue[] = [];
  for (const [ci, c] of f.communities.entries()) {
    for (const [wi, w] of c.webhooks.entries()) {
      try {
        await checkReceiverUrl(w.url, hooks.policy);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'UNSAFE_RECEIVER') throw err;
        issues.push({ path: at('communities', ci, 'webhooks', wi, 'url'), message: (err as Error).message });
      }
    }
  }
  return issues;
}

/**
 * A receiver is registered only when the community has no endpoint with that URL that is not
 * removed (enabled or disabled); its signing secret is returned once. A removed endpoint does not
 * count, so re-importing registers the URL afresh.
 */
async function importWebhooks(
  trx: Trx,
  communityId: string,
  c: FixtureCommunity,
  counts: Counts,
  hooks: WebhookContext | null,
): Promise<ImportedWebhook[]> {
  if (c.webhooks.length === 0 || !hooks) return [];
  const rows = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'description', 'status'])
    .where('community_id', '=', communityId)
    .where('status', '!=', 'REMOVED')
    .orderBy('created_at')
    .execute();
  const existing = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!existing.has(r.url)) existing.set(r.url, r);
  const missing = new Set(onlyMissing(c.webhooks, existing.keys(), (w) => w.url, counts.webhooks));
  const out: ImportedWebhook[] = [];
  for (const w of c.webhooks) {
    if (missing.has(w)) {
      const created = await createEndpoint(trx, hooks.secrets, hooks.policy, {
        communityId,
        url: w.url,
        events: w.events,
        description: w.description ?? null,
      });
      out.push({
        id: created.id,
        url: created.url,
        events: created.events,
        description: created.description,
        status: created.status,
        secret: created.secret,
        resolved: created.resolved,
      });
    } else {
      const r = existing.get(w.url) as (typeof rows)[number];
      out.push({
        id: r.id,
        url: r.url,
        events: parseJson<string[]>(r.events, []),
        description: r.description,
        status: r.status,
        secret: null,
        resolved: null,
      });
    }
  }
  return out;
}
