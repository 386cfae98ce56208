// The member directory over real HTTP: ACCEPTED members only, exactly the public fields, in join
// order, and no private value whatever is stored next to them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId } from '../../server/db/ids.ts';
import { makeCommunity, makeKey, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let communityId: string;
let otherPk: string;
const base = '/v1/communities/club/members';
const joined: { userId: string; usertag: string; joinedAt: string }[] = [];
let privateUser: { id: string; usertag: string };
let pendingUserId: string;

async function addMember(
  db: Db,
  community: string,
  userId: string,
  status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED',
  createdAt: string,
  acceptedAt: string | null,
  role: 'member' | 'admin' = 'member',
) {
  await db
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: community,
      user_id: userId,
      status,
      role,
      segment_id: null,
      created_at: createdAt,
      accepted_at: acceptedAt,
    })
    .execute();
}

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'club');
  communityId = c.id;
  pk = c.pk;
  const t0 = Date.parse('2025-06-01T10:00:00.000Z');
  // Accepted in an order different from request order: joinedAt is the acceptance time.
  for (const [i, acceptOffset] of [3, 0, 2, 1].entries()) {
    const u = await makeUser(db, `member${i}`);
    const joinedAt = new Date(t0 + 86_400_000 + acceptOffset * 60_000).toISOString();
    await addMember(db, c.id, u.id, 'ACCEPTED', new Date(t0 + i * 1000).toISOString(), joinedAt);
    joined.push({ userId: u.id, usertag: u.usertag, joinedAt });
  }
  joined.sort((a, b) => a.joinedAt.localeCompare(b.joinedAt));
  for (const status of ['PENDING', 'REJECTED', 'BANNED'] as const) {
    const u = await makeUser(db, `not-${status.toLowerCase()}`);
    if (status === 'PENDING') pendingUserId = u.id;
    await addMember(db, c.id, u.id, status, new Date(t0).toISOString(), null);
  }
  // A member with every private field filled in, distinctive enough to find anywhere in a body.
  privateUser = await makeUser(db, 'private-pat');
  await db
    .updateTable('users')
    .set({
      email: 'pat.private@secret-mail.example',
      phone: '+15550009999',
      password_hash: 'scrypt$PRIVATEHASH$abc',
      name: 'Pat Private',
      bio: 'Public bio',
      profile_image: 'https://img.example/pat.png',
    })
    .where('id', '=', privateUser.id)
    .execute();
  await addMember(
    db,
    c.id,
    privateUser.id,
    'ACCEPTED',
    '2025-01-01T00:00:00.000Z',
    '2025-06-05T00:00:00.000Z',
    'admin',
  );
  joined.push({ userId: privateUser.id, usertag: 'private-pat', joinedAt: '2025-06-05T00:00:00.000Z' });
  const other = await makeCommunity(db, 'other-club');
  otherPk = other.pk;
  await addMember(
    db,
    other.id,
    (await makeUser(db, 'outsider')).id,
    'ACCEPTED',
    '2025-01-01T00:00:00.000Z',
    '2025-01-01T00:00:00.000Z',
  );
});
afterAll(async () => {
  await s.close();
});

describe('members: happy path', () => {
  it('lists ACCEPTED members only, oldest join first, with joinedAt = the acceptance time', async () => {
    const r = await s.request(base, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body.map((m: any) => [m.usertag, m.joinedAt])).toEqual(joined.map((m) => [m.usertag, m.joinedAt]));
    expect(r.headers.get('x-total-count')).toBe(String(joined.length));
  });

  it('returns exactly the public fields', async () => {
    const r = await s.request(base, { key: pk });
    const pat = r.body.find((m: any) => m.usertag === 'private-pat');
    expect(pat).toEqual({
      userId: privateUser.id,
      name: 'Pat Private',
      usertag: 'private-pat',
      profileImage: 'https://img.example/pat.png',
      bio: 'Public bio',
      joinedAt: '2025-06-05T00:00:00.000Z',
    });
    for (const m of r.body)
      expect(Object.keys(m).sort()).toEqual(['bio', 'joinedAt', 'name', 'profileImage', 'userId', 'usertag']);
  });

  it('pages by limit and offset with a Link to the next page', async () => {
    const r = await s.request(`${base}?limit=2&offset=1`, { key: pk });
    expect(r.body.map((m: any) => m.usertag)).toEqual(joined.slice(1, 3).map((m) => m.usertag));
    const link = r.headers.get('link')!;
    expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('offset')).toBe('3');
  });

  it('uses the request time as joinedAt for an accepted membership without an acceptance time', async () => {
    const db = s.database.db;
    const c = await makeCommunity(db, 'legacy');
    await addMember(db, c.id, (await makeUser(db, 'old-timer')).id, 'ACCEPTED', '2020-02-02T00:00:00.000Z', null);
    const r = await s.request('/v1/communities/legacy/members', { key: c.pk });
    expect(r.body.map((m: any) => m.joinedAt)).toEqual(['2020-02-02T00:00:00.000Z']);
  });
});

