// The import-file schema: path-named errors, strictness, relative dates, and the rules the types
// alone cannot say. Also guards that demo/fixture.json stays valid and rich enough for the widgets.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatFixturePath,
  parseFixture,
  resolveFixtureDate,
  slugify,
  type FixtureInput,
  type FixtureIssue,
} from '../../contract/fixture.ts';

const NOW = new Date('2025-06-15T10:20:30.456Z');

type CommunityInput = FixtureInput['communities'][number];

function community(extra: Partial<CommunityInput> = {}): CommunityInput {
  return {
    tag: 'acme',
    name: 'Acme',
    visibility: 'PUBLIC',
    accessibility: 'OPEN',
    founder: 'founder',
    users: [{ email: 'founder@example.com', name: 'Founder', usertag: 'founder' }],
    ...extra,
  };
}

function parse(...communities: unknown[]) {
  return parseFixture({ communities }, { now: NOW });
}

function issues(...communities: unknown[]): FixtureIssue[] {
  const r = parse(...communities);
  if (r.success) throw new Error('expected the fixture to be invalid');
  return r.issues;
}

const paths = (list: FixtureIssue[]) => list.map((i) => i.path);

function ok(...communities: unknown[]) {
  const r = parse(...communities);
  if (!r.success)
    throw new Error(`expected a valid fixture:\n${r.issues.map((i) => `${i.path}: ${i.message}`).join('\n')}`);
  return r.data;
}

const event = (extra: Record<string, unknown> = {}) => ({
  slug: 'e',
  name: 'E',
  startDate: '+1d',
  format: 'online',
  ...extra,
});

describe('fixture schema: errors name the JSON path', () => {
  it('names nested array indices and fields', () => {
    const list = issues(
      community({
        events: [event(), event({ slug: 'e2', tiers: [{ name: 'T', priceCents: 'ten', currency: 'USD' }] })] as never,
      }),
    );
    expect(list).toEqual([
      { path: 'communities[0].events[1].tiers[0].priceCents', message: expect.stringContaining('integer') },
    ]);
  });

  it('strips the internal [CODE] prefix of shared contract messages', () => {
    const [issue] = issues(community({ users: [{ email: 'not-an-email', name: 'F', usertag: 'founder' }] }));
    expect(issue).toEqual({ path: 'communities[0].users[0].email', message: 'must be an e-mail address' });
  });

  it('reports the file root as (root) and a missing list', () => {
    expect(parseFixture({}, { now: NOW })).toEqual({
      success: false,
      issues: [{ path: 'communities', message: expect.any(String) }],
    });
    expect(paths(issues())).toEqual(['communities']);
    expect(paths((parseFixture([], { now: NOW }) as { issues: FixtureIssue[] }).issues)).toEqual(['(root)']);
  });

  it('formats paths like JavaScript accessors', () => {
    expect(formatFixturePath([])).toBe('(root)');
    expect(formatFixturePath(['communities', 0, 'storefrontConfig', 'my-key'])).toBe(
      'communities[0].storefrontConfig["my-key"]',
    );
  });
});

