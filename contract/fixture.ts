// The import file (`svc import`, `svc seed`, the demo community): communities and everything in
// them, in the spec's field names. Every object is strict so a typo is an error, and every error
// names its JSON path (`communities[0].events[3].tiers[0].priceCents: ...`). Documented field by
// field in docs/fixture.md; keep the two in step.
//
// Dates accept ISO 8601 or a relative form resolved at parse time (see resolveFixtureDate), so a
// demo file keeps having upcoming events however old it is. The schema is therefore built per
// parse around one `now`: every relative date of a file resolves against the same instant.
import { z } from 'zod';
import { AmountCents, CommunityTag, Currency, Email, HexColor, HttpUrl, IsoDateTime, Slug } from './common.ts';
import { Accessibility, ArticleStatus, EventFormat, Feature, MembershipStatus, Scope, Visibility } from './enums.ts';
import { splitCoded } from './errors.ts';
import { DonationConfig, FormField, Location, PageSetting, StorefrontConfig, ThemeConfig } from './resources.ts';
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES, isWebhookEventName } from './webhook-events.ts';

// ---------------------------------------------------------------------------------------------
// Relative dates

/**
 * `±[Nw][Nd][Nh][Nm]` is an offset from now, truncated to the minute (`+7d18h`, `-30d`, `+2h`).
 * `±[Nw][Nd]@HH:MM` is that many days from today (UTC) at HH:MM UTC (`+7d@18:00`, `-3w@09:30`):
 * the form to use when an event should start at a sensible hour.
 */
const RELATIVE_DATE =
  /^([+-])(?:(\d{1,4})w)?(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:@([01]\d|2[0-3]):([0-5]\d))?$/;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** True for the relative form (whether or not it is valid); ISO strings never start with a sign. */
export const isRelativeDate = (value: string): boolean => value.startsWith('+') || value.startsWith('-');

/** Resolves an ISO 8601 or relative date to ISO 8601 UTC, or null when it is neither. */
export function resolveFixtureDate(value: string, now: Date): string | null {
  if (!isRelativeDate(value)) {
    if (!IsoDateTime.safeParse(value).success) return null;
    return new Date(value).toISOString();
  }
  const m = RELATIVE_DATE.exec(value);
  if (!m) return null;
  const [, sign, w, d, h, min, atH, atM] = m;
  if (w === undefined && d === undefined && h === undefined && min === undefined) return null;
  // A time of day and an hour/minute offset contradict each other.
  if (atH !== undefined && (h !== undefined || min !== undefined)) return null;
  const s = sign === '-' ? -1 : 1;
  const days = Number(w ?? 0) * 7 + Number(d ?? 0);
  let t: number;
  if (atH !== undefined) {
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    t = midnight + s * days * DAY + Number(atH) * HOUR + Number(atM) * MINUTE;
  } else {
    t =
      Math.floor(now.getTime() / MINUTE) * MINUTE +
      s * (days * DAY + Number(h ?? 0) * HOUR + Number(min ?? 0) * MINUTE);
  }
  const date = new Date(t);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const DATE_HELP = 'must be an ISO 8601 date-time or a relative date such as "+7d@18:00", "+7d18h" or "-30d"';

function fixtureDate(now: Date) {
  return z.string().transform((value, ctx) => {
    const resolved = resolveFixtureDate(value, now);
    if (resolved === null) {
      ctx.addIssue({ code: 'custom', message: DATE_HELP, input: value });
      return z.NEVER;
    }
    return resolved;
  });
}

// ---------------------------------------------------------------------------------------------
// Building blocks that only the import file needs

/** Platform-wide handle, used in /members/<usertag>; lowercase so uniqueness is case-free. */
export const Usertag = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{1,31}$/,
    'must be 2-32 lowercase letters, digits, "_" or "-", starting with a letter or digit',
  );
/** Stable per community and part of /marketplace/<sku>, so URL-safe. */
export const Sku = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, "_" or "-"');
export const Hostname = z
  .string()
  .max(253)
  .transform((h) => h.toLowerCase())
  .pipe(
    z
      .string()
      .regex(
        /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/,
        'must be a hostname without scheme or port',
      ),
  );