describe('members: errors', () => {
  it('answers bad paging parameters with 400 naming the field', async () => {
    for (const [qs, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=x', 'offset'],
      ['status=PENDING', 'status'],
    ]) {
      const r = await s.request(`${base}?${qs}`, { key: pk });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field } });
    }
  });

  it('answers 405 to a write on the directory', async () => {
    const r = await s.request(base, { method: 'POST', key: pk, json: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});

describe('members: security', () => {
  it('never returns e-mail, phone, status, role, password hash or any other stored private value', async () => {
    const db = s.database.db;
    // Whatever columns users and memberships have (now or added later), none of their values
    // may appear unless it is one of the public fields.
    const user = await db.selectFrom('users').selectAll().where('id', '=', privateUser.id).executeTakeFirstOrThrow();
    const membership = await db
      .selectFrom('memberships')
      .selectAll()
      .where('user_id', '=', privateUser.id)
      .executeTakeFirstOrThrow();
    const publicValues = new Set([
      user.id,
      user.name,
      user.usertag,
      user.profile_image,
      user.bio,
      membership.accepted_at,
    ]);
    const privateValues = [...Object.values(user), ...Object.values(membership)].filter(
      (v): v is string => typeof v === 'string' && v.length > 3 && !publicValues.has(v),
    );
    expect(privateValues).toEqual(
      expect.arrayContaining([
        'pat.private@secret-mail.example',
        '+15550009999',
        'scrypt$PRIVATEHASH$abc',
        'ACCEPTED',
        'admin',
        membership.id,
      ]),
    );
    for (const path of [
      base,
      `${base}?limit=100`,
      `${base}?limit=1&offset=${joined.findIndex((m) => m.usertag === 'private-pat')}`,
    ]) {
      const r = await s.request(path, { key: pk });
      const body = JSON.stringify(r.body);
      expect(body).toContain('private-pat');
      for (const v of privateValues) expect(body).not.toContain(v);
      expect(body).not.toMatch(/@secret-mail|\+1555|PENDING|BANNED|REJECTED|"status"|"email"|"phone"|"role"/);
    }
  });

  it('never lists pending, rejected or banned users, nor members of other communities', async () => {
    const r = await s.request(`${base}?limit=100`, { key: pk });
    const tags = r.body.map((m: any) => m.usertag);
    expect(tags).not.toContain('not-pending');
    expect(tags).not.toContain('not-rejected');
    expect(tags).not.toContain('not-banned');
    expect(tags).not.toContain('outsider');
    expect(r.body.map((m: any) => m.userId)).not.toContain(pendingUserId);
  });

  it("answers 403 COMMUNITY_MISMATCH to another community's key", async () => {
    const r = await s.request(base, { key: otherPk });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('COMMUNITY_MISMATCH');
  });

  it('answers 403 with grantedScopes to a secret key without READ_PUBLIC', async () => {
    const key = await makeKey(s.database.db, communityId, ['WRITE_MEMBERS']);
    const r = await s.request(base, { key });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['WRITE_MEMBERS'] } });
  });

  it('a members-only MEMBERS page keeps the directory from the publishable key, not from secret keys', async () => {
    const db = s.database.db;
    const c = await makeCommunity(db, 'quiet-club');
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'MEMBERS', enabled: true, visibility: 'MEMBERS_ONLY' }]) })
      .where('id', '=', c.id)
      .execute();
    await addMember(
      db,
      c.id,
      (await makeUser(db, 'quiet-one')).id,
      'ACCEPTED',
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
    );
    // The community's own server decides who sees what: READ_PUBLIC and ADMIN secret keys read it.
    for (const scopes of [['READ_PUBLIC'], ['ADMIN']] as const) {
      const r = await s.request('/v1/communities/quiet-club/members', { key: await makeKey(db, c.id, [...scopes]) });
      expect(r.status, scopes[0]).toBe(200);
      expect(r.body.map((m: any) => m.usertag)).toEqual(['quiet-one']);
    }
    // Asked after the secret keys, so a cached secret-key answer would show here.
    const r = await s.request('/v1/communities/quiet-club/members', { key: c.pk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      code: 'PAGE_MEMBERS_ONLY',
      error: 'This community shows its member directory to members only',
    });
    expect(r.text).not.toContain('quiet-one');
  });
});