describe('fixture schema: strictness', () => {
  it('rejects unknown fields at every level, each with its own path', () => {
    const list = issues({
      ...community({
        events: [event({ tiers: [{ name: 'T', priceCents: 0, currency: 'USD', colour: 'red' }] })] as never,
      }),
      extra: true,
    });
    expect(list).toEqual(
      expect.arrayContaining([
        { path: 'communities[0].extra', message: 'unknown field' },
        { path: 'communities[0].events[0].tiers[0].colour', message: 'unknown field' },
      ]),
    );
    expect(paths(issues(community({ themeConfig: { brandColour: '#fff' } as never })))).toEqual([
      'communities[0].themeConfig.brandColour',
    ]);
    expect(
      paths(
        (parseFixture({ communities: [community()], version: 2 }, { now: NOW }) as { issues: FixtureIssue[] }).issues,
      ),
    ).toEqual(['version']);
  });

  it('rejects wrong enums, bad tags, slugs, usertags, domains and origins', () => {
    const list = issues(
      community({
        tag: 'Acme Corp',
        visibility: 'SECRET' as never,
        domains: ['https://acme.example'],
        embedOrigins: ['https://acme.example/'],
        events: [event({ slug: 'Bad Slug' })] as never,
      }),
    );
    expect(paths(list).sort()).toEqual([
      'communities[0].domains[0]',
      'communities[0].embedOrigins[0]',
      'communities[0].events[0].slug',
      'communities[0].tag',
      'communities[0].visibility',
    ]);
    expect(paths(issues(community({ founder: 'Has Spaces' })))).toEqual(['communities[0].founder']);
  });

  it('applies defaults and normalises e-mail, currency and hostnames', () => {
    const data = ok(
      community({
        domains: ['Acme.Example'],
        users: [{ email: 'Founder@Example.COM', name: 'Founder', usertag: 'founder' }],
        events: [event({ tiers: [{ name: 'T', priceCents: 0, currency: 'eur' }] })] as never,
        pageSettings: [{ pageKey: 'CHAT' }] as never,
      }),
    );
    const c = data.communities[0];
    expect(c.users[0].email).toBe('founder@example.com');
    expect(c.domains).toEqual(['acme.example']);
    expect(c.events[0]).toMatchObject({
      featured: false,
      visibility: null,
      tiers: [{ currency: 'EUR', sold: 0, isActive: true }],
    });
    expect(c.pageSettings).toEqual([{ pageKey: 'CHAT', enabled: true, visibility: null }]);
    expect(c).toMatchObject({
      features: [],
      memberships: [],
      articles: [],
      products: [],
      segments: [],
      apiKeys: [],
      rulesVersion: 0,
      atlas: { categories: [], hotspots: [] },
    });
  });
});

describe('relative dates', () => {
  it('resolves offsets from now, truncated to the minute', () => {
    expect(resolveFixtureDate('+7d18h', NOW)).toBe('2025-06-23T04:20:00.000Z');
    expect(resolveFixtureDate('-30d', NOW)).toBe('2025-05-16T10:20:00.000Z');
    expect(resolveFixtureDate('+2h', NOW)).toBe('2025-06-15T12:20:00.000Z');
    expect(resolveFixtureDate('+90m', NOW)).toBe('2025-06-15T11:50:00.000Z');
    expect(resolveFixtureDate('-1w2d', NOW)).toBe('2025-06-06T10:20:00.000Z');
  });

  it('resolves day offsets at a UTC time of day', () => {
    expect(resolveFixtureDate('+7d@18:00', NOW)).toBe('2025-06-22T18:00:00.000Z');
    expect(resolveFixtureDate('-3w@09:30', NOW)).toBe('2025-05-25T09:30:00.000Z');
    expect(resolveFixtureDate('+0d@00:00', NOW)).toBe('2025-06-15T00:00:00.000Z');
  });

  it('normalises ISO dates to UTC and rejects everything else', () => {
    expect(resolveFixtureDate('2030-01-01T10:00:00+01:00', NOW)).toBe('2030-01-01T09:00:00.000Z');
    for (const bad of ['+', '-', '+7x', '+1d2h@10:00', '+1d@24:00', '+1d@9:00', 'tomorrow', '2030-01-01', '7d', '+d']) {
      expect(resolveFixtureDate(bad, NOW), bad).toBeNull();
    }
  });

  it('resolves every date of a file against the same now', () => {
    const data = ok(
      community({
        events: [event({ startDate: '+1d@18:00', endDate: '+1d@20:00' })] as never,
        memberships: [{ usertag: 'founder', status: 'ACCEPTED', createdAt: '-10d' }],
        articles: [{ title: 'T', status: 'PUBLISHED', publishedAt: '-2d@08:00' }],
      }),
    );
    const c = data.communities[0];
    expect(c.events[0]).toMatchObject({ startDate: '2025-06-16T18:00:00.000Z', endDate: '2025-06-16T20:00:00.000Z' });
    expect(c.memberships[0].createdAt).toBe('2025-06-05T10:20:00.000Z');
    expect(c.articles[0].publishedAt).toBe('2025-06-13T08:00:00.000Z');
  });

  it('names the field of an invalid date and checks the order of start and end', () => {
    expect(issues(community({ events: [event({ startDate: 'next week' })] as never }))).toEqual([
      { path: 'communities[0].events[0].startDate', message: expect.stringContaining('relative date') },
    ]);
    expect(paths(issues(community({ events: [event({ startDate: '+2d', endDate: '+1d' })] as never })))).toEqual([
      'communities[0].events[0].endDate',
    ]);
  });
});

