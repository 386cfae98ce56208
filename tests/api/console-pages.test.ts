// The leader console's pages (`/admin` on the community's site, docs/leader-console.md "Pages"):
// who may open them (the founder and admins, and nobody else), the frame they share, and the
// audit log page, which reads through the same operation as the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import { recordAudit } from '../../server/domain/audit-log.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cpage');
  other = await leaderFixture(server, 'cother');
});
afterAll(async () => {
  await server?.close();
});

const page = (path: string, cookie?: string, f: LeaderFixture = club) => onSite(server, f.tag, 'GET', path, { cookie });

describe('happy', () => {
  it('opens the audit log for the founder and an admin, private and never stored', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const res = await page('/admin/audit-log', club.cookies[who]);
      expect(res.status, who).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Audit log</h1>');
      // The console's own navigation, with this section marked.
      expect(res.text).toMatch(/<a href="\/admin\/audit-log" aria-current="page">Audit log<\/a>/);
      expect(res.text).toContain('href="/admin/settings"');
    }
  });

  it('lists what was changed, newest first, with the actor and before and after, filtered by action', async () => {
    const actor = { userId: club.users.admin.id, communityId: club.id };
    for (const [action, n] of [
      ['settings.update', 1],
      ['key.create', 2],
      ['settings.update', 3],
    ] as const) {
      await transaction(server.database.db, (trx) =>
        recordAudit(trx, actor, {
          action,
          targetType: 'community',
          targetId: club.id,
          before: { n: n - 1 },
          after: { n },
        }),
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    const all = await page('/admin/audit-log', club.cookies.founder);
    const order = [...all.text.matchAll(/<code>\{&quot;n&quot;:(\d)\}<\/code>/g)].map((m) => m[1]);
    // Each row shows before then after: 2,3 then 1,2 then 0,1.
    expect(order).toEqual(['2', '3', '1', '2', '0', '1']);
    const filtered = await page('/admin/audit-log?action=key.create', club.cookies.founder);
    expect(filtered.text).toContain('key.create');
    expect(filtered.text).not.toContain('<code>settings.update</code>');
    expect(filtered.text).toContain('1–1 of 1');
  });

  it('pages by offset with links that keep the filter', async () => {
    const actor = { userId: club.users.founder.id, communityId: club.id };
    for (let i = 0; i < 51; i++)
      await transaction(server.database.db, (trx) =>
        recordAudit(trx, actor, {
          action: 'bulk.test',
          targetType: 'community',
          targetId: club.id,
          before: null,
          after: { i },
        }),
      );
    const first = await page('/admin/audit-log?action=bulk.test', club.cookies.founder);
    expect(first.text).toContain('1–50 of 51');
    expect(first.text).toContain('href="/admin/audit-log?action=bulk.test&amp;offset=50" rel="next"');
    const second = await page('/admin/audit-log?action=bulk.test&offset=50', club.cookies.founder);
    expect(second.text).toContain('51–51 of 51');
    expect(second.text).toContain('rel="prev"');
  });
});

describe('error', () => {
  it('answers a query the operation refuses with the page and the reason, 400', async () => {
    const res = await page('/admin/audit-log?offset=-1', club.cookies.founder);
    expect(res.status).toBe(400);
    expect(res.text).toContain('<h1>Audit log</h1>');
    expect(res.text).toContain('role="alert"');
  });
});

describe('security', () => {
  it('sends an anonymous visitor to sign in, and shows nothing of the console', async () => {
    const res = await page('/admin/audit-log');
    expect(res.status).toBe(403);
    expect(res.text).toContain('/sign-in?next=%2Fadmin%2Faudit-log');
    expect(res.text).not.toContain('class="console"');
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('refuses a member, an applicant, a banned admin and a stranger alike', async () => {
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      const res = await page('/admin/audit-log', club.cookies[who]);
      expect(res.status, who).toBe(403);
      expect(res.text, who).toContain('This page is for the leaders of');
      expect(res.text, who).not.toContain('class="console"');
    }
  });

  it("refuses another community's founder, with their own cookie or on their own site", async () => {
    // Their cookie is for their site: on this one it signs nobody in.
    const res = await page('/admin/audit-log', other.cookies.founder);
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('class="console"');
    // On their own site they see their own console, never this community's entries.
    const own = await page('/admin/audit-log', other.cookies.founder, other);
    expect(own.status).toBe(200);
    expect(own.text).not.toContain(club.id);
  });

  it('has no console on the platform host', async () => {
    const port = new URL(server.url).port;
    const res = await rawRequest(port, 'GET', '/admin/audit-log', {
      Host: `localhost:${port}`,
      Cookie: club.cookies.founder,
    });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('class="console"');
  });
});
