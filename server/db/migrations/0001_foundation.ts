// The foundation tables. Portable types only (text, integer, real) so the one migration runs on
// SQLite and PostgreSQL alike; see server/db/schema.ts for the storage conventions.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('usertag', 'text', (c) => c.notNull().unique())
    .addColumn('profile_image', 'text')
    .addColumn('bio', 'text')
    .addColumn('phone', 'text', (c) => c.unique())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('communities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tag', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull().check(sql`visibility in ('PUBLIC','MEMBERS_ONLY')`))
    .addColumn('accessibility', 'text', (c) =>
      c.notNull().check(sql`accessibility in ('OPEN','APPLICATION','INVITE_ONLY')`),
    )
    .addColumn('page_settings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('storefront_config', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('theme_config', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('features', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('landing_url', 'text')
    .addColumn('embed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('rules_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('founder_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('community_domains')
    .addColumn('hostname', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('PENDING','ACCEPTED','REJECTED','BANNED')`))
    .addColumn('role', 'text', (c) =>
      c
        .notNull()
        .defaultTo('member')
        .check(sql`role in ('member','admin','founder')`),
    )
    .addColumn('segment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addUniqueConstraint('memberships_community_user', ['community_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('memberships_directory')
    .on('memberships')
    .columns(['community_id', 'status', 'accepted_at'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('publishable','secret')`))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('publishable_key', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  // One live publishable key per community, held by the database so concurrent first calls agree.
  await db.schema
    .createIndex('api_keys_one_publishable')
    .on('api_keys')
    .column('community_id')
    .unique()
    .where(sql.ref('kind'), '=', 'publishable')
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text')
    .addColumn('location', 'text')
    .addColumn('banner_url', 'text')
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format in ('online','in_person','hybrid')`))
    .addColumn('featured', 'integer', (c) => c.check(sql`featured is null or featured = 1`))
    // NULL inherits: the EVENTS page setting, else the community's visibility.
    .addColumn('visibility', 'text', (c) => c.check(sql`visibility is null or visibility in ('PUBLIC','MEMBERS_ONLY')`))
    .addColumn('donation_config', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_community_slug', ['community_id', 'slug'])
    .execute();
  await db.schema
    .createIndex('events_one_featured')
    .on('events')
    .column('community_id')
    .unique()
    .where(sql.ref('featured'), '=', 1)
    .execute();
  // Keyset pagination walks (community, start_date, id).
  await db.schema.createIndex('events_by_start').on('events').columns(['community_id', 'start_date', 'id']).execute();

  await db.schema
    .createTable('tiers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('capacity', 'integer', (c) => c.check(sql`capacity is null or capacity >= 0`))
    .addColumn('sold', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('tiers_sold_within_capacity', sql`sold >= 0 and (capacity is null or sold <= capacity)`)
    .addUniqueConstraint('tiers_event_name', ['event_id', 'name'])
    .execute();
  await db.schema.createIndex('tiers_by_event').on('tiers').columns(['event_id', 'sort_order']).execute();

  await db.schema
    .createTable('tier_forms')
    .addColumn('tier_id', 'text', (c) => c.primaryKey().references('tiers.id').onDelete('cascade'))
    .addColumn('schema', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('articles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category', 'text')
    .addColumn('banner_url', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('DRAFT','PUBLISHED')`))
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('articles_community_slug', ['community_id', 'slug'])
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('seller_id', 'text', (c) => c.references('users.id'))
    .addColumn('donation_config', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('products_community_sku', ['community_id', 'sku'])
    .execute();

  await db.schema
    .createTable('segments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('price_monthly', 'integer')
    .addColumn('price_quarterly', 'integer')
    .addColumn('price_yearly', 'integer')
    .addColumn('price_one_time', 'integer')
    .addColumn('installment_total_price', 'integer')
    .addColumn('installment_count', 'integer')
    .addColumn('installment_interval_months', 'integer')
    .addColumn('access_duration_months', 'integer')
    .addColumn('installment_renews_annually', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('founding_price_monthly', 'integer')
    .addColumn('founding_price_quarterly', 'integer')
    .addColumn('founding_price_yearly', 'integer')
    .addColumn('founding_member_cap', 'integer')
    .addColumn('founding_member_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_approve', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // The installment fields form a unit: all set or none. (accessDurationMonths also applies to
    // one-time prices, so it stands alone.)
    .addCheckConstraint(
      'segments_installment_unit',
      sql`(installment_total_price is null and installment_count is null
      and installment_interval_months is null)
      or (installment_total_price is not null and installment_count is not null
      and installment_interval_months is not null)`,
    )
    .addUniqueConstraint('segments_community_name', ['community_id', 'name'])
    .execute();

  await db.schema
    .createTable('segment_forms')
    .addColumn('segment_id', 'text', (c) => c.primaryKey().references('segments.id').onDelete('cascade'))
    .addColumn('schema', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('atlas_categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('icon', 'text')
    .addColumn('color', 'text')
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('atlas_categories_community_name', ['community_id', 'name'])
    .execute();

  await db.schema
    .createTable('atlas_hotspots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('category_id', 'text', (c) => c.notNull().references('atlas_categories.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('latitude', 'real', (c) => c.notNull())
    .addColumn('longitude', 'real', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress','done')`))
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    // Random per holder: only the request that holds the lock may complete or release it.
    .addColumn('lock_token', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'idempotency_keys',
    'atlas_hotspots',
    'atlas_categories',
    'segment_forms',
    'segments',
    'products',
    'articles',
    'tier_forms',
    'tiers',
    'events',
    'api_keys',
    'memberships',
    'community_domains',
    'communities',
    'users',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
