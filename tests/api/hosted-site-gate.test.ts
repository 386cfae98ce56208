// The hosted site's gate, row by row (spec, "Page-access rules"; docs/hosted-site.md): a disabled
// page is not found; a MEMBERS_ONLY page (its own visibility, else the community's) is a 403 gate
// page for anyone but an ACCEPTED member; an event page judges the event's own visibility.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;

type ViewerKind = 'anonymous' | 'non-member' | 'PENDING' | 'ACCEPTED' | 'BANNED';
const VIEWERS: ViewerKind[] = ['anonymous', 'non-member', 'PENDING', 'ACCEPTED', 'BANNED'];
/** Per community tag, the cookie each kind of viewer sends. */
const cookies = new Map<string, Record<ViewerKind, string | undefined>>();

const get = (tag: string, path: string, viewer: ViewerKind = 'anonymous'): Promise<RawResponse> => {
  const cookie = cookies.get(tag)![viewer];
  return rawRequest(port, 'GET', path, { Host: `${tag}.localhost:${port}`, ...(cookie ? { Cookie: cookie } : {}) });
};

async function community(
  tag: string,
  visibility: 'PUBLIC' | 'MEMBERS_ONLY',
  pageSettings: object[],
  events: Parameters<typeof makeEvent>[2][] = [],
) {
  const db = server.database.db;
  const c = await makeCommunity(db, tag, { name: `Club ${tag}`, visibility });
  await db
    .updateTable('communities')
    .set({ page_settings: JSON.stringify(pageSettings) })
    .where('id', '=', c.id)
    .execute();
  for (const e of events) await makeEvent(db, c.id, e);
  const byViewer = { anonymous: undefined } as Record<ViewerKind, string | undefined>;
  for (const kind of VIEWERS.slice(1)) {
    const user = await makeUser(db, `${tag}-${kind.toLowerCase()}`);
    if (kind !== 'non-member') await makeMembership(db, c.id, user.id, kind as 'PENDING' | 'ACCEPTED' | 'BANNED');
    byViewer[kind] = `svc_auth_${tag}=${(await server.sessions.issue(user.id, Date.now(), undefined, tag)).token}`;
  }
  cookies.set(tag, byViewer);
}

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  // A private community: every page inherits MEMBERS_ONLY.
  await community(
    'priv',
    'MEMBERS_ONLY',
    [],
    [
      { slug: 'open-day', visibility: 'PUBLIC' },
      { slug: 'plain', visibility: null },
    ],
  );
  // A public community whose EVENTS page is members-only, with a public and an inheriting event.
  await community(
    'mixed',
    'PUBLIC',
    [{ pageKey: 'EVENTS', enabled: true, visibility: 'MEMBERS_ONLY' }],
    [
      { slug: 'open-night', name: 'Open Night', visibility: 'PUBLIC' },
      { slug: 'inherits', name: 'Inherits', visibility: null },
    ],
  );
  // A public community with public pages and a members-only event.
  await community(
    'pub',
    'PUBLIC',
    [{ pageKey: 'EVENTS', enabled: true, visibility: null }],
    [
      { slug: 'everyone', name: 'Everyone', visibility: 'PUBLIC' },
      { slug: 'insiders', name: 'Insiders', visibility: 'MEMBERS_ONLY' },
    ],
  );
  // A public community whose EVENTS page is switched off, and whose HOME is members-only.
  await community(
    'off',
    'PUBLIC',
    [
      { pageKey: 'EVENTS', enabled: false, visibility: null },
      { pageKey: 'HOME', enabled: true, visibility: 'MEMBERS_ONLY' },
    ],
    [{ slug: 'hidden', visibility: 'PUBLIC' }],
  );
});
afterAll(async () => {
  await server.close();
});

const MEMBERS_ONLY_ROWS: [ViewerKind, number][] = [
  ['anonymous', 403],
  ['non-member', 403],
  ['PENDING', 403],
  ['BANNED', 403],
  ['ACCEPTED', 200],
];