describe('fixture rules beyond the types', () => {
  it('allows at most one featured event per community', () => {
    ok(community({ events: [event({ featured: true }), event({ slug: 'f' })] as never }));
    const list = issues(
      community({
        events: [event({ featured: true }), event({ slug: 'f' }), event({ slug: 'g', featured: true })] as never,
      }),
    );
    expect(list).toEqual([
      { path: 'communities[0].events[2].featured', message: expect.stringContaining('events[0]') },
    ]);
  });

  it('treats the installment fields as a unit', () => {
    const segment = (extra: Record<string, unknown>) => ({ name: 'S', color: '#112233', currency: 'USD', ...extra });
    ok(
      community({
        segments: [
          segment({
            installmentTotalPrice: 9000,
            installmentCount: 3,
            installmentIntervalMonths: 1,
            accessDurationMonths: 12,
            installmentRenewsAnnually: true,
          }),
        ] as never,
      }),
    );
    ok(community({ segments: [segment({})] as never }));
    expect(paths(issues(community({ segments: [segment({ installmentTotalPrice: 9000 })] as never })))).toEqual([
      'communities[0].segments[0].installmentCount',
      'communities[0].segments[0].installmentIntervalMonths',
    ]);
    ok(community({ segments: [segment({ priceOneTime: 100, accessDurationMonths: 12 })] as never }));
    expect(
      paths(issues(community({ segments: [segment({ priceMonthly: 100, accessDurationMonths: 12 })] as never }))),
    ).toEqual(['communities[0].segments[0].accessDurationMonths']);
    expect(paths(issues(community({ segments: [segment({ installmentRenewsAnnually: true })] as never })))).toEqual([
      'communities[0].segments[0].installmentRenewsAnnually',
    ]);
    expect(paths(issues(community({ segments: [segment({ foundingPriceMonthly: 100 })] as never })))).toEqual([
      'communities[0].segments[0].foundingPriceMonthly',
    ]);
    expect(paths(issues(community({ segments: [segment({ priceMonthly: 0 })] as never })))).toEqual([
      'communities[0].segments[0].priceMonthly',
    ]);
  });

  it('needs amounts (at most 8) for a fixed-mode donationConfig', () => {
    const dc = (extra: Record<string, unknown>) => ({ enabled: true, mode: 'fixed', currency: 'USD', ...extra });
    ok(
      community({
        products: [
          { sku: 'p', name: 'P', priceCents: 0, currency: 'USD', donationConfig: dc({ amounts: [500] }) },
        ] as never,
      }),
    );
    ok(
      community({
        products: [
          { sku: 'p', name: 'P', priceCents: 0, currency: 'USD', donationConfig: dc({ mode: 'pwyw', minAmount: 50 }) },
        ] as never,
      }),
    );
    expect(paths(issues(community({ events: [event({ donationConfig: dc({}) })] as never })))).toEqual([
      'communities[0].events[0].donationConfig.amounts',
    ]);
    expect(
      paths(
        issues(
          community({ events: [event({ donationConfig: dc({ amounts: [1, 2, 3, 4, 5, 6, 7, 8, 9] }) })] as never }),
        ),
      ),
    ).toEqual(['communities[0].events[0].donationConfig.amounts']);
    expect(
      paths(
        issues(
          community({
            products: [
              {
                sku: 'p',
                name: 'P',
                priceCents: 0,
                currency: 'USD',
                donationConfig: dc({ amounts: [5], currency: 'EUR' }),
              },
            ] as never,
          }),
        ),
      ),
    ).toEqual(['communities[0].products[0].donationConfig.currency']);
  });

  it('keeps sold within capacity and checks forms', () => {
    const tier = (extra: Record<string, unknown>) => ({ name: 'T', priceCents: 0, currency: 'USD', ...extra });
    ok(
      community({
        events: [event({ tiers: [tier({ capacity: 3, sold: 3 }), tier({ name: 'U', sold: 99 })] })] as never,
      }),
    );
    expect(paths(issues(community({ events: [event({ tiers: [tier({ capacity: 3, sold: 4 })] })] as never })))).toEqual(
      ['communities[0].events[0].tiers[0].sold'],
    );
    const form = [
      { id: 'a', type: 'select', label: 'A' },
      { id: 'a', type: 'short_text', label: 'B', options: ['x'] },
    ];
    expect(paths(issues(community({ events: [event({ tiers: [tier({ form })] })] as never })))).toEqual([
      'communities[0].events[0].tiers[0].form[0].options',
      'communities[0].events[0].tiers[0].form[1].id',
      'communities[0].events[0].tiers[0].form[1].options',
    ]);
  });

  it('rejects duplicate natural keys', () => {
    const list = issues(
      community({
        events: [
          event(),
          event({
            tiers: [
              { name: 'T', priceCents: 0, currency: 'USD' },
              { name: 'T', priceCents: 1, currency: 'USD' },
            ],
          }),
        ] as never,
        articles: [{ title: 'Hello World' }, { title: 'Other', slug: 'hello-world' }],
        products: [
          { sku: 'p', name: 'P', priceCents: 1, currency: 'USD' },
          { sku: 'p', name: 'Q', priceCents: 1, currency: 'USD' },
        ],
        apiKeys: [
          { name: 'k', scopes: ['ADMIN'] },
          { name: 'k', scopes: ['READ_PUBLIC'] },
        ],
      }),
    );
    expect(paths(list).sort()).toEqual([
      'communities[0].apiKeys[1].name',
      'communities[0].articles[1].slug',
      'communities[0].events[1].slug',
      'communities[0].events[1].tiers[1].name',
      'communities[0].products[1].sku',
    ]);
    expect(paths(issues(community(), community()))).toEqual(['communities[1].tag']);
  });

  it('generates article slugs from titles', () => {
    expect(slugify('Hello, Wörld! Ça va?')).toBe('hello-world-ca-va');
    expect(slugify('  --Trip   report: 2024--  ')).toBe('trip-report-2024');
    expect(slugify('x'.repeat(200)).length).toBeLessThanOrEqual(120);
    const data = ok(community({ articles: [{ title: 'Hello, Wörld!' }] }));
    expect(data.communities[0].articles[0]).toMatchObject({ slug: 'hello-world', status: 'DRAFT' });
    expect(paths(issues(community({ articles: [{ title: '!!!' }] })))).toEqual(['communities[0].articles[0].slug']);
  });

  it('checks hotspot categories against the file', () => {
    const atlas = {
      categories: [{ key: 'view', name: 'Views' }],
      hotspots: [{ name: 'H', latitude: 1, longitude: 2, category: 'peak' }],
    };
    expect(issues(community({ atlas }))).toEqual([
      { path: 'communities[0].atlas.hotspots[0].category', message: expect.stringContaining('peak') },
    ]);
    expect(
      paths(
        issues(
          community({ atlas: { ...atlas, hotspots: [{ ...atlas.hotspots[0], category: 'view', latitude: 91 }] } }),
        ),
      ),
    ).toEqual(['communities[0].atlas.hotspots[0].latitude']);
  });

  it('makes the founder an ACCEPTED founder and nobody else one', () => {
    ok(community({ memberships: [{ usertag: 'founder', status: 'ACCEPTED' }] }));
    expect(paths(issues(community({ memberships: [{ usertag: 'founder', status: 'PENDING' }] })))).toEqual([
      'communities[0].memberships[0].status',
    ]);
    expect(
      paths(issues(community({ memberships: [{ usertag: 'someone', status: 'ACCEPTED', role: 'founder' }] }))),
    ).toEqual(['communities[0].memberships[0].role']);
    expect(
      paths(issues(community({ memberships: [{ usertag: 'someone', status: 'PENDING', acceptedAt: '-1d' }] }))),
    ).toEqual(['communities[0].memberships[0].acceptedAt']);
  });

  it('requires a user listed under several communities to be the same user', () => {
    const u = { email: 'founder@example.com', name: 'Founder', usertag: 'founder' };
    ok(community(), community({ tag: 'beta', users: [u] }));
    expect(paths(issues(community(), community({ tag: 'beta', users: [{ ...u, name: 'Other name' }] })))).toEqual([
      'communities[1].users[0]',
    ]);
    expect(
      paths(issues(community(), community({ tag: 'beta', founder: 'x2', users: [{ ...u, usertag: 'x2' }] }))),
    ).toEqual(['communities[1].users[0].email']);
    expect(
      paths(issues(community({ domains: ['a.example'] }), community({ tag: 'beta', domains: ['a.example'] }))),
    ).toEqual(['communities[1].domains[0]']);
  });
});

