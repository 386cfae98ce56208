// The people of a leader-console test: a community with its founder, an admin, a plain member, a
// PENDING applicant, a banned admin, a stranger, and a founder of another community, each with
// the sign-in cookie of the site they are on; and requests on a community's host as a browser
// on that site would send them (Host, and Origin on writes).
import { makeCommunity, makeFounder, makeMembership, makeUser } from './factory.ts';
import type { TestServer } from './harness.ts';
import { rawRequest, type RawResponse } from './raw-http.ts';

export type Person = 'founder' | 'admin' | 'member' | 'pending' | 'bannedAdmin' | 'stranger';

export interface LeaderFixture {
  id: string;
  tag: string;
  /** Users by role in this community. */
  users: Record<Person, { id: string; email: string }>;
  /** Each person's sign-in cookie for this community's site (`svc_auth_<tag>=...`). */
  cookies: Record<Person, string>;
}

let seq = 0;

export async function cookieFor(server: TestServer, userId: string, tag: string): Promise<string> {
  return `svc_auth_${tag}=${(await server.sessions.issue(userId, Date.now(), undefined, tag)).token}`;
}

export async function leaderFixture(server: TestServer, prefix = 'lead'): Promise<LeaderFixture> {
  const db = server.database.db;
  const tag = `${prefix}${++seq}${Date.now().toString(36)}`.slice(0, 30);
  const c = await makeCommunity(db, tag, { name: `Club ${tag}` });
  const founder = await makeFounder(db, c.id, `${tag}-f`);
  const withRole = async (who: string, status: 'ACCEPTED' | 'PENDING' | 'BANNED', role: 'member' | 'admin') => {
    const u = await makeUser(db, `${tag}-${who}`);
    const m = await makeMembership(db, c.id, u.id, status);
    if (role !== 'member') await db.updateTable('memberships').set({ role }).where('id', '=', m).execute();
    return u;
  };
  const users = {
    founder,
    admin: await withRole('a', 'ACCEPTED', 'admin'),
    member: await withRole('m', 'ACCEPTED', 'member'),
    pending: await withRole('p', 'PENDING', 'member'),
    bannedAdmin: await withRole('b', 'BANNED', 'admin'),
    stranger: await makeUser(db, `${tag}-s`),
  };
  const cookies = {} as Record<Person, string>;
  for (const [who, u] of Object.entries(users)) cookies[who as Person] = await cookieFor(server, u.id, tag);
  return {
    id: c.id,
    tag,
    users: Object.fromEntries(
      Object.entries(users).map(([k, u]) => [k, { id: u.id, email: `${u.usertag}@example.com` }]),
    ) as LeaderFixture['users'],
    cookies,
  };
}

/** A request on `<tag>.localhost`, as the community's own pages make it (Origin on writes). */
export function onSite(
  server: TestServer,
  tag: string,
  method: string,
  path: string,
  opts: { cookie?: string; json?: unknown; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const port = new URL(server.url).port;
  const host = `${tag}.localhost:${port}`;
  const origin = opts.origin === undefined ? (method === 'GET' ? null : `http://${host}`) : opts.origin;
  return rawRequest(
    port,
    method,
    path,
    {
      Host: host,
      ...(origin ? { Origin: origin } : {}),
      ...(opts.cookie ? { Cookie: opts.cookie } : {}),
      ...(opts.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...opts.headers,
    },
    opts.json !== undefined ? JSON.stringify(opts.json) : undefined,
  );
}

/** A plain form post on the community's site, as a console page's form sends it (Origin, urlencoded). */
export function formOnSite(
  server: TestServer,
  tag: string,
  path: string,
  fields: Record<string, string | string[]>,
  opts: { cookie?: string; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const port = new URL(server.url).port;
  const host = `${tag}.localhost:${port}`;
  const origin = opts.origin === undefined ? `http://${host}` : opts.origin;
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  return rawRequest(
    port,
    'POST',
    path,
    {
      Host: host,
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(origin ? { Origin: origin } : {}),
      ...(opts.cookie ? { Cookie: opts.cookie } : {}),
      ...opts.headers,
    },
    body.toString(),
  );
}

/** The `_csrf` token of a signed-in person's forms on the site (read from a console page they may open). */
export async function csrfFor(
  server: TestServer,
  tag: string,
  cookie: string,
  path = '/admin/invites',
): Promise<string> {
  const page = await onSite(server, tag, 'GET', path, { cookie });
  const m = /name="_csrf" value="([^"]+)"/.exec(page.text);
  if (!m) throw new Error(`no _csrf on ${path} (status ${page.status})`);
  return m[1];
}