/** `scheme://host[:port]` exactly, as browsers send it in the Origin header. */
export const Origin = z
  .string()
  .max(300)
  .superRefine((value, ctx) => {
    let ok = false;
    try {
      const u = new URL(value);
      ok = (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === value;
    } catch {
      /* not a URL */
    }
    if (!ok)
      ctx.addIssue({
        code: 'custom',
        message: 'must be an origin such as https://example.com (no path, no trailing slash, lowercase)',
      });
  });
export const MemberRole = z.enum(['member', 'admin', 'founder']);
export type MemberRole = z.infer<typeof MemberRole>;

const Name = z.string().trim().min(1).max(200);
const Text = (max: number) => z.string().max(max);
/** Segment prices: a price is offered (>= 1) or absent; a free segment has none. */
const Price = AmountCents.min(1, 'must be at least 1; leave the field out when the price is not offered');

/** Lowercase, ASCII, hyphen-separated; the same rule the API uses for article slugs. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= 120) return slug;
  const cut = slug.slice(0, 120);
  return cut.slice(0, cut.lastIndexOf('-') > 60 ? cut.lastIndexOf('-') : 120).replace(/-+$/, '');
}

/** The spec's donationConfig plus what the type alone cannot say: fixed mode needs its chips. */
const FixtureDonationConfig = DonationConfig.superRefine((c, ctx) => {
  if (c.mode === 'fixed' && (!c.amounts || c.amounts.length === 0)) {
    ctx.addIssue({ code: 'custom', path: ['amounts'], message: 'fixed mode needs 1 to 8 amounts' });
  }
});

const Form = z
  .array(FormField)
  .max(50)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate field id "${f.id}"` });
      seen.add(f.id);
      const choice = f.type === 'select' || f.type === 'multi_select';
      if (choice && (!f.options || f.options.length === 0)) {
        ctx.addIssue({ code: 'custom', path: [i, 'options'], message: `a ${f.type} field needs options` });
      }
      if (!choice && f.options) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'options'],
          message: `only select and multi_select fields take options`,
        });
      }
    });
  });

/** Reports every later item whose key repeats an earlier one. */
function unique<T>(
  ctx: z.RefinementCtx,
  items: readonly T[],
  key: (item: T) => string | undefined,
  path: (i: number) => PropertyKey[],
  what: string,
): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    if (k === undefined) return;
    const first = seen.get(k);
    if (first !== undefined)
      ctx.addIssue({ code: 'custom', path: path(i), message: `duplicate ${what} "${k}" (first at index ${first})` });
    else seen.set(k, i);
  });
}

/**
 * A receiver URL, normalised the way the server stores it (`new URL(url).href`: lowercase host,
 * `/` path when none), so "already registered" compares like with like. Whether it is acceptable
 * (https, a public address) is decided at import time by the server's receiver policy.
 */
const WebhookUrl = z
  .string()
  .max(2048)
  .transform((value, ctx) => {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an absolute https:// URL such as https://example.com/webhooks/svc',
        input: value,
      });
      return z.NEVER;
    }
    return url.href;
  });

/** Catalog names or `*`; absent means every event. */
const WebhookEvents = z
  .array(z.string())
  .min(1, 'needs at least one event; leave the field out (or use ["*"]) for every event')
  .superRefine((events, ctx) => {
    events.forEach((e, i) => {
      if (e !== ALL_EVENTS && !isWebhookEventName(e)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `unknown event "${e}"; known events: ${WEBHOOK_EVENT_NAMES.join(', ')} (or * for all)`,
        });
      }
    });
  });

const WebhookEntry = z
  .object({
    url: WebhookUrl,
    events: WebhookEvents.optional(),
    description: z.string().max(1000).optional(),
  })
  .strict();

const PageSettingEntry = PageSetting.extend({
  enabled: z.boolean().default(true),
  visibility: Visibility.nullable().default(null),
});

// ---------------------------------------------------------------------------------------------
// A community's settings: in the import file, and alone in `svc community update`'s file

/**
 * The settings fields, without defaults: the import file adds its defaults, and an update file
 * is a partial where a field left out stays as it is.
 */
const settingsFields = {
  visibility: Visibility,
  accessibility: Accessibility,
  domains: z.array(Hostname),
  landingUrl: HttpUrl.nullable(),
  embedOrigins: z.array(Origin),
  pageSettings: z.array(PageSettingEntry),
  storefrontConfig: StorefrontConfig,
  themeConfig: ThemeConfig,
};

/** No domain, origin or page twice. */
function refineSettings(
  c: { domains?: string[]; embedOrigins?: string[]; pageSettings?: Array<{ pageKey: string }> },
  ctx: z.RefinementCtx,
): void {
  unique(
    ctx,
    c.domains ?? [],
    (d) => d,
    (i) => ['domains', i],
    'domain',
  );
  unique(
    ctx,
    c.embedOrigins ?? [],
    (o) => o,
    (i) => ['embedOrigins', i],
    'origin',
  );
  unique(
    ctx,
    c.pageSettings ?? [],
    (p) => p.pageKey,
    (i) => ['pageSettings', i, 'pageKey'],
    'pageKey',
  );
}

/**
 * `svc community update <tag> <file.json>`: any of a community's settings, each as the import file
 * writes it; a field given replaces the stored value whole (`landingUrl: null` removes it), one
 * left out is kept. Unknown fields (name, tag, events, ...) are refused.
 */
export const CommunitySettingsUpdate = z.object(settingsFields).partial().strict().superRefine(refineSettings);
export type CommunitySettingsUpdate = z.output<typeof CommunitySettingsUpdate>;
export type CommunitySettingsField = keyof typeof settingsFields;
/** Every setting, as `svc community update` and the leader console read them back. */
export const CommunitySettingsValues = z.object(settingsFields);
export const COMMUNITY_SETTINGS_FIELDS = Object.keys(settingsFields) as CommunitySettingsField[];

// ---------------------------------------------------------------------------------------------
// The file

/** An absolute http(s) URL, or (with a base) a path on the platform, made absolute against it. */
function fixtureImageUrl(baseUrl: string | undefined) {
  return z.string().transform((value, ctx) => {
    const absolute = value.startsWith('/') && !value.startsWith('//') && baseUrl ? new URL(value, baseUrl).href : value;
    const checked = HttpUrl.safeParse(absolute);
    if (checked.success) return checked.data;
    ctx.addIssue({
      code: 'custom',
      message: value.startsWith('/')
        ? 'a path needs the platform URL to resolve against (the CLI and the server give it; parseFixture needs baseUrl)'
        : 'must be an http(s) URL, or a path on the platform starting with /',
    });
    return z.NEVER;
  });
}

/**
 * The schema of an import file, with relative dates resolved against `now`, and image paths
 * (`/demo/banners/summit.svg`) against `baseUrl` (the platform's SVC_PUBLIC_URL), so a file can
 * point at images the platform serves wherever it runs. Without a base, only absolute URLs.
 */
export function fixtureSchema(now: Date, baseUrl?: string) {
  const FixtureDate = fixtureDate(now);
  const ImageUrl = fixtureImageUrl(baseUrl);

  const User = z
    .object({
      email: Email.transform((e) => e.toLowerCase()),
      name: Name,
      usertag: Usertag,
      profileImage: HttpUrl.nullish(),
      bio: Text(2000).nullish(),
      phone: z
        .string()
        .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550123')
        .nullish(),
      /** Plain text in the file, stored only as a scrypt hash. */
      password: z.string().min(8, 'must be at least 8 characters').max(200).optional(),
    })
    .strict();

  const MembershipEntry = z
    .object({
      usertag: Usertag,
      status: MembershipStatus,
      role: MemberRole.optional(),
      /** Name of a segment of this community (in the file or already in the database). */
      segment: z.string().min(1).nullish(),
      createdAt: FixtureDate.optional(),
      acceptedAt: FixtureDate.nullish(),
    })
    .strict()
    .superRefine((m, ctx) => {
      if (m.acceptedAt && m.status === 'PENDING') {
        ctx.addIssue({ code: 'custom', path: ['acceptedAt'], message: 'a PENDING membership has not been accepted' });
      }
      if (m.acceptedAt && m.createdAt && m.acceptedAt < m.createdAt) {
        ctx.addIssue({ code: 'custom', path: ['acceptedAt'], message: 'must not be before createdAt' });
      }
    });

  const TierEntry = z
    .object({
      name: Name.max(100),
      priceCents: AmountCents,
      currency: Currency,
      /** null or absent = unlimited. */
      capacity: z.int().min(0).nullish(),
      sold: z.int().min(0).default(0),
      isActive: z.boolean().default(true),
      form: Form.optional(),
    })
    .strict()
    .superRefine((t, ctx) => {
      if (t.capacity != null && t.sold > t.capacity) {
        ctx.addIssue({ code: 'custom', path: ['sold'], message: `must not exceed capacity (${t.capacity})` });
      }
    });

  const EventEntry = z
    .object({
      slug: Slug,
      name: Name,
      description: Text(20000).nullish(),
      startDate: FixtureDate,
      endDate: FixtureDate.nullish(),
      location: Location.nullish(),
      bannerUrl: ImageUrl.nullish(),
      format: EventFormat,
      featured: z.boolean().default(false),
      visibility: Visibility.nullable()
        .default(null)
        .describe('null inherits the EVENTS page setting, else the community visibility'),
      donationConfig: FixtureDonationConfig.nullish(),
      tiers: z.array(TierEntry).max(50).default([]),
    })
    .strict()
    .superRefine((e, ctx) => {
      if (e.endDate && e.endDate < e.startDate) {
        ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      }
      unique(
        ctx,
        e.tiers,
        (t) => t.name,
        (i) => ['tiers', i, 'name'],
        'tier name',
      );
    });

  const ArticleEntry = z
    .object({
      /** Generated from the title when absent. */
      slug: Slug.optional(),
      title: Name.max(300),
      excerpt: Text(500).optional(),
      content: Text(200_000).optional(),
      category: Text(100).nullish(),
      bannerUrl: ImageUrl.nullish(),
      status: ArticleStatus.default('DRAFT'),
      publishedAt: FixtureDate.nullish(),
    })
    .strict()
    .transform((a, ctx) => {
      const slug = a.slug ?? slugify(a.title);
      if (!slug) {
        ctx.addIssue({
          code: 'custom',
          path: ['slug'],
          message: 'the title has no letters or digits to make a slug from; give a slug',
        });
        return z.NEVER;
      }
      return { ...a, slug };
    });

  const ProductEntry = z
    .object({
      sku: Sku,
      name: Name,
      description: Text(20000).nullish(),
      priceCents: AmountCents,
      currency: Currency,
      imageUrl: ImageUrl.nullish(),
      isActive: z.boolean().default(true),
      /** Usertag of the listing member (user-seller mode). */
      seller: Usertag.nullish(),
      donationConfig: FixtureDonationConfig.nullish(),
    })
    .strict()
    .superRefine((p, ctx) => {
      if (p.donationConfig && p.donationConfig.currency !== p.currency) {
        ctx.addIssue({
          code: 'custom',
          path: ['donationConfig', 'currency'],
          message: `must match the product currency (${p.currency})`,
        });
      }
    });

  const SegmentEntry = z
    .object({
      name: Name.max(100),
      description: Text(2000).nullish(),
      color: HexColor,
      currency: Currency,
      priceMonthly: Price.nullish(),
      priceQuarterly: Price.nullish(),
      priceYearly: Price.nullish(),
      priceOneTime: Price.nullish(),
      installmentTotalPrice: Price.nullish(),
      installmentCount: z.int().min(2).max(60).nullish(),
      installmentIntervalMonths: z.int().min(1).max(12).nullish(),
      accessDurationMonths: z.int().min(1).max(120).nullish(),
      installmentRenewsAnnually: z.boolean().default(false),
      foundingPriceMonthly: Price.nullish(),
      foundingPriceQuarterly: Price.nullish(),
      foundingPriceYearly: Price.nullish(),
      foundingMemberCap: z.int().min(1).nullish(),
      autoApprove: z.boolean().default(false),
      isActive: z.boolean().default(true),
      form: Form.optional(),
    })
    .strict()
    .superRefine((s, ctx) => {
      // The installment plan is one unit: total, count and interval all set or none (the database
      // holds the same rule). The access duration applies to one-time prices and installment plans.
      const unit = ['installmentTotalPrice', 'installmentCount', 'installmentIntervalMonths'] as const;
      const set = unit.filter((k) => s[k] != null);
      if (set.length > 0 && set.length < unit.length) {
        for (const k of unit.filter((k) => s[k] == null)) {
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `the installment fields form a unit: set ${unit.join(', ')} together or none`,
          });
        }
      }
      const plan = set.length === unit.length;
      if (s.accessDurationMonths != null && !plan && s.priceOneTime == null) {
        ctx.addIssue({
          code: 'custom',
          path: ['accessDurationMonths'],
          message: 'only applies to a one-time price or an installment plan',
        });
      }
      if (s.installmentRenewsAnnually && (!plan || s.accessDurationMonths == null)) {
        ctx.addIssue({
          code: 'custom',
          path: ['installmentRenewsAnnually'],
          message: 'needs an installment plan with accessDurationMonths',
        });
      }
      const founding = [
        ['foundingPriceMonthly', 'priceMonthly'],
        ['foundingPriceQuarterly', 'priceQuarterly'],
        ['foundingPriceYearly', 'priceYearly'],
      ] as const;
      for (const [f, regular] of founding) {
        if (s[f] != null && s[regular] == null) {
          ctx.addIssue({
            code: 'custom',
            path: [f],
            message: `needs ${regular}: a founding price replaces a regular one`,
          });
        }
      }
      if (s.foundingMemberCap != null && founding.every(([f]) => s[f] == null)) {
        ctx.addIssue({ code: 'custom', path: ['foundingMemberCap'], message: 'needs at least one founding price' });
      }
    });

  const AtlasCategoryEntry = z
    .object({
      /** Handle used by hotspots in this file; not stored. */
      key: Slug,
      name: Name.max(100),
      icon: z.string().min(1).max(64).nullish(),
      color: HexColor.nullish(),
    })
    .strict();

  const AtlasHotspotEntry = z
    .object({
      name: Name,
      description: Text(5000).nullish(),
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
      /** `key` of a category of the same community in this file. */
      category: Slug,
      imageUrl: ImageUrl.nullish(),
    })
    .strict();

  const Atlas = z
    .object({
      categories: z.array(AtlasCategoryEntry).default([]),
      hotspots: z.array(AtlasHotspotEntry).default([]),
    })
    .strict()
    .superRefine((a, ctx) => {
      unique(
        ctx,
        a.categories,
        (c) => c.key,
        (i) => ['categories', i, 'key'],
        'category key',
      );
      unique(
        ctx,
        a.categories,
        (c) => c.name,
        (i) => ['categories', i, 'name'],
        'category name',
      );
      unique(
        ctx,
        a.hotspots,
        (h) => h.name,
        (i) => ['hotspots', i, 'name'],
        'hotspot name',
      );
      const keys = new Set(a.categories.map((c) => c.key));
      a.hotspots.forEach((h, i) => {
        if (!keys.has(h.category)) {
          ctx.addIssue({
            code: 'custom',
            path: ['hotspots', i, 'category'],
            message: `no category with key "${h.category}" in atlas.categories`,
          });
        }
      });
    });

  /** A direct conversation between two members of the community, with its messages in order. */
  const ConversationEntry = z
    .object({
      between: z
        .tuple([Usertag, Usertag])
        .refine(([a, b]) => a !== b, 'a conversation is between two different usertags'),
      messages: z
        .array(
          z
            .object({
              /** One of the two usertags in `between`. */
              from: Usertag,
              body: Text(4000).refine((b) => b.trim() !== '', 'must not be blank'),
              at: FixtureDate,
            })
            .strict(),
        )
        .min(1)
        .max(200),
    })
    .strict()
    .superRefine((c, ctx) => {
      c.messages.forEach((m, i) => {
        if (!c.between.includes(m.from))
          ctx.addIssue({ code: 'custom', path: ['messages', i, 'from'], message: 'must be one of `between`' });
        if (i > 0 && m.at < c.messages[i - 1].at)
          ctx.addIssue({
            code: 'custom',
            path: ['messages', i, 'at'],
            message: 'must not be before the message above',
          });
      });
    });

  const ApiKeyEntry = z
    .object({
      name: Name.max(100),
      scopes: z
        .array(Scope)
        .min(1, 'needs at least one scope')
        .transform((s) => [...new Set(s)]),
    })
    .strict();

  const CommunityEntry = z
    .object({
      tag: CommunityTag,
      name: Name,
      visibility: settingsFields.visibility,
      accessibility: settingsFields.accessibility,
      features: z.array(Feature).default([]),
      domains: settingsFields.domains.default([]),
      // Like an image, a path (`/demo/site`) is a page the platform serves, made absolute against it.
      landingUrl: fixtureImageUrl(baseUrl).nullable().optional(),
      embedOrigins: settingsFields.embedOrigins.default([]),
      pageSettings: settingsFields.pageSettings.default([]),
      storefrontConfig: settingsFields.storefrontConfig.default({}),
      themeConfig: settingsFields.themeConfig.default({}),
      rulesVersion: z.int().min(0).default(0),
      /** Usertag of the founder: a user of this file or already in the database. */
      founder: Usertag,
      users: z.array(User).default([]),
      memberships: z.array(MembershipEntry).default([]),
      events: z.array(EventEntry).default([]),
      articles: z.array(ArticleEntry).default([]),
      products: z.array(ProductEntry).default([]),
      segments: z.array(SegmentEntry).default([]),
      atlas: Atlas.default({ categories: [], hotspots: [] }),
      /** Direct conversations between members listed in `memberships` (or the founder). */
      conversations: z.array(ConversationEntry).max(100).default([]),
      apiKeys: z.array(ApiKeyEntry).default([]),
      /** Outgoing webhook receivers; each new one's signing secret is in the import result, once. */
      webhooks: z.array(WebhookEntry).max(100).default([]),
    })
    .strict()
    .superRefine((c, ctx) => {
      unique(
        ctx,
        c.features,
        (f) => f,
        (i) => ['features', i],
        'feature',
      );
      refineSettings(c, ctx);
      unique(
        ctx,
        c.users,
        (u) => u.usertag,
        (i) => ['users', i, 'usertag'],
        'usertag',
      );
      unique(
        ctx,
        c.users,
        (u) => u.email,
        (i) => ['users', i, 'email'],
        'email',
      );
      unique(
        ctx,
        c.memberships,
        (m) => m.usertag,
        (i) => ['memberships', i, 'usertag'],
        'membership for usertag',
      );
      unique(
        ctx,
        c.events,
        (e) => e.slug,
        (i) => ['events', i, 'slug'],
        'event slug',
      );
      unique(
        ctx,
        c.articles,
        (a) => a.slug,
        (i) => ['articles', i, 'slug'],
        'article slug',
      );
      unique(
        ctx,
        c.products,
        (p) => p.sku,
        (i) => ['products', i, 'sku'],
        'sku',
      );
      unique(
        ctx,
        c.segments,
        (s) => s.name,
        (i) => ['segments', i, 'name'],
        'segment name',
      );
      unique(
        ctx,
        c.apiKeys,
        (k) => k.name,
        (i) => ['apiKeys', i, 'name'],
        'API key name',
      );
      unique(
        ctx,
        c.webhooks,
        (w) => w.url,
        (i) => ['webhooks', i, 'url'],
        'webhook URL',
      );

      // At most one featured event per community (the database holds it too).
      const featured = c.events.map((e, i) => (e.featured ? i : -1)).filter((i) => i >= 0);
      for (const i of featured.slice(1)) {
        ctx.addIssue({
          code: 'custom',
          path: ['events', i, 'featured'],
          message: `only one event per community can be featured (events[${featured[0]}] already is)`,
        });
      }

      const members = new Set([c.founder, ...c.memberships.map((m) => m.usertag)]);
      c.conversations.forEach((conv, i) =>
        conv.between.forEach((tag, j) => {
          if (!members.has(tag))
            ctx.addIssue({
              code: 'custom',
              path: ['conversations', i, 'between', j],
              message: `"${tag}" is neither the founder nor in this community's memberships`,
            });
        }),
      );

      // The founder is a member by definition: ACCEPTED, role founder. Only the founder has that role.
      c.memberships.forEach((m, i) => {
        if (m.usertag === c.founder) {
          if (m.status !== 'ACCEPTED')
            ctx.addIssue({
              code: 'custom',
              path: ['memberships', i, 'status'],
              message: "the founder's membership must be ACCEPTED",
            });
          if (m.role && m.role !== 'founder')
            ctx.addIssue({
              code: 'custom',
              path: ['memberships', i, 'role'],
              message: "the founder's role is founder",
            });
        } else if (m.role === 'founder') {
          ctx.addIssue({
            code: 'custom',
            path: ['memberships', i, 'role'],
            message: `only the community's founder (${c.founder}) has the founder role`,
          });
        }
      });
    });

  return z
    .object({ communities: z.array(CommunityEntry).min(1, 'needs at least one community') })
    .strict()
    .superRefine((f, ctx) => {
      unique(
        ctx,
        f.communities,
        (c) => c.tag,
        (i) => ['communities', i, 'tag'],
        'community tag',
      );
      const domainOwner = new Map<string, number>();
      f.communities.forEach((c, ci) =>
        c.domains.forEach((d, di) => {
          const owner = domainOwner.get(d);
          if (owner !== undefined && owner !== ci) {
            ctx.addIssue({
              code: 'custom',
              path: ['communities', ci, 'domains', di],
              message: `domain "${d}" is already used by communities[${owner}]`,
            });
          }
          domainOwner.set(d, ci);
        }),
      );
      // Users are platform-wide: one listed under several communities must be the same user.
      const byTag = new Map<string, { json: string; at: string; email: string }>();
      const byEmail = new Map<string, string>();
      f.communities.forEach((c, ci) =>
        c.users.forEach((u, ui) => {
          const json = JSON.stringify(u);
          const at = `communities[${ci}].users[${ui}]`;
          const prev = byTag.get(u.usertag);
          if (prev && prev.json !== json) {
            ctx.addIssue({
              code: 'custom',
              path: ['communities', ci, 'users', ui],
              message: `user "${u.usertag}" is defined differently at ${prev.at}`,
            });
          }
          const tagOfEmail = byEmail.get(u.email);
          if (tagOfEmail !== undefined && tagOfEmail !== u.usertag) {
            ctx.addIssue({
              code: 'custom',
              path: ['communities', ci, 'users', ui, 'email'],
              message: `e-mail already belongs to user "${tagOfEmail}" in this file`,
            });
          }
          if (!prev) byTag.set(u.usertag, { json, at, email: u.email });
          if (tagOfEmail === undefined) byEmail.set(u.email, u.usertag);
        }),
      );
    });
}

