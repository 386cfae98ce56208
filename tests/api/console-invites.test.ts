// The console's invites page (docs/leader-console.md, "Pages", "Invites"): the links with their
// state, uses and expiry; the create form, whose answer shows the link once (no redirect, no-store);
// revoke, confirmed. Through the API's operations (contract/routes/admin-invites.ts).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  cookieFor,
  csrfFor,
  formOnSite,
  leaderFixture,
  onSite,
  type LeaderFixture,
  type Person,
} from './support/leaders.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let open: LeaderFixture;
let freeSegment: string;
let paidSegment: string;

const db = () => server.database.db;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cinv');
  other = await leaderFixture(server, 'cinvo');
  open = await leaderFixture(server, 'cinvopen');
  for (const f of [club, other])
    await db().updateTable('communities').set({ accessibility: 'INVITE_ONLY' }).where('id', '=', f.id).execute();
  freeSegment = await makeSegment(db(), club.id, { name: 'Friends & <Family>' });
  paidSegment = await makeSegment(db(), club.id, { name: 'Patrons', price_monthly: 500 });
});
afterAll(async () => {
  await server?.close();
});

const page = (path: string, who?: Person, f: LeaderFixture = club) =>
  onSite(server, f.tag, 'GET', path, { cookie: who ? f.cookies[who] : undefined });

function csrfOfAny(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
  return csrfTokenFor(csrfKey(server.sessions), sid);
}

async function post(path: string, who: Person, fields: Record<string, string> = {}, f: LeaderFixture = club) {
  const cookie = f.cookies[who];
  return formOnSite(server, f.tag, path, { _csrf: csrfOfAny(cookie), ...fields }, { cookie });
}

const links = (f: LeaderFixture = club) =>
  db().selectFrom('invite_links').selectAll().where('community_id', '=', f.id).orderBy('created_at').execute();

/** The link a create page shows, once. */
const shownLink = (html: string) => /<p class="secret">([^<]+)<\/p>/.exec(html)?.[1] ?? null;

