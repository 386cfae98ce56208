// The console's settings page (`/admin/settings`, docs/leader-console.md "Pages" -> "Settings"):
// six forms, each saving its own fields through the API's updateCommunitySettings (its audit entry
// included), refusals shown next to the field with the submitted values kept, the fingerprint that
// refuses a form rendered from settings changed since, and the preview of a draft header and theme
// rendered through the hosted pages' own SSR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { formOnSite, leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cset');
  other = await leaderFixture(server, 'cseto');
});
afterAll(async () => {
  await server?.close();
});

const settingsPage = (f: LeaderFixture, cookie = f.cookies.founder, path = '/admin/settings') =>
  onSite(server, f.tag, 'GET', path, { cookie });
const storedSettings = async (f: LeaderFixture) =>
  (await onSite(server, f.tag, 'GET', `/api/admin/${f.tag}/settings`, { cookie: f.cookies.founder })).body as Record<
    string,
    any
  >;

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1]) : null;
};

/**
 * The fields a form of the page sends as rendered: hidden and text inputs, ticked checkboxes, the
 * selected option of each select, textareas; what a browser would post when the Save button is pressed.
 */
function formFields(html: string, id: string): Record<string, string> {
  const start = html.indexOf(`id="${id}"`);
  if (start < 0) throw new Error(`no form #${id}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input\b[^>]*>/g)) {
    const name = attr(m[0], 'name');
    if (!name) continue;
    const type = attr(m[0], 'type') ?? 'text';
    if (type === 'checkbox' && !/\schecked\b/.test(m[0])) continue;
    fields[name] = attr(m[0], 'value') ?? '';
  }
  for (const m of form.matchAll(/<select\b[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]) ?? /<option value="([^"]*)"/.exec(m[2]);
    fields[decode(m[1])] = selected ? decode(selected[1]) : '';
  }
  for (const m of form.matchAll(/<textarea\b[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    fields[decode(m[1])] = decode(m[2]);
  return fields;
}

/** Posts a group's form as the page renders it now, with `changes` (null: the field left out, an unticked box). */
async function save(
  group: string,
  changes: Record<string, string | null> = {},
  opts: { f?: LeaderFixture; cookie?: string; html?: string } = {},
): Promise<RawResponse> {
  const f = opts.f ?? club;
  const cookie = opts.cookie ?? f.cookies.founder;
  const html = opts.html ?? (await settingsPage(f, cookie)).text;
  const fields = formFields(html, `settings-${group}`);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete fields[k];
    else fields[k] = v;
  }
  return formOnSite(server, f.tag, `/admin/settings/${group}`, fields, { cookie });
}

async function auditEntries(f: LeaderFixture) {
  return server.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('community_id', '=', f.id)
    .where('action', '=', 'settings.update')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The hosted site's home page, as an anonymous visitor gets it. */
function hostedHome(tag: string) {
  const port = new URL(server.url).port;
  return rawRequest(port, 'GET', '/', { Host: `${tag}.localhost:${port}`, Accept: 'text/html' });
}

/** The `_csrf` of this cookie's session, for someone no console page shows a form to. */
function csrfOfAny(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
  return csrfTokenFor(csrfKey(server.sessions), sid);
}

/** The message shown next to a field (its error paragraph) and whether its input says it is invalid. */
function errorNextTo(html: string, name: string): { message: string | null; invalid: boolean } {
  const id = name.replace(/[^A-Za-z0-9_-]/g, '-');
  const message = new RegExp(`<p class="field-error" id="error-${id}">([^<]*)</p>`).exec(html);
  const input = new RegExp(`<(?:input|select|textarea)[^>]*id="field-${id}"[^>]*>`).exec(html);
  return {
    message: message ? decode(message[1]) : null,
    invalid: !!input && /aria-invalid="true"/.test(input[0]) && input[0].includes(`error-${id}`),
  };
}

describe('happy', () => {
  it('shows the founder and an admin every group as its own form, each with the token and the fingerprint', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const res = await settingsPage(club, club.cookies[who]);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['content-security-policy']).toContain("frame-src 'self'");
      for (const group of ['access', 'site', 'theme', 'header', 'pages', 'advanced']) {
        const fields = formFields(res.text, `settings-${group}`);
        expect(fields._csrf, group).toBeTruthy();
        expect(fields.fingerprint, group).toMatch(/^[\w-]{32}$/);
      }
      expect(res.text).toContain('<iframe class="preview-frame" name="settings-preview" title="Preview"');
      expect(res.text).toContain('formaction="/admin/settings/preview" formtarget="settings-preview"');
      expect(res.text).toContain('data-island="settings-preview"');
    }
  });

  it('saves each group as one change with its audit entry, and the hosted site and the public object follow', async () => {
    const before = (await auditEntries(club)).length;
    // Warm the anonymous page cache: the change must not leave the old page served.
    expect((await hostedHome(club.tag)).status).toBe(200);

    const access = await save('access', { visibility: 'PUBLIC', accessibility: 'APPLICATION' });
    expect(access.status).toBe(303);
    expect(access.headers.location).toBe('/admin/settings?done=access');
    expect((await settingsPage(club, club.cookies.founder, '/admin/settings?done=access')).text).toContain(
      'Access saved.',
    );

    const site = await save('site', {
      landingUrl: 'https://www.example.org',
      domains: `${club.tag}.example.org\n\n  WWW.${club.tag}.example.org  `,
      embedOrigins: 'https://www.example.org\nhttp://127.0.0.1:4000',
    });
    expect(site.status).toBe(303);

    const theme = await save('theme', {
      'themeConfig.brandColor': '#123abc',
      'themeConfig.brandColor.unset': null,
      'themeConfig.bodyFont': 'Georgia, serif',
    });
    expect(theme.status).toBe(303);

    const header = await save('header', {
      'header.storeName': 'The Settings Club',
      'header.style': 'blur',
      'header.showBell': 'yes',
      'header.navFontSize': '15',
      'header.borderBottom': 'true',
    });
    expect(header.status).toBe(303);

    const pages = await save('pages', {
      'pages.BLOG.visibility': 'MEMBERS_ONLY',
      'pages.FEED.enabled': null,
    });
    expect(pages.status).toBe(303);

    const nav = [
      { href: '/events', label: 'Gatherings', visibleWhen: 'always' },
      { label: 'Members area', visibleWhen: 'authenticated', children: [{ href: '/members', label: 'Directory' }] },
    ];
    const advanced = await save('advanced', {
      'advanced.nav': JSON.stringify(nav),
      'advanced.rules': '{"version": 2, "text": "Be kind."}',
    });
    expect(advanced.status).toBe(303);
    expect(advanced.headers.location).toBe('/admin/settings?done=advanced');

    const s = await storedSettings(club);
    expect(s.accessibility).toBe('APPLICATION');
    expect(s.landingUrl).toBe('https://www.example.org');
    expect(s.domains).toEqual([`${club.tag}.example.org`, `www.${club.tag}.example.org`]);
    expect([...s.embedOrigins].sort()).toEqual(['http://127.0.0.1:4000', 'https://www.example.org']);
    expect(s.themeConfig).toMatchObject({ brandColor: '#123abc', bodyFont: 'Georgia, serif' });
    // The header form replaced the header only; the advanced form kept it.
    expect(s.storefrontConfig.header).toMatchObject({
      storeName: 'The Settings Club',
      style: 'blur',
      showBell: true,
      navFontSize: 15,
      borderBottom: true,
    });
    expect(s.storefrontConfig.nav).toEqual(nav);
    expect(s.storefrontConfig.rules).toEqual({ version: 2, text: 'Be kind.' });
    expect(s.pageSettings).toEqual(
      expect.arrayContaining([
        { pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' },
        { pageKey: 'FEED', enabled: false, visibility: null },
      ]),
    );

    // One entry per save, by the founder, holding only the fields that group changed.
    const entries = await auditEntries(club);
    expect(entries.length - before).toBe(6);
    const changed = entries.slice(0, 6).map((e) => Object.keys(JSON.parse(String(e.after))).sort());
    expect(changed).toEqual([
      ['storefrontConfig'],
      ['pageSettings'],
      ['storefrontConfig'],
      ['themeConfig'],
      ['domains', 'embedOrigins', 'landingUrl'],
      ['accessibility'],
    ]);
    expect(entries.every((e) => e.actor_user_id === club.users.founder.id)).toBe(true);

    // The hosted site, at once: the new theme and header (server-rendered), on the new domain too.
    const home = await hostedHome(club.tag);
    expect(home.text).toContain('--svc-theme-brand-color:#123abc');
    expect(home.text).toContain('The Settings Club');
    const port = new URL(server.url).port;
    const onDomain = await rawRequest(port, 'GET', '/', { Host: `www.${club.tag}.example.org:${port}` });
    expect(onDomain.status).toBe(200);
    expect(onDomain.text).toContain('The Settings Club');
    const pub = (await server.request(`/api/communities/${club.tag}`)).body;
    expect(pub.themeConfig.brandColor).toBe('#123abc');
  });

  it('lets an admin save too, recorded as the admin', async () => {
    const res = await save(
      'theme',
      { 'themeConfig.accentColor': '#aa5500', 'themeConfig.accentColor.unset': null },
      {
        cookie: club.cookies.admin,
      },
    );
    expect(res.status).toBe(303);
    const [last] = await auditEntries(club);
    expect(last.actor_user_id).toBe(club.users.admin.id);
    expect(JSON.parse(String(last.after))).toEqual({
      themeConfig: expect.objectContaining({ accentColor: '#aa5500' }),
    });
  });

  it('changes nothing, and records nothing, when a form is saved as it was rendered', async () => {
    // Stored spellings a browser would change: an upper-case colour, numbers and booleans in the header.
    await onSite(server, club.tag, 'PATCH', `/api/admin/${club.tag}/settings`, {
      cookie: club.cookies.founder,
      json: { themeConfig: { ...(await storedSettings(club)).themeConfig, linkColor: '#ABCDEF' } },
    });
    const before = (await auditEntries(club)).length;
    const settings = await storedSettings(club);
    for (const group of ['access', 'site', 'theme', 'header', 'pages', 'advanced']) {
      const res = await save(group);
      expect(res.status, group).toBe(303);
    }
    expect((await auditEntries(club)).length).toBe(before);
    expect(await storedSettings(club)).toEqual(settings);
  });

  it('names each colour\'s "Not set" box by its colour, so ten boxes are not all called the same', async () => {
    const html = (await settingsPage(club)).text;
    const names = new Set<string>();
    for (const box of html.matchAll(/<input type="checkbox" name="themeConfig\.(\w+)\.unset"[^>]*>/g)) {
      const name = attr(box[0], 'aria-label') ?? '';
      expect(name, box[1]).toMatch(/^\S.*: not set \(the default\)$/);
      names.add(name);
    }
    expect(names.size).toBe(10);
    expect(names).toContain('Brand: not set (the default)');
  });

  it('removes a theme key whose box says "Not set", and a header key whose input is emptied', async () => {
    const res = await save('theme', { 'themeConfig.accentColor.unset': 'yes' });
    expect(res.status).toBe(303);
    expect((await storedSettings(club)).themeConfig.accentColor).toBeUndefined();
    expect((await save('header', { 'header.storeName': '' })).status).toBe(303);
    expect((await storedSettings(club)).storefrontConfig.header.storeName).toBeUndefined();
  });

  it('previews a draft header and theme through the hosted SSR, writing nothing', async () => {
    const before = await storedSettings(club);
    const entries = (await auditEntries(club)).length;
    const page = (await settingsPage(club)).text;
    const fields = {
      ...formFields(page, 'settings-theme'),
      ...formFields(page, 'settings-header'),
      'themeConfig.brandColor': '#fe0101',
      'header.storeName': 'Draft <Name>',
      draft: ['theme', 'header'],
    };
    const res = await formOnSite(server, club.tag, '/admin/settings/preview', fields, { cookie: club.cookies.founder });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.text).toContain('--svc-theme-brand-color:#fe0101');
    // The server-rendered header and footer, with the draft name, escaped.
    expect(res.text).toMatch(/<svc-header[^>]*><template shadowrootmode="open">/);
    expect(res.text).toContain('Draft &lt;Name>');
    expect(res.text).not.toContain('Draft <Name>');
    expect(res.text).toContain('<svc-footer');
    expect(res.text).toContain('nothing here is saved');
    expect(await storedSettings(club)).toEqual(before);
    expect((await auditEntries(club)).length).toBe(entries);

    // Without a draft (the frame's first page), the stored look.
    const stored = await settingsPage(club, club.cookies.founder, '/admin/settings/preview');
    expect(stored.status).toBe(200);
    expect(stored.text).toContain(`--svc-theme-brand-color:${before.themeConfig.brandColor}`);
  });
});

describe('error', () => {
  it('shows a bad value next to its field with every submitted value kept, 400, nothing written', async () => {
    const entries = (await auditEntries(club)).length;
    const cases: [string, Record<string, string | null>, string, string][] = [
      ['site', { domains: `ok-${club.tag}.example.org\nnot a host!` }, 'domains', '"not a host!"'],
      ['site', { embedOrigins: 'https://ok.example.org/path' }, 'embedOrigins', 'must be an origin'],
      ['site', { landingUrl: 'ftp://x' }, 'landingUrl', 'landingUrl'],
      ['theme', { 'themeConfig.bodyFont': 'x'.repeat(201) }, 'themeConfig.bodyFont', 'themeConfig.bodyFont'],
      ['pages', { 'pages.BLOG.visibility': 'EVERYONE' }, 'pages.BLOG.visibility', 'visibility'],
      ['access', { visibility: 'SECRET' }, 'visibility', 'visibility'],
      ['advanced', { 'advanced.nav': '[{"href": "/x\\u0000", "label": "X"}]' }, 'advanced.nav', 'nav.0.href'],
      ['advanced', { 'advanced.chromeProxy': '{"enabled": "yes"}' }, 'advanced.chromeProxy', 'chromeProxy.enabled'],
      // Valid JSON a few kilobytes long that nests deeper than any walk of it may recurse.
      [
        'advanced',
        { 'advanced.footer': `{"columns": ${'['.repeat(5000)}${']'.repeat(5000)}}` },
        'advanced.footer',
        'nested too deeply',
      ],
      ['header', { 'header.storeName': 'bad\u0007name' }, 'header.storeName', 'storeName'],
    ];
    for (const [group, changes, field, says] of cases) {
      const res = await save(group, changes);
      expect(res.status, field).toBe(400);
      const shown = errorNextTo(res.text, field);
      expect(shown.message, field).toContain(says);
      expect(shown.invalid, field).toBe(true);
      // The submitted value is what the field shows again.
      const value = Object.values(changes)[0]!;
      const kept = formFields(res.text, `settings-${group}`)[field];
      expect(kept, field).toBe(value);
    }
    expect((await auditEntries(club)).length).toBe(entries);
  });

  it("refuses another community's domain with 409 next to the domains, and a platform host with 400", async () => {
    const taken = `taken-${Date.now().toString(36)}.example.org`;
    await onSite(server, other.tag, 'PATCH', `/api/admin/${other.tag}/settings`, {
      cookie: other.cookies.founder,
      json: { domains: [taken] },
    });
    const res = await save('site', { domains: `free-${club.tag}.example.org\n${taken}` });
    expect(res.status).toBe(409);
    expect(errorNextTo(res.text, 'domains').message).toBe(
      `"${taken}": this domain is already used by another community`,
    );
    // The answer does not say which community has it.
    expect(res.text).not.toContain(other.tag);
    expect(formFields(res.text, 'settings-site').domains).toBe(`free-${club.tag}.example.org\n${taken}`);
    const platform = await save('site', { domains: `${club.tag}.localhost` });
    expect(platform.status).toBe(400);
    expect(errorNextTo(platform.text, 'domains').message).toContain("platform's own hosts");
    expect((await storedSettings(club)).domains).not.toContain(taken);
  });

  it('refuses, 409, a form rendered from settings that have changed since, keeping what was submitted', async () => {
    const opened = (await settingsPage(club)).text;
    // Meanwhile another admin changes the theme.
    expect(
      (await save('theme', { 'themeConfig.textColor': '#202020', 'themeConfig.textColor.unset': null })).status,
    ).toBe(303);
    const entries = (await auditEntries(club)).length;
    const stale = await save('header', { 'header.storeName': 'Stale tab' }, { html: opened });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('changed since you opened this page');
    expect(formFields(stale.text, 'settings-header')['header.storeName']).toBe('Stale tab');
    expect((await auditEntries(club)).length).toBe(entries);
    expect((await storedSettings(club)).storefrontConfig.header.storeName).not.toBe('Stale tab');
    // The page re-rendered with the current fingerprint: sending it again is a deliberate overwrite.
    const again = formFields(stale.text, 'settings-header');
    const res = await formOnSite(server, club.tag, '/admin/settings/header', again, { cookie: club.cookies.founder });
    expect(res.status).toBe(303);
    expect((await storedSettings(club)).storefrontConfig.header.storeName).toBe('Stale tab');
  });

  it('answers JSON that does not parse with 400 next to its box, and writes nothing', async () => {
    const before = await storedSettings(club);
    const res = await save('advanced', { 'advanced.footer': '{"title": "Oops",}' });
    expect(res.status).toBe(400);
    expect(errorNextTo(res.text, 'advanced.footer').message).toMatch(/^footer is not valid JSON: /);
    expect(formFields(res.text, 'settings-advanced')['advanced.footer']).toBe('{"title": "Oops",}');
    expect(await storedSettings(club)).toEqual(before);
  });
});

describe('security', () => {
  const forms = ['access', 'site', 'theme', 'header', 'pages', 'advanced', 'preview'];

  it('refuses a member, an applicant, a banned admin and a stranger, even with a valid token', async () => {
    const before = await storedSettings(club);
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const page = await settingsPage(club, club.cookies[who]);
      expect(page.status, who).toBe(403);
      expect(page.text).not.toContain('settings-theme');
      expect((await settingsPage(club, club.cookies[who], '/admin/settings/preview')).status, who).toBe(403);
      for (const form of forms) {
        const res = await formOnSite(
          server,
          club.tag,
          `/admin/settings/${form}`,
          { _csrf: csrfOfAny(club.cookies[who]), visibility: 'MEMBERS_ONLY', 'themeConfig.brandColor': '#000000' },
          { cookie: club.cookies[who] },
        );
        expect(res.status, `${who} ${form}`).toBe(403);
        expect(res.text).toContain('This page is for the leaders of');
      }
    }
    expect(await storedSettings(club)).toEqual(before);
  });

  it("refuses another community's founder, and someone with no cookie", async () => {
    const before = await storedSettings(club);
    const foreign = await formOnSite(
      server,
      club.tag,
      '/admin/settings/access',
      { _csrf: csrfOfAny(other.cookies.founder), visibility: 'MEMBERS_ONLY' },
      { cookie: other.cookies.founder },
    );
    expect(foreign.status).toBe(403);
    expect((await settingsPage(club, other.cookies.founder)).status).toBe(403);
    const anonymous = await formOnSite(server, club.tag, '/admin/settings/access', { visibility: 'MEMBERS_ONLY' });
    expect(anonymous.status).toBe(403);
    const gate = await onSite(server, club.tag, 'GET', '/admin/settings');
    expect(gate.status).toBe(403);
    expect(gate.text).toContain('/sign-in?next=%2Fadmin%2Fsettings');
    expect(await storedSettings(club)).toEqual(before);
  });

  it('refuses a post without the token, with a forged one, or from another site', async () => {
    const before = await storedSettings(club);
    const html = (await settingsPage(club)).text;
    const fields: Record<string, string> = { ...formFields(html, 'settings-access'), visibility: 'MEMBERS_ONLY' };
    const noToken = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== '_csrf'));
    for (const [why, body, origin] of [
      ['no token', noToken, undefined],
      ['forged token', { ...fields, _csrf: 'forged-token-forged-token-forged-token-abc' }, undefined],
      ["another member's token", { ...fields, _csrf: csrfOfAny(club.cookies.member) }, undefined],
      ['cross-site', fields, 'https://evil.example'],
      ['no origin', fields, null],
    ] as const) {
      const res = await formOnSite(server, club.tag, '/admin/settings/access', body, {
        cookie: club.cookies.founder,
        origin,
      });
      expect(res.status, why).toBe(403);
      expect(res.text, why).toContain('Form not accepted');
    }
    const preview = await formOnSite(server, club.tag, '/admin/settings/preview', fields, {
      cookie: club.cookies.founder,
      origin: 'https://evil.example',
    });
    expect(preview.status).toBe(403);
    expect(await storedSettings(club)).toEqual(before);
  });

  it('ignores fields no form has (tag, name, features, founder): they are never written', async () => {
    const db = server.database.db;
    const row = () =>
      db.selectFrom('communities').select(['tag', 'name', 'features']).where('id', '=', club.id).executeTakeFirst();
    const before = await row();
    for (const group of ['access', 'site', 'theme', 'header', 'pages', 'advanced']) {
      const res = await save(group, {
        tag: 'hijacked',
        name: 'Hijacked',
        features: '["broadcasts","donations"]',
        founder: club.users.stranger.id,
        'storefrontConfig.header': '{"storeName":"x"}',
        themeConfig: '{"brandColor":"#000"}',
      });
      expect(res.status, group).toBe(303);
    }
    expect(await row()).toEqual(before);
    const founder = await db
      .selectFrom('memberships')
      .select('role')
      .where('community_id', '=', club.id)
      .where('user_id', '=', club.users.stranger.id)
      .executeTakeFirst();
    expect(founder).toBeUndefined();
  });

  it('escapes what leaders wrote when the page shows it again', async () => {
    const res = await save('header', { 'header.storeName': '"><script>alert(1)</script>' });
    expect(res.status).toBe(303);
    const page = (await settingsPage(club)).text;
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
