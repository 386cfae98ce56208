// The leader console's settings (docs/leader-console.md, "Settings"): the founder and admins read
// and change their community's configuration, validated by the import file's schema, audited in
// the change's transaction, and seen at once by the public community object and the hosted site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { cookieFor, leaderFixture, onSite, type LeaderFixture } from './support/leaders.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'set');
  other = await leaderFixture(server, 'oth');
});
afterAll(async () => {
  await server?.close();
});

const settingsPath = (f: LeaderFixture) => `/api/admin/${f.tag}/settings`;
const read = (f: LeaderFixture, cookie?: string) => onSite(server, f.tag, 'GET', settingsPath(f), { cookie });
const patch = (f: LeaderFixture, json: unknown, cookie = f.cookies.founder, origin?: string | null) =>
  onSite(server, f.tag, 'PATCH', settingsPath(f), { cookie, json, origin });

async function auditCount(f: LeaderFixture): Promise<number> {
  const row = await server.database.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('community_id', '=', f.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The hosted site's home page on `host` (a domain of the community or `<tag>.localhost`). */
function page(host: string, path = '/') {
  const port = new URL(server.url).port;
  return rawRequest(port, 'GET', path, { Host: `${host}:${port}`, Accept: 'text/html' });
}

const publicCommunity = async (tag: string) => (await server.request(`/api/communities/${tag}`)).body;

describe('happy', () => {
  it('answers the founder with every setting, unfiltered and not cached', async () => {
    const res = await read(club, club.cookies.founder);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      visibility: 'PUBLIC',
      accessibility: expect.any(String),
      domains: [],
      landingUrl: null,
      embedOrigins: [],
      pageSettings: expect.any(Array),
      storefrontConfig: expect.any(Object),
      themeConfig: expect.any(Object),
    });
  });

  it('lets the founder change theme, nav and page settings; the public object and the hosted page follow at once', async () => {
    // Warm every cache first: the community object, the host lookup and the anonymous page.
    expect((await publicCommunity(club.tag)).themeConfig.brandColor).toBe('#0a7');
    expect((await page(`${club.tag}.localhost`)).status).toBe(200);
    const before = await auditCount(club);

    const nav = [
      { href: '/events', label: 'Gatherings', visibleWhen: 'always' },
      {
        label: 'Members area',
        visibleWhen: 'authenticated',
        children: [{ href: '/members', label: 'Directory', visibleWhen: 'approvedMember' }],
      },
    ];
    const res = await patch(club, {
      themeConfig: { brandColor: '#AB12CD', bodyFont: 'Georgia' },
      storefrontConfig: { nav, header: { storeName: 'The Club' } },
      pageSettings: [{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.themeConfig).toEqual({ brandColor: '#AB12CD', bodyFont: 'Georgia' });
    expect(res.body.storefrontConfig.nav).toEqual(nav);
    expect(res.body.pageSettings).toEqual([{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }]);
    expect(res.body.visibility).toBe('PUBLIC');

    const community = await publicCommunity(club.tag);
    expect(community.themeConfig.brandColor).toBe('#AB12CD');
    // Filtered for the anonymous viewer: the signed-in-only dropdown is gone.
    expect(community.storefrontConfig.nav).toEqual([nav[0]]);
    expect(community.pageSettings).toEqual([{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }]);

    const home = await page(`${club.tag}.localhost`);
    expect(home.status).toBe(200);
    expect(home.text.toLowerCase()).toContain('#ab12cd');
    expect(home.text).toContain('Gatherings');
    expect(home.text).not.toContain('Members area');
    // The blog went members-only: the anonymous visitor meets the gate at once.
    expect((await page(`${club.tag}.localhost`, '/blog')).status).toBe(403);

    expect(await auditCount(club)).toBe(before + 1);
    const log = await onSite(server, club.tag, 'GET', `/api/admin/${club.tag}/audit-log?limit=1`, {
      cookie: club.cookies.admin,
    });
    expect(log.body[0]).toMatchObject({
      actor: { userId: club.users.founder.id },
      action: 'settings.update',
      target: { type: 'community', id: club.id },
      after: { themeConfig: { brandColor: '#AB12CD', bodyFont: 'Georgia' }, pageSettings: expect.any(Array) },
    });
    // Only the changed fields are recorded.
    expect(Object.keys(log.body[0].after).sort()).toEqual(['pageSettings', 'storefrontConfig', 'themeConfig']);
    expect(Object.keys(log.body[0].before).sort()).toEqual(['pageSettings', 'storefrontConfig', 'themeConfig']);
  });

  it('lets an admin add embed origins and a domain (lowercased); the domain serves the site at once, the rest stays', async () => {
    const domain = `${club.tag}.club.example`;
    // The host is unknown, and that answer is cached too.
    expect((await server.request(`/api/communities/by-domain/${domain}`)).status).toBe(404);
    expect((await page(domain)).status).toBe(404);
    // Not yet an embed origin (and the community's origins are now cached).
    const port = new URL(server.url).port;
    const { publishableKey } = (await server.request(`/v1/communities/${club.tag}/publishable-key`)).body;
    // A widget's request from the page with the key: refused while the origin is not listed.
    const fromShop = () =>
      rawRequest(
        port,
        'POST',
        `/api/actions/${club.tag}/apply/checkout`,
        { Origin: 'https://shop.example', 'X-API-Key': publishableKey, 'Content-Type': 'application/json' },
        '{}',
      );
    expect((await fromShop()).body.code).toBe('ORIGIN_NOT_ALLOWED');

    const res = await patch(
      club,
      { embedOrigins: ['https://shop.example'], domains: [domain.toUpperCase()] },
      club.cookies.admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.domains).toEqual([domain]);
    expect(res.body.embedOrigins).toEqual(['https://shop.example']);
    // Left out, so kept.
    expect(res.body.themeConfig.brandColor).toBe('#AB12CD');

    const byDomain = await server.request(`/api/communities/by-domain/${domain}`);
    expect(byDomain.status).toBe(200);
    expect(byDomain.body.communityTag).toBe(club.tag);
    expect(byDomain.body.domains).toEqual([domain]);
    const home = await page(domain);
    expect(home.status).toBe(200);
    expect(home.text).toContain('Gatherings');

    // The embed origin is one of the community's origins at once: a widget action from it gets past
    // authentication (to the empty body's 400).
    const passed = await fromShop();
    expect(passed.status).toBe(400);
    expect(passed.body.code).toBe('INVALID_INPUT');
  });

  it('changes accessibility, the landing URL, chromeProxy and externalPages; a replayed Idempotency-Key writes once', async () => {
    const current = (await read(club, club.cookies.founder)).body;
    const before = await auditCount(club);
    const body = {
      accessibility: 'APPLICATION',
      landingUrl: 'https://www.club.example/',
      storefrontConfig: {
        ...current.storefrontConfig,
        chromeProxy: { enabled: true, headless: false },
        externalPages: ['BLOG'],
      },
    };
    const send = () =>
      onSite(server, club.tag, 'PATCH', settingsPath(club), {
        cookie: club.cookies.founder,
        json: body,
        headers: { 'Idempotency-Key': `settings-${club.tag}` },
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ accessibility: 'APPLICATION', landingUrl: 'https://www.club.example/' });
    expect(first.body.storefrontConfig).toMatchObject({ chromeProxy: { enabled: true }, externalPages: ['BLOG'] });
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await auditCount(club)).toBe(before + 1);

    const community = await publicCommunity(club.tag);
    expect(community.accessibility).toBe('APPLICATION');
    expect(community.storefrontConfig.externalPages).toEqual(['BLOG']);
    expect(community.storefrontConfig.nav).toEqual(current.storefrontConfig.nav.slice(0, 1));
  });

  it('writes nothing, not even an audit entry, when the patch changes nothing', async () => {
    const before = await auditCount(club);
    const same = await patch(club, { embedOrigins: ['https://shop.example'], visibility: 'PUBLIC' });
    expect(same.status).toBe(200);
    expect((await patch(club, {})).status).toBe(200);
    expect(await auditCount(club)).toBe(before);
  });

  it.runIf(onPostgres && process.env.REDIS_URL)(
    'reaches a second server on the same database at once, through Redis',
    async () => {
      const second = await startTestServer({ sharedWith: server });
      try {
        // The second server has read (and cached) the community before the change.
        const warm = await second.request(`/api/communities/${club.tag}`);
        expect(warm.body.themeConfig.accentColor).toBeUndefined();
        const port = new URL(second.url).port;
        const home = () => rawRequest(port, 'GET', '/', { Host: `${club.tag}.localhost:${port}`, Accept: 'text/html' });
        expect((await home()).text).not.toContain('#13579b');

        const res = await patch(club, { themeConfig: { brandColor: '#13579B', accentColor: '#13579B' } });
        expect(res.status).toBe(200);
        // The second server's host lookup (COMMUNITY_CACHE_MS, 5 s) and page cache are forgotten on
        // the announcement: its hosted page follows within moments, well before the TTL.
        const deadline = Date.now() + 1000;
        let text = '';
        while (Date.now() < deadline) {
          text = (await home()).text.toLowerCase();
          if (text.includes('#13579b')) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(text).toContain('#13579b');
        expect((await second.request(`/api/communities/${club.tag}`)).body.themeConfig.accentColor).toBe('#13579B');
      } finally {
        await second.close();
      }
    },
  );
});

describe('error', () => {
  it('refuses an invalid setting with 400 naming its path', async () => {
    const cases: Array<[unknown, string]> = [
      [
        {
          pageSettings: [
            { pageKey: 'HOME', enabled: true, visibility: null },
            { pageKey: 'EVENTS', enabled: true, visibility: null },
            { pageKey: 'BLOG', enabled: true, visibility: 'SECRET' },
          ],
        },
        'pageSettings.2.visibility',
      ],
      [{ themeConfig: { brandColor: '#fff', shadow: 'x' } }, 'themeConfig.shadow'],
      [{ storefrontConfig: { externalPages: ['SHOP'] } }, 'storefrontConfig.externalPages.0'],
      [{ storefrontConfig: { chromeProxy: { enabled: 'yes' } } }, 'storefrontConfig.chromeProxy.enabled'],
      [{ embedOrigins: ['https://a.example/path'] }, 'embedOrigins.0'],
      [{ domains: ['a.example', 'A.example'] }, 'domains.1'],
      [{ domains: ['https://a.example'] }, 'domains.0'],
      [{ landingUrl: 'javascript:alert(1)' }, 'landingUrl'],
      [{ visibility: 'HIDDEN' }, 'visibility'],
      [{ accessibility: null }, 'accessibility'],
    ];
    const before = await auditCount(club);
    for (const [body, field] of cases) {
      const res = await patch(club, body);
      expect(res.status, field).toBe(400);
      expect(res.body.code, field).toBe('INVALID_INPUT');
      expect(res.body.extras.field, field).toBe(field);
    }
    expect(await auditCount(club)).toBe(before);
  });

  it("answers 409 DOMAIN_TAKEN naming the field for another community's domain, and changes nothing", async () => {
    const theirs = `${other.tag}.other.example`;
    expect((await patch(other, { domains: [theirs] })).status).toBe(200);
    const before = await auditCount(club);
    const res = await patch(club, { themeConfig: {}, domains: [`${club.tag}.club.example`, theirs.toUpperCase()] });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DOMAIN_TAKEN');
    expect(res.body.extras.field).toBe('domains.1');
    expect(res.body.error).not.toContain(other.tag);
    expect(await auditCount(club)).toBe(before);
    expect((await read(club, club.cookies.founder)).body.themeConfig.brandColor).toBeDefined();
  });

  it("refuses the platform's own hosts as domains: another community's site would be taken over", async () => {
    for (const [domain, field] of [
      [`${other.tag}.localhost`, 'domains.0'],
      ['localhost', 'domains.0'],
      ['127.0.0.1', 'domains.0'],
    ]) {
      const res = await patch(club, { domains: [domain] });
      expect(res.status, domain).toBe(400);
      expect(res.body.extras.field, domain).toBe(field);
    }
  });

  it('refuses hostile input with a 4xx and stores what it accepts as text only', async () => {
    const nul = await patch(club, { storefrontConfig: { header: { storeName: 'a\u0000b' } } });
    expect(nul.status).toBe(400);
    expect(nul.body.extras.field).toBe('storefrontConfig.header.storeName');
    const notObject = await patch(club, ['visibility']);
    expect(notObject.status).toBe(400);
    const huge = await patch(club, { storefrontConfig: { header: { storeName: 'x'.repeat(2_000_000) } } });
    expect(huge.status).toBe(413);
    // A key JSON.parse makes an own property, never the prototype: an unknown field like any other.
    const port = new URL(server.url).port;
    const host = `${club.tag}.localhost:${port}`;
    const proto = await rawRequest(
      port,
      'PATCH',
      settingsPath(club),
      { Host: host, Origin: `http://${host}`, Cookie: club.cookies.founder, 'Content-Type': 'application/json' },
      '{"__proto__": {"visibility": "MEMBERS_ONLY"}}',
    );
    expect(proto.status).toBe(400);
    expect(proto.body.extras.field).toBe('__proto__');
    const malformed = await rawRequest(
      port,
      'PATCH',
      settingsPath(club),
      { Host: host, Origin: `http://${host}`, Cookie: club.cookies.founder, 'Content-Type': 'application/json' },
      '{"visibility": ',
    );
    expect(malformed.status).toBe(400);

    const script = '<script>alert(1)</script>';
    const res = await patch(club, {
      storefrontConfig: {
        nav: [
          { href: '/events', label: script },
          { href: 'javascript:alert(1)', label: 'Evil' },
        ],
        header: { storeName: script },
      },
    });
    expect(res.status).toBe(200);
    const home = await page(`${club.tag}.localhost`);
    expect(home.status).toBe(200);
    // The schema keeps nav items free-form; the header drops a link with an unsafe scheme.
    expect(home.text).not.toMatch(/href="javascript:/i);
    expect(home.text).not.toContain(script);
    expect(home.text).toContain('&lt;script>alert(1)');
  });
});

describe('security', () => {
  it('gives every non-leader the same 403 NOT_A_LEADER on read and write, and 401 without a cookie', async () => {
    const before = await auditCount(club);
    const answers = new Set<string>();
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as const) {
      const get = await read(club, club.cookies[who]);
      const write = await patch(club, { visibility: 'MEMBERS_ONLY' }, club.cookies[who]);
      for (const res of [get, write]) {
        expect(res.status, who).toBe(403);
        expect(res.body.code, who).toBe('NOT_A_LEADER');
        answers.add(JSON.stringify({ ...res.body, requestId: undefined }));
      }
    }
    expect(answers.size).toBe(1);
    expect((await read(club)).status).toBe(401);
    expect((await patch(club, { visibility: 'MEMBERS_ONLY' }, '')).status).toBe(401);
    expect(await auditCount(club)).toBe(before);
    expect((await publicCommunity(club.tag)).visibility).toBe('PUBLIC');
  });

  it("refuses another community's founder, from their site and with a cookie of this one", async () => {
    const there = await onSite(server, other.tag, 'PATCH', settingsPath(club), {
      cookie: other.cookies.founder,
      json: { visibility: 'MEMBERS_ONLY' },
    });
    expect(there.status).toBe(403);
    expect(there.body.code).toBe('NOT_A_LEADER');
    const cookie = await cookieFor(server, other.users.founder.id, club.tag);
    const here = await patch(club, { visibility: 'MEMBERS_ONLY' }, cookie);
    expect(here.status).toBe(403);
    expect(here.body.code).toBe('NOT_A_LEADER');
    expect((await read(club, cookie)).status).toBe(403);
    expect((await publicCommunity(club.tag)).visibility).toBe('PUBLIC');
  });

  it('refuses a forged cross-site write (a foreign Origin, or none) with 403 CROSS_SITE_REQUEST', async () => {
    const before = await auditCount(club);
    for (const origin of ['https://evil.example', `http://${other.tag}.localhost`, null]) {
      const res = await patch(club, { visibility: 'MEMBERS_ONLY' }, club.cookies.founder, origin);
      expect(res.status, String(origin)).toBe(403);
      expect(res.body.code, String(origin)).toBe('CROSS_SITE_REQUEST');
    }
    expect(await auditCount(club)).toBe(before);
    expect((await publicCommunity(club.tag)).visibility).toBe('PUBLIC');
  });

  it('refuses mass assignment of protected fields with 400 naming the field, changing nothing', async () => {
    const before = await auditCount(club);
    for (const field of [
      'id',
      'tag',
      'name',
      'founder',
      'founderUserId',
      'features',
      'apiKeys',
      'webhooks',
      'rulesVersion',
      'memberships',
      'createdAt',
    ]) {
      const res = await patch(club, { visibility: 'MEMBERS_ONLY', [field]: field === 'features' ? ['atlas'] : 'x' });
      expect(res.status, field).toBe(400);
      expect(res.body.code, field).toBe('INVALID_INPUT');
      expect(res.body.extras.field, field).toBe(field);
    }
    expect(await auditCount(club)).toBe(before);
    const community = await publicCommunity(club.tag);
    expect(community.visibility).toBe('PUBLIC');
    expect(community.features).toEqual([]);
  });
});
