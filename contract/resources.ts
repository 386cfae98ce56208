// Every resource of the spec as it appears on the wire. `.meta({id})` names the OpenAPI component.
import { z } from 'zod';
import { AmountCents, Currency, HexColor, IsoDateTime, Uuid } from './common.ts';
import {
  Accessibility,
  ArticleStatus,
  DonationMode,
  EventFormat,
  MembershipStatus,
  PAGE_KEYS,
  PageKey,
  Visibility,
} from './enums.ts';

/** The spec leaves the inner structure open; this is ours. Every field optional. */
export const Location = z
  .object({
    name: z.string().max(200).nullish(),
    address: z.string().max(500).nullish(),
    city: z.string().max(200).nullish(),
    region: z.string().max(200).nullish(),
    postalCode: z.string().max(40).nullish(),
    country: z.string().max(2).nullish().describe('ISO 3166-1 alpha-2'),
    latitude: z.number().min(-90).max(90).nullish(),
    longitude: z.number().min(-180).max(180).nullish(),
    url: z.string().max(2048).nullish().describe('join link for online events'),
  })
  .strict()
  .meta({ id: 'Location' });

export const DonationConfig = z
  .object({
    enabled: z.boolean(),
    mode: DonationMode,
    amounts: z.array(AmountCents.min(1)).max(8).optional(),
    minAmount: AmountCents.optional(),
    currency: Currency,
    label: z.string().max(200).optional(),
  })
  .strict()
  .meta({ id: 'DonationConfig' });
export type DonationConfig = z.infer<typeof DonationConfig>;

/** One field of a tier or segment form. `id` is stable across edits; answers are keyed by it. */
export const FormField = z
  .object({
    id: z.string().min(1).max(64),
    type: z.enum([
      'short_text',
      'long_text',
      'email',
      'phone',
      'number',
      'url',
      'date',
      'select',
      'multi_select',
      'checkbox',
    ]),
    label: z.string().min(1).max(200),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(200)).max(100).optional(),
    placeholder: z.string().max(200).optional(),
    helpText: z.string().max(500).optional(),
    maxLength: z.int().min(1).max(10000).optional(),
  })
  .strict()
  .meta({ id: 'FormField' });
export type FormField = z.infer<typeof FormField>;

export const Tier = z
  .object({
    id: Uuid,
    name: z.string(),
    priceCents: z.int().min(0),
    currency: z.string(),
    capacity: z.int().min(0).nullable(),
    sold: z.int().min(0),
    isActive: z.boolean(),
    hasForm: z.boolean(),
  })
  .meta({ id: 'Tier' });
export type Tier = z.infer<typeof Tier>;

export const TierForm = z.object({ tierId: Uuid, schema: z.array(FormField) }).meta({ id: 'TierForm' });

export const Event = z
  .object({
    id: Uuid,
    slug: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    startDate: IsoDateTime,
    endDate: IsoDateTime.nullable(),
    location: Location.nullable(),
    bannerUrl: z.string().nullable(),
    format: EventFormat,
    tiers: z.array(Tier).describe('active tiers; empty when not on sale'),
    featured: z.boolean(),
    donationConfig: DonationConfig.nullable().optional().describe('present on the single-event response'),
  })
  .meta({ id: 'Event' });
export type Event = z.infer<typeof Event>;

export const Author = z.object({ name: z.string(), usertag: z.string(), profileImage: z.string().nullable() });

export const Article = z
  .object({
    id: Uuid,
    slug: z.string(),
    title: z.string(),
    excerpt: z.string(),
    publishedAt: IsoDateTime.nullable(),
    bannerUrl: z.string().nullable(),
    author: Author,
    readTimeMinutes: z.int(),
    content: z.string().describe('sanitized HTML'),
    category: z.string().nullable(),
    status: ArticleStatus,
  })
  .meta({ id: 'Article' });
export type Article = z.infer<typeof Article>;

