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