describe('image URLs: absolute, or a path on the platform', () => {
  const withBanner = (bannerUrl: string) => community({ articles: [{ slug: 'a', title: 'A', bannerUrl }] });

  it('resolves a path against the base URL the importer gives, and keeps an absolute URL', () => {
    const at = (bannerUrl: string, baseUrl?: string) => {
      const r = parseFixture({ communities: [withBanner(bannerUrl)] }, { now: NOW, baseUrl });
      return r.success ? r.data.communities[0].articles[0].bannerUrl : r.issues.map((i) => i.message);
    };
    expect(at('/demo/banners/a.svg', 'https://svc.example')).toBe('https://svc.example/demo/banners/a.svg');
    expect(at('https://img.example/a.png', 'https://svc.example')).toBe('https://img.example/a.png');
    expect(at('/demo/banners/a.svg')).toEqual([
      'a path needs the platform URL to resolve against (the CLI and the server give it; parseFixture needs baseUrl)',
    ]);
  });

  it('refuses what is neither: another scheme, a protocol-relative URL', () => {
    for (const bad of ['javascript:alert(1)', '//evil.example/a.png', 'data:image/png;base64,AA'])
      expect(
        paths(
          (
            parseFixture({ communities: [withBanner(bad)] }, { now: NOW, baseUrl: 'https://svc.example' }) as {
              issues: FixtureIssue[];
            }
          ).issues,
        ),
        bad,
      ).toEqual(['communities[0].articles[0].bannerUrl']);
  });
});

