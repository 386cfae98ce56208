// Minimal rows for API tests, written straight through Kysely so each test states exactly the
// data it depends on.
import type { Insertable } from 'kysely';
import { createSecretKey, provisionPublishableKey } from '../../../server/domain/api-keys.ts';
import type { Db, Trx } from '../../../server/db/index.ts';
import type { SegmentsTable } from '../../../server/db/schema.ts';
import { newId, nowIso } from '../../../server/db/ids.ts';
import type { Scope } from '../../../contract/enums.ts';

export async function makeCommunity(
  db: Db,
  tag: string,
  extra: Partial<{ visibility: 'PUBLIC' | 'MEMBERS_ONLY'; name: string; domains: string[]; themeConfig: object }> = {},
) {
  const id = newId();
  await db
    .insertInto('communities')
    .values({
      id,
      tag,
      name: extra.name ?? `Community ${tag}`,
      visibility: extra.visibility ?? 'PUBLIC',
      accessibility: 'OPEN',
      page_settings: JSON.stringify([{ pageKey: 'EVENTS', enabled: true, visibility: null }]),
      storefront_config: JSON.stringify({ header: { storeName: tag } }),
      theme_config: JSON.stringify(extra.themeConfig ?? { brandColor: '#0a7' }),
      features: '[]',
      landing_url: null,
      embed_origins: '[]',
      rules_version: 1,
      founder_user_id: null,
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
  for (const hostname of extra.domains ?? []) {
    await db.insertInto('community_domains').values({ hostname, community_id: id }).execute();
  }
  const pk = await provisionPublishableKey(db, id);
  return { id, tag, pk };
}

export async function makeKey(db: Db, communityId: string, scopes: Scope[]) {
  return (await createSecretKey(db, communityId, scopes)).key;
}

let seq = 0;
export async function makeEvent(
  db: Db,
  communityId: string,
  e: Partial<{
    slug: string;
    name: string;
    startDate: string;
    featured: boolean;
    visibility: 'PUBLIC' | 'MEMBERS_ONLY' | null;
    donationConfig: object;
    tiers: { name?: string; priceCents: number; capacity?: number | null; isActive?: boolean; form?: object[] }[];
  }> = {},
) {
  const id = newId();
  seq += 1;
  await db
    .insertInto('events')
    .values({
      id,
      community_id: communityId,
      slug: e.slug ?? `event-${seq}`,
      name: e.name ?? `Event ${seq}`,
      description: 'About it',
      start_date: e.startDate ?? new Date(Date.now() + seq * 3600_000).toISOString(),
      end_date: null,
      location: JSON.stringify({ name: 'Hall', city: 'Lisbon' }),
      banner_url: null,
      format: 'in_person',
      featured: e.featured ? 1 : null,
      visibility: e.visibility === undefined ? 'PUBLIC' : e.visibility,
      donation_config: e.donationConfig ? JSON.stringify(e.donationConfig) : null,
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
  const tierIds: string[] = [];
  for (const [i, t] of (e.tiers ?? []).entries()) {
    const tierId = newId();
    tierIds.push(tierId);
    await db
      .insertInto('tiers')
      .values({
        id: tierId,
        event_id: id,
        community_id: communityId,
        name: t.name ?? `Tier ${i}`,
        price_cents: t.priceCents,
        currency: 'USD',
        capacity: t.capacity ?? null,
        is_active: t.isActive === false ? 0 : 1,
        sort_order: i,
        created_at: nowIso(),
      })
      .execute();
    if (t.form)
      await db
        .insertInto('tier_forms')
        .values({ tier_id: tierId, schema: JSON.stringify(t.form) })
        .execute();
  }
  return { id, slug: e.slug ?? `event-${seq}`, tierIds };
}

export async function makeUser(db: Db, usertag = `user${++seq}`) {
  const id = newId();
  await db
    .insertInto('users')
    .values({
      id,
      email: `${usertag}@example.com`,
      name: `User ${usertag}`,
      usertag,
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: null,
      created_at: nowIso(),
    })
    .execute();
  return { id, usertag };
}

export async function makeMembership(
  db: Db,
  communityId: string,
  userId: string,
  status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED',
) {
  const id = newId();
  await db
    .insertInto('memberships')
    .values({
      id,
      community_id: communityId,
      user_id: userId,
      status,
      role: 'member',
      segment_id: null,
      created_at: nowIso(),
      accepted_at: status === 'ACCEPTED' ? nowIso() : null,
    })
    .execute();
  return id;
}

/**
 * `usertag`, ACCEPTED in the founder role and named the community's founder: with OPEN
 * accessibility, what makes a community live (its auto-approving segments approve).
 */
/**
 * `count` ACCEPTED members written with multi-row inserts (what the broadcast batch tests and the
 * broadcast bench need by the thousand): usertag and address `<tagPrefix><i>`, name `Member <i>`.
 */
export async function makeAcceptedMembers(
  db: Db | Trx,
  communityId: string,
  count: number,
  tagPrefix: string,
  chunk = 500,
): Promise<void> {
  const now = nowIso();
  for (let start = 0; start < count; start += chunk) {
    const users = Array.from({ length: Math.min(chunk, count - start) }, (_, k) => ({
      id: newId(),
      email: `${tagPrefix}${start + k}@example.com`,
      name: `Member ${start + k}`,
      usertag: `${tagPrefix}${start + k}`,
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: null,
      created_at: now,
    }));
    await db.insertInto('users').values(users).execute();
    await db
      .insertInto('memberships')
      .values(
        users.map((u) => ({
          id: newId(),
          community_id: communityId,
          user_id: u.id,
          status: 'ACCEPTED' as const,
          role: 'member' as const,
          segment_id: null,
          created_at: now,
          accepted_at: now,
        })),
      )
      .execute();
  }
}

export async function makeFounder(db: Db, communityId: string, usertag: string) {
  const founder = await makeUser(db, usertag);
  await db
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: founder.id,
      status: 'ACCEPTED',
      role: 'founder',
      segment_id: null,
      created_at: nowIso(),
      accepted_at: nowIso(),
    })
    .execute();
  await db.updateTable('communities').set({ founder_user_id: founder.id }).where('id', '=', communityId).execute();
  return founder;
}

/**
 * A segment: free (every price empty), reviewed, active and in EUR unless `fields` says
 * otherwise; with `form`, its application form. Resolves to its id.
 */
export async function makeSegment(
  db: Db,
  communityId: string,
  fields: Partial<Insertable<SegmentsTable>> = {},
  form?: object[],
): Promise<string> {
  const id = newId();
  await db
    .insertInto('segments')
    .values({
      id,
      community_id: communityId,
      name: `Segment ${++seq}`,
      description: null,
      color: '#123456',
      currency: 'EUR',
      price_monthly: null,
      price_quarterly: null,
      price_yearly: null,
      price_one_time: null,
      installment_total_price: null,
      installment_count: null,
      installment_interval_months: null,
      access_duration_months: null,
      installment_renews_annually: 0,
      founding_price_monthly: null,
      founding_price_quarterly: null,
      founding_price_yearly: null,
      founding_member_cap: null,
      auto_approve: 0,
      is_active: 1,
      sort_order: 0,
      created_at: nowIso(),
      updated_at: nowIso(),
      ...fields,
    })
    .execute();
  if (form)
    await db
      .insertInto('segment_forms')
      .values({ segment_id: id, schema: JSON.stringify(form) })
      .execute();
  return id;
}