export const Product = z
  .object({
    id: Uuid,
    sku: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    priceCents: z.int().min(0),
    currency: z.string(),
    imageUrl: z.string().nullable(),
    isActive: z.boolean(),
    sellerId: z
      .string()
      .nullable()
      .optional()
      .describe(
        'present only in user-seller mode: the listing member, or null when the community lists the product itself',
      ),
    donationConfig: DonationConfig.nullable(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;

export const Member = z
  .object({
    userId: Uuid,
    name: z.string(),
    usertag: z.string(),
    profileImage: z.string().nullable(),
    bio: z.string().nullable(),
    joinedAt: IsoDateTime,
  })
  .meta({ id: 'Member' });
export type Member = z.infer<typeof Member>;

export const AtlasHotspot = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    categoryId: z.string(),
    imageUrl: z.string().nullable(),
  })
  .meta({ id: 'AtlasHotspot' });
export type AtlasHotspot = z.infer<typeof AtlasHotspot>;

export const AtlasCategory = z
  .object({ id: z.string(), name: z.string(), icon: z.string().nullable(), color: z.string().nullable() })
  .meta({ id: 'AtlasCategory' });
export type AtlasCategory = z.infer<typeof AtlasCategory>;

export const Segment = z
  .object({
    id: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    color: z.string(),
    hasForm: z.boolean(),
    currency: z.string(),
    priceMonthly: z.int().nullable(),
    priceQuarterly: z.int().nullable(),
    priceYearly: z.int().nullable(),
    priceOneTime: z.int().nullable(),
    installmentTotalPrice: z.int().nullable(),
    installmentCount: z.int().nullable(),
    installmentIntervalMonths: z.int().nullable(),
    accessDurationMonths: z.int().nullable(),
    installmentRenewsAnnually: z.boolean(),
    foundingPriceMonthly: z.int().nullable(),
    foundingPriceQuarterly: z.int().nullable(),
    foundingPriceYearly: z.int().nullable(),
    foundingMemberCap: z.int().nullable(),
    foundingMemberCount: z.int(),
    isActive: z.boolean(),
  })
  .meta({ id: 'Segment' });
export type Segment = z.infer<typeof Segment>;

export const SegmentForm = z.object({ segmentId: Uuid, schema: z.array(FormField) }).meta({ id: 'SegmentForm' });

export const Membership = z
  .object({
    communityTag: z.string(),
    status: MembershipStatus,
    platforms: z.object({ svc: z.object({ status: z.string() }) }),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Membership' });

export const Pagination = z
  .object({
    limit: z.int().min(1).max(100),
    offset: z.int().min(0),
    total: z.int().min(0),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable().optional(),
  })
  .meta({ id: 'Pagination' });

export const PageSetting = z
  .object({ pageKey: PageKey, enabled: z.boolean(), visibility: Visibility.nullable() })
  .strict();

const HexOrString = z.union([HexColor, z.string().max(200)]);
export const ThemeConfig = z
  .object({
    bgColor: HexOrString,
    textColor: HexOrString,
    brandColor: HexOrString,
    linkColor: HexOrString,
    accentColor: HexOrString,
    bodyFont: z.string().max(200),
    headingFont: z.string().max(200),
    buttonRadius: z.string().max(20),
    inputRadius: z.string().max(20),
    cardRadius: z.string().max(20),
    primaryBtnBg: HexOrString,
    primaryBtnText: HexOrString,
    secondaryBtnBg: HexOrString,
    secondaryBtnText: HexOrString,
    secondaryBtnBorder: HexOrString,
  })
  .partial()
  .strict()
  .meta({ id: 'ThemeConfig' });
export type ThemeConfig = z.infer<typeof ThemeConfig>;

/** Header, nav, footer, modules, pages, chromeProxy, externalPages; free-form inside each block. */
export const StorefrontConfig = z
  .object({
    header: z.record(z.string(), z.unknown()).optional(),
    nav: z.array(z.record(z.string(), z.unknown())).optional(),
    footer: z.record(z.string(), z.unknown()).optional(),
    modules: z.record(z.string(), z.unknown()).optional(),
    pages: z.record(z.string(), z.unknown()).optional(),
    chromeProxy: z.object({ enabled: z.boolean(), headless: z.boolean() }).partial().optional(),
    externalPages: z.array(PageKey).optional(),
    rules: z.object({ version: z.int().min(0), text: z.string().optional() }).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'StorefrontConfig' });

/** The public community object of the site API. Never carries secrets, e-mails or keys. */
export const Community = z
  .object({
    communityTag: z.string(),
    name: z.string(),
    visibility: Visibility,
    accessibility: Accessibility,
    pageSettings: z.array(PageSetting),
    storefrontConfig: StorefrontConfig,
    themeConfig: ThemeConfig,
    features: z.array(z.string()),
    domains: z.array(z.string()),
  })
  .meta({ id: 'Community' });
export type Community = z.infer<typeof Community>;

export const PublishableKeyResponse = z
  .object({
    communityTag: z.string(),
    publishableKey: z.string().startsWith('pk_live_'),
    scopes: z.array(z.literal('READ_PUBLIC')),
  })
  .meta({ id: 'PublishableKey' });

/** One page's verdict for the viewer (spec: "Page-access verdict"); reason whenever allow is false. */
export const PageVerdict = z
  .object({
    allow: z.boolean(),
    reason: z.enum(['community_private', 'page_members_only', 'page_disabled']).optional(),
    resolvedVisibility: Visibility,
  })
  .meta({ id: 'PageVerdict' });

/** Every page key of the community to its verdict for the requesting viewer. */
export const PageAccess = z
  .object(
    Object.fromEntries(PAGE_KEYS.map((k) => [k, PageVerdict])) as Record<
      (typeof PAGE_KEYS)[number],
      typeof PageVerdict
    >,
  )
  .meta({ id: 'PageAccess' });

/** The signed-in visitor as `/api/users/me` and the sign-in routes return them: the only place a user's own e-mail and phone appear. */
export const Me = z
  .object({
    id: z.string(),
    usertag: z.string(),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    profileImage: z.string().nullable(),
    bio: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof Me>;

export const BROADCAST_STATUSES = ['QUEUED', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;
export const BroadcastStatus = z.enum(BROADCAST_STATUSES);

/** A broadcast e-mail (docs/api.md "Broadcasts"). Its body is not repeated here. */
export const Broadcast = z
  .object({
    id: Uuid,
    subject: z.string(),
    status: BroadcastStatus,
    test: z.boolean().describe('a test send: one copy marked [TEST] to `testTo`; never counts toward the limit'),
    testTo: z.string().nullable(),
    audience: z
      .object({ segmentIds: z.array(Uuid) })
      .nullable()
      .describe('the segments whose ACCEPTED members it goes to; null = every ACCEPTED member'),
    sendAt: IsoDateTime.describe('when it goes out (the request time for an immediate send); what the limit counts by'),
    createdAt: IsoDateTime,
    startedAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    cancelledAt: IsoDateTime.nullable(),
    counts: z.object({
      recipients: z.int().describe('the audience when queued; from the start of sending, the messages written'),
      sent: z.int(),
      failed: z.int(),
      unsubscribed: z.int().describe("members who unsubscribed with this broadcast's link"),
    }),
  })
  .meta({ id: 'Broadcast' });
export type Broadcast = z.infer<typeof Broadcast>;