describe('hosted site gate: happy path', () => {
  it.each(VIEWERS)('a public page renders for a %s viewer', async (viewer) => {
    for (const path of ['/', '/events']) {
      const res = await get('pub', path, viewer);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<title>');
      expect(res.text).not.toContain('Members only');
    }
  });

  it.each(MEMBERS_ONLY_ROWS)("a members-only community's pages: %s gets %i", async (viewer, status) => {
    for (const path of ['/', '/events']) {
      const res = await get('priv', path, viewer);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('private, no-store');
      if (status === 403) expect(res.text).toContain('<h1>Members only</h1>');
      else expect(res.text).not.toContain('Members only');
    }
  });

  it.each(MEMBERS_ONLY_ROWS)("a page's own MEMBERS_ONLY on a public community: %s gets %i", async (viewer, status) => {
    expect((await get('mixed', '/events', viewer)).status).toBe(status);
    expect((await get('off', '/', viewer)).status).toBe(status);
    // The community's other pages stay public.
    expect((await get('mixed', '/', viewer)).status).toBe(200);
  });

  it('the gate page links to sign-in returning to the page, and to the application', async () => {
    const res = await get('mixed', '/events?past=true');
    expect(res.text).toContain('href="/sign-in?next=%2Fevents%3Fpast%3Dtrue"');
    expect(res.text).toContain('<a class="button" href="/apply">Apply to join Club mixed</a>');
    expect((await get('mixed', '/events', 'PENDING')).text).toContain('Your application is waiting for a decision.');
    expect((await get('mixed', '/events', 'non-member')).text).toContain('Sign in with another account');
  });

  it('rule 4: a public event renders on a members-only EVENTS page, for anyone', async () => {
    for (const viewer of VIEWERS) {
      const res = await get('mixed', '/events/open-night', viewer);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<h1>Open Night</h1>');
    }
    // And in a members-only community.
    expect((await get('priv', '/events/open-day')).status).toBe(200);
  });

  it('rule 4: a members-only event is a gate for non-members even on a public EVENTS page', async () => {
    for (const [viewer, status] of MEMBERS_ONLY_ROWS) {
      const res = await get('pub', '/events/insiders', viewer);
      expect(res.status).toBe(status);
      if (status === 200) expect(res.text).toContain('<h1>Insiders</h1>');
      else expect(res.text).not.toContain('Insiders');
    }
  });

  it('rule 4: an event without a visibility inherits the EVENTS page, else the community', async () => {
    for (const [viewer, status] of MEMBERS_ONLY_ROWS) {
      expect((await get('mixed', '/events/inherits', viewer)).status).toBe(status);
      expect((await get('priv', '/events/plain', viewer)).status).toBe(status);
    }
  });

  it("lists show each event by its own visibility: a public event on a members-only page's home", async () => {
    const home = await get('mixed', '/');
    expect(home.text).toContain('Open Night');
    expect(home.text).not.toContain('Inherits');
    const memberHome = await get('mixed', '/', 'ACCEPTED');
    expect(memberHome.text).toContain('Inherits');
    expect(memberHome.text).not.toContain('Join Club mixed');
  });
});

describe('hosted site gate: errors', () => {
  it.each(VIEWERS)('a disabled page is not found for a %s viewer, its event pages too', async (viewer) => {
    for (const path of ['/events', '/events/hidden']) {
      const res = await get('off', path, viewer);
      expect(res.status).toBe(404);
      expect(res.text).toContain('Page not found');
    }
  });

  it('a disabled page leaves the nav', async () => {
    // The header's links are absolute on the site's origin (as <svc-header> resolves them).
    const eventsLink = /href="(?:http:\/\/[^"/]+)?\/events"[^>]*>Events<\/a>/;
    expect((await get('off', '/', 'ACCEPTED')).text).not.toMatch(eventsLink);
    expect((await get('pub', '/')).text).toMatch(eventsLink);
  });

  it('a members-only event that does not exist is not found, for members and others alike', async () => {
    expect((await get('pub', '/events/nothing-here')).status).toBe(404);
    expect((await get('pub', '/events/nothing-here', 'ACCEPTED')).status).toBe(404);
  });
});

describe('hosted site gate: security', () => {
  it("a gate page shows none of the page's content and is never cached", async () => {
    const res = await get('mixed', '/events');
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('Open Night');
    expect(res.text).not.toContain('Inherits');
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('a forged or expired token reads as anonymous', async () => {
    const accepted = cookies.get('priv')!.ACCEPTED!;
    const forged = `${accepted.slice(0, -4)}AAAA`;
    const res = await rawRequest(port, 'GET', '/', { Host: `priv.localhost:${port}`, Cookie: forged });
    expect(res.status).toBe(403);
    expect(res.text).toContain('Sign in if you are one.');
  });
});