describe('demo/fixture.json', () => {
  const file = path.resolve(import.meta.dirname, '../../demo/fixture.json');
  const now = new Date();
  const result = parseFixture(JSON.parse(fs.readFileSync(file, 'utf8')), { now, baseUrl: 'http://localhost:3000' });

  it('is a valid fixture', () => {
    expect(result.success ? [] : result.issues).toEqual([]);
  });

  it('has what every widget needs: 25+ events past and upcoming, one featured, tiers of every kind', () => {
    if (!result.success) return;
    const demo = result.data.communities.find((c) => c.tag === 'demo');
    expect(demo).toBeDefined();
    if (!demo) return;
    const iso = now.toISOString();
    expect(demo).toMatchObject({ visibility: 'PUBLIC', accessibility: 'OPEN', domains: ['demo.localhost'] });
    expect(demo.features).toContain('atlas');
    expect(demo.events.length).toBeGreaterThanOrEqual(25);
    expect(demo.events.filter((e) => e.startDate > iso).length).toBeGreaterThanOrEqual(10);
    expect(demo.events.filter((e) => e.startDate < iso).length).toBeGreaterThanOrEqual(10);
    const featured = demo.events.filter((e) => e.featured);
    expect(featured).toHaveLength(1);
    expect(featured[0].startDate > iso).toBe(true);
    expect(new Set(demo.events.map((e) => e.format))).toEqual(new Set(['online', 'in_person', 'hybrid']));
    const tiers = demo.events.flatMap((e) => e.tiers);
    expect(tiers.some((t) => t.priceCents === 0)).toBe(true);
    expect(tiers.some((t) => t.priceCents > 0 && t.currency === 'USD')).toBe(true);
    expect(tiers.some((t) => t.form && t.form.length > 0)).toBe(true);
    expect(tiers.some((t) => t.capacity != null && t.sold === t.capacity)).toBe(true);
    const modes = demo.products.flatMap((p) => (p.donationConfig ? [p.donationConfig.mode] : []));
    expect(new Set(modes)).toEqual(new Set(['fixed', 'pwyw']));
    const paid = demo.segments.filter((s) => s.priceMonthly != null || s.priceYearly != null);
    expect(
      demo.segments.some((s) => s.priceMonthly == null && s.priceYearly == null && s.installmentTotalPrice == null),
    ).toBe(true);
    expect(paid.length).toBeGreaterThanOrEqual(1);
    expect(demo.segments.some((s) => s.installmentTotalPrice != null)).toBe(true);
    expect(demo.atlas.categories.length).toBeGreaterThan(0);
    expect(demo.atlas.hotspots.length).toBeGreaterThan(0);
    expect(new Set(demo.memberships.map((m) => m.status))).toEqual(new Set(['ACCEPTED', 'PENDING']));
    expect(demo.articles.filter((a) => a.status === 'PUBLISHED').length).toBeGreaterThanOrEqual(3);
    expect(demo.articles.some((a) => a.status === 'DRAFT')).toBe(true);
    expect(demo.apiKeys).toEqual([{ name: 'demo-admin', scopes: ['ADMIN'] }]);
    expect(result.data.communities.map((c) => c.tag)).toContain('other');
  });
});