export type Fixture = z.output<ReturnType<typeof fixtureSchema>>;
/** What a file may contain (before defaults and date resolution). */
export type FixtureInput = z.input<ReturnType<typeof fixtureSchema>>;
export type FixtureCommunity = Fixture['communities'][number];
export type FixtureUser = FixtureCommunity['users'][number];

// ---------------------------------------------------------------------------------------------
// Parsing with path-named errors

export interface FixtureIssue {
  /** JSON path, e.g. `communities[0].events[3].tiers[0].priceCents`; `(root)` for the file itself. */
  path: string;
  message: string;
}

export type FixtureParseResult = { success: true; data: Fixture } | { success: false; issues: FixtureIssue[] };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatFixturePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && IDENTIFIER.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || '(root)';
}

/** Flattens zod issues to one line per problem; an unknown field gets its own path. */
export function fixtureIssues(error: z.ZodError): FixtureIssue[] {
  const out: FixtureIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: formatFixturePath([...issue.path, key]), message: 'unknown field' });
      continue;
    }
    out.push({ path: formatFixturePath(issue.path), message: splitCoded(issue.message).message });
  }
  return out;
}

/** Validates an import file and resolves its relative dates against `now` (default: the current time). */
export function parseFixture(input: unknown, opts: { now?: Date; baseUrl?: string } = {}): FixtureParseResult {
  const result = fixtureSchema(opts.now ?? new Date(), opts.baseUrl).safeParse(input);
  if (result.success) return { success: true, data: result.data };
  return { success: false, issues: fixtureIssues(result.error) };
}
