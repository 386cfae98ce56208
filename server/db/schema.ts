// Table types for Kysely. Portable storage across SQLite and PostgreSQL: ids are UUIDv7 text,
// timestamps are ISO 8601 UTC text (so they sort as strings), booleans are 0/1 integers, JSON
// is text. Money is an integer in the smallest currency unit.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { AccountTables } from './schema-accounts.ts';
import type { SmsTables } from './schema-sms.ts';
import type { OAuthTables } from './schema-oauth.ts';
import type { RulesTables } from './schema-rules.ts';
import type { PaymentTables } from './schema-payments.ts';
import type { TicketTables } from './schema-tickets.ts';
import type { DonationTables } from './schema-donations.ts';
import type { SocialTables } from './schema-social.ts';
import type { FriendTables } from './schema-friends.ts';
import type { ApplicationTables } from './schema-applications.ts';
import type { MembershipBillingTables } from './schema-membership-billing.ts';
import type { BroadcastTables } from './schema-broadcasts.ts';
import type { LeaderConsoleTables } from './schema-leader-console.ts';
import type { InviteTables } from './schema-invites.ts';
import type { CountTables } from './schema-counts.ts';

type Bool = number; // 0 | 1
type Json = string;

export interface CommunitiesTable {
  id: string;
  tag: string;
  name: string;
  visibility: 'PUBLIC' | 'MEMBERS_ONLY';
  accessibility: 'OPEN' | 'APPLICATION' | 'INVITE_ONLY';
  page_settings: Json;
  storefront_config: Json;
  theme_config: Json;
  features: Json;
  /** The customer's own site: yielded routes and externalPages are served from here. */
  landing_url: string | null;
  /** Origins allowed to call the site API with the publishable key (embeds). */
  embed_origins: Json;
  rules_version: number;
  founder_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommunityDomainsTable {
  hostname: string;
  community_id: string;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  usertag: string;
  profile_image: string | null;
  bio: string | null;
  phone: string | null;
  password_hash: string | null;
  created_at: string;
}

export interface MembershipsTable {
  id: string;
  community_id: string;
  user_id: string;
  status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED';
  role: 'member' | 'admin' | 'founder';
  segment_id: string | null;
  created_at: string;
  accepted_at: string | null;
  /** Set by a kick (the status is then REJECTED); cleared when they apply again (migration 0016). */
  kicked_at: string | null;
  /** Set by a ban (migration 0016). */
  banned_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  community_id: string;
  kind: 'publishable' | 'secret';
  /** sha256 of the whole key; the only thing stored of a secret key. */
  key_hash: string;
  /** First characters, for listing (`sk_live_AbC1…`). */
  key_prefix: string;
  /** The publishable key itself: it is public by design and is handed out again on request. */
  publishable_key: string | null;
  scopes: Json;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
  /** Last time the key authenticated a request, to the minute (migration 0025); null when never. */
  last_used_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EventsTable {
  id: string;
  community_id: string;
  slug: string;
  name: string;
  description: string | null;
  start_date: string;
  end_date: string | null;
  location: Json | null;
  banner_url: string | null;
  format: 'online' | 'in_person' | 'hybrid';
  /** 1 or NULL (not 0): the partial unique index allows one featured event per community. */
  featured: Bool | null;
  /** NULL inherits: the EVENTS page setting, else the community's visibility. */
  visibility: 'PUBLIC' | 'MEMBERS_ONLY' | null;
  donation_config: Json | null;
  created_at: string;
  updated_at: string;
}

export interface TiersTable {
  id: string;
  event_id: string;
  community_id: string;
  name: string;
  price_cents: number;
  currency: string;
  capacity: number | null;
  sold: Generated<number>;
  /** Seats held by open checkouts (migration 0012); sold + held <= capacity. */
  held: Generated<number>;
  is_active: Bool;
  sort_order: number;
  created_at: string;
}

export interface TierFormsTable {
  tier_id: string;
  schema: Json;
}

export interface ArticlesTable {
  id: string;
  community_id: string;
  slug: string;
  title: string;
  excerpt: string;
  content: string;
  category: string | null;
  banner_url: string | null;
  status: 'DRAFT' | 'PUBLISHED';
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductsTable {
  id: string;
  community_id: string;
  sku: string;
  name: string;
  description: string | null;
  price_cents: number;
  currency: string;
  image_url: string | null;
  is_active: Bool;
  seller_id: string | null;
  donation_config: Json | null;
  created_at: string;
  updated_at: string;
}

export interface SegmentsTable {
  id: string;
  community_id: string;
  name: string;
  description: string | null;
  color: string;
  currency: string;
  price_monthly: number | null;
  price_quarterly: number | null;
  price_yearly: number | null;
  price_one_time: number | null;
  installment_total_price: number | null;
  installment_count: number | null;
  installment_interval_months: number | null;
  access_duration_months: number | null;
  installment_renews_annually: Bool;
  founding_price_monthly: number | null;
  founding_price_quarterly: number | null;
  founding_price_yearly: number | null;
  founding_member_cap: number | null;
  founding_member_count: Generated<number>;
  auto_approve: Bool;
  is_active: Bool;
  sort_order: number;
  created_at: string;
  updated_at: string;
}

export interface SegmentFormsTable {
  segment_id: string;
  schema: Json;
}

export interface AtlasCategoriesTable {
  id: string;
  community_id: string;
  name: string;
  icon: string | null;
  color: string | null;
  sort_order: number;
}

export interface AtlasHotspotsTable {
  id: string;
  community_id: string;
  category_id: string;
  name: string;
  description: string | null;
  latitude: number;
  longitude: number;
  image_url: string | null;
  created_at: string;
}

export interface IdempotencyKeysTable {
  /** Whose key this is: `key:<api key id>` (later also `user:<id>`). */
  owner: string;
  idem_key: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  /** JSON of the headers a replay carries (e.g. Location). */
  response_headers: string | null;
  created_at: string;
  expires_at: string;
  /** Renewed while the holder runs; a lock past this belongs to a dead request and is taken over. */
  locked_until: string;
  /** The holder's random token: completing or releasing the key requires it. */
  lock_token: string;
}

export type WebhookEndpointStatus = 'ENABLED' | 'DISABLED' | 'REMOVED';
export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'PERMANENTLY_FAILED' | 'CANCELLED';
export type WebhookAttemptOutcome = 'SUCCEEDED' | 'FAILED' | 'ABANDONED';

export interface WebhookEndpointsTable {
  id: string;
  community_id: string;
  url: string;
  description: string | null;
  /** JSON array of event names; ["*"] is every event. */
  events: Json;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  /** Encrypted signing secrets (null once the endpoint is removed). */
  secret_ciphertext: string | null;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  id: string;
  community_id: string;
  community_tag: string;
  name: string;
  data: Json;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  community_id: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  total_attempts: Generated<number>;
  round: Generated<number>;
  next_attempt_at: string | null;
  lease_token: string | null;
  previous_lease_token: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  number: number;
  round: number;
  outcome: WebhookAttemptOutcome;
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
}

export interface Database
  extends
    AccountTables,
    SocialTables,
    SmsTables,
    PaymentTables,
    RulesTables,
    FriendTables,
    OAuthTables,
    TicketTables,
    DonationTables,
    ApplicationTables,
    MembershipBillingTables,
    BroadcastTables,
    LeaderConsoleTables,
    InviteTables,
    CountTables {
  communities: CommunitiesTable;
  community_domains: CommunityDomainsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  events: EventsTable;
  tiers: TiersTable;
  tier_forms: TierFormsTable;
  articles: ArticlesTable;
  products: ProductsTable;
  segments: SegmentsTable;
  segment_forms: SegmentFormsTable;
  atlas_categories: AtlasCategoriesTable;
  atlas_hotspots: AtlasHotspotsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type CommunityRow = Selectable<CommunitiesTable>;
export type EventRow = Selectable<EventsTable>;