describe('happy', () => {
  it('shows the page with the create form and the links, private and never stored', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const res = await page('/admin/invites', who);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Invites</h1>');
      expect(res.text).toMatch(/<a href="\/admin\/invites" aria-current="page">Invites<\/a>/);
      expect(res.text).toContain('<form method="post" action="/admin/invites">');
      expect(res.text).not.toContain('<fieldset disabled');
      // Free segments only: a link pays nothing.
      expect(res.text).toContain(`<option value="${freeSegment}">Friends &amp; &lt;Family&gt;</option>`);
      expect(res.text).not.toContain(paidSegment);
    }
  });

  it('creates a link and shows it once, on the answer itself, then only its prefix', async () => {
    const before = (await links()).length;
    const res = await post('/admin/invites', 'admin', {
      expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16),
      maxUses: '3',
      segmentId: freeSegment,
      note: 'For the <picnic>',
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toContain('Shown only once — copy it now.');
    expect(res.text).toContain('stored only as a hash');
    const url = shownLink(res.text)!;
    expect(url).toMatch(new RegExp(`^http://${club.tag}\\.localhost:\\d+/join/[A-Za-z0-9_-]{43}$`));
    const code = url.slice(url.lastIndexOf('/') + 1);
    const rows = await links();
    expect(rows).toHaveLength(before + 1);
    const row = rows[rows.length - 1];
    expect(row.max_uses).toBe(3);
    expect(row.segment_id).toBe(freeSegment);
    expect(row.note).toBe('For the <picnic>');
    // The expiry was read as UTC, to the minute.
    expect(Math.abs(Date.parse(String(row.expires_at)) - (Date.now() + 3 * 86_400_000))).toBeLessThan(120_000);
    // The code itself is nowhere in the database: only its hash.
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(JSON.stringify(await db().selectFrom('audit_log').selectAll().execute())).not.toContain(code);

    const list = await page('/admin/invites', 'founder');
    expect(list.text).not.toContain(code);
    expect(list.text).toContain(`<code>/join/${code.slice(0, 6)}…</code>`);
    expect(list.text).toContain('For the &lt;picnic&gt;');
    expect(list.text).toContain('<td>ACTIVE');
    expect(list.text).toContain('<td>0 / 3</td>');
    expect(list.text).toContain('Friends &amp; &lt;Family&gt;');
  });

  it('takes the defaults for empty fields: seven days, no limit, no segment', async () => {
    const res = await post('/admin/invites', 'founder', { expiresAt: '', maxUses: '', segmentId: '', note: '' });
    expect(res.status).toBe(201);
    const row = (await links()).at(-1)!;
    expect(row.max_uses).toBeNull();
    expect(row.segment_id).toBeNull();
    expect(Math.abs(Date.parse(String(row.expires_at)) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
  });

  it('revokes a link once confirmed, with a notice; the link stops working', async () => {
    const created = await post('/admin/invites', 'founder', { note: 'to revoke' });
    const code = shownLink(created.text)!.split('/join/')[1];
    const row = (await links()).at(-1)!;
    const res = await post(`/admin/invites/${row.id}/revoke`, 'admin', { confirmed: 'yes' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/invites?done=revoked');
    const after = (await links()).find((l) => l.id === row.id)!;
    expect(after.revoked_at).not.toBeNull();
    const list = await page('/admin/invites?done=revoked', 'admin');
    expect(list.text).toContain('The link was revoked');
    expect(list.text).not.toContain(`action="/admin/invites/${row.id}/revoke"`);
    const u = await makeUser(db(), `cinvv${Date.now().toString(36)}`);
    const joinPage = await onSite(server, club.tag, 'GET', `/join/${code}`, {
      cookie: await cookieFor(server, u.id, club.tag),
    });
    expect(joinPage.status).toBe(410);
  });

  it('explains, on a community that is not invite-only, what links do there, with the form disabled', async () => {
    const res = await page('/admin/invites', 'founder', open);
    expect(res.status).toBe(200);
    expect(res.text).toContain('This community is <strong>OPEN</strong>');
    expect(res.text).toContain('<a href="/apply">/apply</a>');
    expect(res.text).toContain('<fieldset disabled aria-describedby="invites-closed">');
    // Forced anyway: the API's refusal, on the page, with its status.
    const forced = await post('/admin/invites', 'founder', {}, open);
    expect(forced.status).toBe(409);
    expect(forced.text).toContain('role="alert"');
    expect(await links(open)).toHaveLength(0);
  });
});

describe('error', () => {
  it('shows each refused field next to its input, the values kept, and creates nothing', async () => {
    const before = (await links()).length;
    const cases: [Record<string, string>, string, number][] = [
      [{ expiresAt: '2001-01-01T10:00' }, 'expiresAt', 400],
      [{ expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 16) }, 'expiresAt', 400],
      [{ expiresAt: 'next tuesday' }, 'expiresAt', 400],
      [{ maxUses: '0' }, 'maxUses', 400],
      [{ maxUses: 'lots' }, 'maxUses', 400],
      [{ maxUses: '100001' }, 'maxUses', 400],
      [{ segmentId: paidSegment }, 'segmentId', 422],
      [{ segmentId: crypto.randomUUID() }, 'segmentId', 422],
      [{ note: 'x'.repeat(201) }, 'note', 400],
    ];
    for (const [fields, field, status] of cases) {
      const res = await post('/admin/invites', 'founder', fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(res.text).toContain(`aria-invalid="true" aria-describedby="field-${field}-hint error-${field}"`);
      expect(res.text).toMatch(new RegExp(`<p class="field-error" id="error-${field}">[^<]+</p>`));
      expect(shownLink(res.text)).toBeNull();
    }
    const kept = await post('/admin/invites', 'founder', { maxUses: '0', note: 'keep <me>' });
    expect(kept.text).toContain('value="keep &lt;me&gt;"');
    expect(await links()).toHaveLength(before);
  });

  it('answers the question page for a revoke without confirmed=yes, and revokes nothing', async () => {
    await post('/admin/invites', 'founder', {});
    const row = (await links()).at(-1)!;
    const res = await post(`/admin/invites/${row.id}/revoke`, 'admin', { prefix: row.code_prefix });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Are you sure?</h1>');
    expect(res.text).toContain(`Revoke the invite link ${row.code_prefix}…?`);
    expect(res.text).toContain(`action="/admin/invites/${row.id}/revoke"`);
    expect(res.text).toContain('name="confirmed" value="yes"');
    expect((await links()).find((l) => l.id === row.id)!.revoked_at).toBeNull();
  });

  it("shows a refused revoke: an unknown link, another community's, a malformed id", async () => {
    const unknown = await post(`/admin/invites/${crypto.randomUUID()}/revoke`, 'founder', { confirmed: 'yes' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('role="alert"');
    await post('/admin/invites', 'founder', {}, other);
    const theirs = (await links(other)).at(-1)!;
    const cross = await post(`/admin/invites/${theirs.id}/revoke`, 'founder', { confirmed: 'yes' });
    expect(cross.status).toBe(404);
    expect((await links(other)).at(-1)!.revoked_at).toBeNull();
    const malformed = await post('/admin/invites/nope/revoke', 'founder', { confirmed: 'yes' });
    expect(malformed.status).toBe(400);
  });
});

describe('security', () => {
  it('sends an anonymous visitor to sign in and refuses every other person, page and forms', async () => {
    const anon = await page('/admin/invites');
    expect(anon.status).toBe(403);
    expect(anon.text).toContain('/sign-in?next=%2Fadmin%2Finvites');
    await post('/admin/invites', 'founder', {});
    const row = (await links()).at(-1)!;
    const before = (await links()).length;
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const res = await page('/admin/invites', who);
      expect(res.status, who).toBe(403);
      expect(res.text).not.toContain('class="console"');
      const create = await post('/admin/invites', who, { note: who });
      expect(create.status, who).toBe(403);
      expect(shownLink(create.text)).toBeNull();
      const revoke = await post(`/admin/invites/${row.id}/revoke`, who, { confirmed: 'yes' });
      expect(revoke.status, who).toBe(403);
    }
    expect(await links()).toHaveLength(before);
    expect((await links()).at(-1)!.revoked_at).toBeNull();
  });

  it("refuses another community's founder here, and never lists this community's links there", async () => {
    const before = (await links()).length;
    const here = await formOnSite(
      server,
      club.tag,
      '/admin/invites',
      { _csrf: csrfOfAny(other.cookies.founder) },
      { cookie: other.cookies.founder },
    );
    expect(here.status).toBe(403);
    expect(await links()).toHaveLength(before);
    const there = await page('/admin/invites', 'founder', other);
    for (const l of await links()) expect(there.text).not.toContain(l.code_prefix);
  });

  it('refuses a create without a token, with a forged one, without a cookie or from another site', async () => {
    const cookie = club.cookies.founder;
    const token = await csrfFor(server, club.tag, cookie);
    const before = (await links()).length;
    const attempts = [
      formOnSite(server, club.tag, '/admin/invites', { note: 'a' }, { cookie }),
      formOnSite(server, club.tag, '/admin/invites', { _csrf: 'forged', note: 'a' }, { cookie }),
      formOnSite(server, club.tag, '/admin/invites', { _csrf: token, note: 'a' }),
      formOnSite(server, club.tag, '/admin/invites', { _csrf: token }, { cookie, origin: 'https://evil.example' }),
      formOnSite(server, club.tag, '/admin/invites', { _csrf: token }, { cookie, origin: null }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('Form not accepted');
      expect(shownLink(res.text)).toBeNull();
    }
    expect(await links()).toHaveLength(before);
  });

  it('sets nothing the form does not name', async () => {
    const res = await post('/admin/invites', 'admin', {
      note: 'mass',
      uses: '99',
      createdBy: club.users.founder.id,
      revokedAt: '2001-01-01T00:00:00Z',
      communityId: other.id,
      code: 'A'.repeat(43),
    });
    expect(res.status).toBe(201);
    const row = (await links()).at(-1)!;
    expect(row.note).toBe('mass');
    expect(Number(row.uses)).toBe(0);
    expect(row.created_by).toBe(club.users.admin.id);
    expect(row.revoked_at).toBeNull();
    expect(shownLink(res.text)).not.toContain('A'.repeat(43));
  });
});
