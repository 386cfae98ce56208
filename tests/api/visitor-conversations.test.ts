// Conversations: direct (one per pair) and group, messages, and the unread counts. Only
// participants see a conversation; anyone else gets 404, so ids cannot be probed.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
type U = { id: string; usertag: string; token: string };
let ada: U;
let bob: U;
let cy: U;
let dee: U;

const as = (who: U | null, path: string, init: RequestInit & { json?: unknown } = {}) =>
  s.request(path, {
    ...init,
    headers: { ...(who ? { Authorization: `Bearer ${who.token}` } : {}), ...(init.headers as Record<string, string>) },
  });
const start = (who: U, usertags: string[]) =>
  as(who, '/api/messaging/conversations', { method: 'POST', json: { usertags } });
const say = (who: U, id: string, body: string) =>
  as(who, `/api/messaging/conversations/${id}/messages`, { method: 'POST', json: { body } });
const read = (who: U, id: string, q = '') => as(who, `/api/messaging/conversations/${id}/messages${q}`);
const counts = async (who: U) => (await as(who, '/api/messaging/conversations/unread/counts')).body;
const markRead = (who: U, id: string, json: unknown = {}) =>
  as(who, `/api/messaging/conversations/${id}/read`, { method: 'POST', json });

async function user(tag: string): Promise<U> {
  const u = await makeUser(s.database.db, tag);
  await s.database.db
    .updateTable('users')
    .set({ phone: `+1555000${tag.length}${tag.charCodeAt(0)}` })
    .where('id', '=', u.id)
    .execute();
  return { ...u, token: (await s.sessions.issue(u.id)).token };
}
const publicOf = (u: U) => ({ id: u.id, usertag: u.usertag, name: `User ${u.usertag}`, profileImage: null });

beforeAll(async () => {
  s = await startTestServer();
  [ada, bob, cy, dee] = [await user('ada'), await user('bob'), await user('cy'), await user('dee')];
});
afterAll(async () => {
  await s.close();
});

describe('conversations: happy path', () => {
  it('creates the direct conversation once (201), then answers it again to either side (200)', async () => {
    const first = await start(ada, ['bob']);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      kind: 'direct',
      participants: expect.arrayContaining([publicOf(ada), publicOf(bob)]),
      lastMessage: null,
      unreadCount: 0,
      createdAt: expect.any(String),
      lastActivityAt: expect.any(String),
    });
    expect(first.body.participants).toHaveLength(2);
    const again = await start(bob, ['ada', 'bob', 'ada']);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });

  it('makes a new group conversation each time with two or more others', async () => {
    const a = await start(ada, ['bob', 'cy']);
    const b = await start(ada, ['bob', 'cy']);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.kind).toBe('group');
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.participants.map((p: any) => p.usertag).sort()).toEqual(['ada', 'bob', 'cy']);
  });

  it('posts messages and lists them newest first, paged, with paging headers', async () => {
    const { body: c } = await start(cy, ['dee']);
    for (let i = 1; i <= 3; i++) {
      const res = await say(i % 2 ? cy : dee, c.id, `  message ${i}  `);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        conversationId: c.id,
        sender: publicOf(i % 2 ? cy : dee),
        body: `message ${i}`,
        createdAt: expect.any(String),
      });
    }
    const page = await read(cy, c.id, '?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.map((m: any) => m.body)).toEqual(['message 3', 'message 2']);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('link')).toMatch(/offset=2.*rel="next"/);
    const rest = await read(cy, c.id, '?limit=2&offset=2');
    expect(rest.body.map((m: any) => m.body)).toEqual(['message 1']);
    expect(rest.headers.get('link')).toBeNull();
  });

  it('lists my conversations by latest activity, with the last message and my unread count', async () => {
    const { body: older } = await start(dee, ['ada']);
    const { body: newer } = await start(dee, ['bob']);
    await say(ada, older.id, 'bumped');
    const res = await as(dee, '/api/messaging/conversations');
    expect(res.status).toBe(200);
    const ids = res.body.map((c: any) => c.id);
    expect(ids.indexOf(older.id)).toBeLessThan(ids.indexOf(newer.id));
    expect(res.headers.get('x-total-count')).toBe(String(ids.length));
    const bumped = res.body.find((c: any) => c.id === older.id);
    expect(bumped.lastMessage).toMatchObject({ body: 'bumped', sender: publicOf(ada) });
    expect(bumped.unreadCount).toBe(1);
    // The caller's view: ada has nothing unread in it, her own message included.
    const adas = (await as(ada, '/api/messaging/conversations')).body.find((c: any) => c.id === older.id);
    expect(adas.unreadCount).toBe(0);
  });

  it('counts unread messages up with each message from the other user and down after I mark them read', async () => {
    const { body: c } = await start(bob, ['cy']);
    const before = await counts(cy);
    await say(bob, c.id, 'one');
    await say(bob, c.id, 'two');
    let now = await counts(cy);
    expect(now.conversations[c.id]).toBe(2);
    expect(now.total).toBe(before.total + 2);
    // My own messages never count as unread for me.
    expect((await counts(bob)).conversations[c.id]).toBeUndefined();
    const marked = await markRead(cy, c.id);
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ conversationId: c.id, unreadCount: 0 });
    now = await counts(cy);
    expect(now.conversations[c.id]).toBeUndefined();
    expect(now.total).toBe(before.total);
    // Replying marks it read too; the reply is unread for the other side.
    await say(bob, c.id, 'three');
    await say(cy, c.id, 'reply');
    expect((await counts(cy)).conversations[c.id]).toBeUndefined();
    expect((await counts(bob)).conversations[c.id]).toBe(1);
  });

  it('marks read up to the message named, never back, and up to the newest without one', async () => {
    const { body: c } = await start(ada, ['dee']);
    const sent = [];
    for (const m of ['a', 'b', 'c']) sent.push((await say(ada, c.id, m)).body);
    const upToB = await markRead(dee, c.id, { upTo: sent[1].id });
    expect(upToB.body).toEqual({ conversationId: c.id, unreadCount: 1 });
    expect((await counts(dee)).conversations[c.id]).toBe(1);
    // An older message leaves the mark where it is.
    expect((await markRead(dee, c.id, { upTo: sent[0].id })).body.unreadCount).toBe(1);
    expect((await markRead(dee, c.id)).body.unreadCount).toBe(0);
    expect((await counts(dee)).conversations[c.id]).toBeUndefined();
  });

  it('reads messages without marking anything read: a GET changes nothing', async () => {
    const { body: c } = await start(bob, ['dee', 'cy']);
    await say(bob, c.id, 'unseen');
    for (let i = 0; i < 2; i++) {
      const page = await read(dee, c.id);
      expect(page.status).toBe(200);
      expect(page.body.map((m: any) => m.body)).toEqual(['unseen']);
    }
    expect((await counts(dee)).conversations[c.id]).toBe(1);
    const listed = (await as(dee, '/api/messaging/conversations')).body.find((x: any) => x.id === c.id);
    expect(listed.unreadCount).toBe(1);
  });
});

describe('conversations: errors', () => {
  it('answers 401 SIGN_IN_REQUIRED on every route without a token', async () => {
    const id = crypto.randomUUID();
    for (const [method, path, json] of [
      ['POST', '/api/messaging/conversations', { usertags: ['bob'] }],
      ['GET', '/api/messaging/conversations', undefined],
      ['POST', `/api/messaging/conversations/${id}/messages`, { body: 'hi' }],
      ['GET', `/api/messaging/conversations/${id}/messages`, undefined],
      ['GET', '/api/messaging/conversations/unread/counts', undefined],
      ['POST', `/api/messaging/conversations/${id}/read`, {}],
    ] as const) {
      const res = await as(null, path, { method, ...(json ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('SIGN_IN_REQUIRED');
    }
  });

  it('validates who to talk to: 1 to 20 usertags, someone other than me, all existing', async () => {
    for (const json of [
      {},
      { usertags: [] },
      { usertags: Array.from({ length: 21 }, (_, i) => `u${i}`) },
      { usertags: 'bob' },
      { usertags: ['bob'], x: 1 },
    ]) {
      const res = await as(ada, '/api/messaging/conversations', { method: 'POST', json });
      expect(res.status, JSON.stringify(json).slice(0, 60)).toBe(400);
    }
    const alone = await start(ada, ['ada']);
    expect([alone.status, alone.body.extras.field]).toEqual([400, 'usertags']);
    const unknown = await start(ada, ['bob', 'ghost']);
    expect(unknown.status).toBe(404);
    expect(unknown.body.extras).toMatchObject({ usertag: 'ghost' });
  });

  it('validates a message: 1 to 4000 characters after trimming', async () => {
    const { body: c } = await start(ada, ['bob']);
    for (const body of ['', '   ', 'x'.repeat(4001)]) {
      const res = await say(ada, c.id, body);
      expect(res.status).toBe(400);
      expect(res.body.extras.field).toBe('body');
    }
    expect((await say(ada, c.id, 'x'.repeat(4000))).status).toBe(201);
  });

  it('answers 400 for a malformed conversation id and 404 for an unknown one', async () => {
    expect((await read(ada, 'not-a-uuid')).status).toBe(400);
    const unknown = await read(ada, crypto.randomUUID());
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await say(ada, crypto.randomUUID(), 'hello?')).status).toBe(404);
    expect((await markRead(ada, 'not-a-uuid')).status).toBe(400);
    expect((await markRead(ada, crypto.randomUUID())).status).toBe(404);
  });

  it('refuses to mark read up to a message of another conversation, or an unknown field', async () => {
    const { body: mine } = await start(cy, ['ada']);
    const { body: theirs } = await start(cy, ['bob']);
    const elsewhere = (await say(cy, theirs.id, 'other conversation')).body;
    await say(cy, mine.id, 'unread');
    const wrong = await markRead(ada, mine.id, { upTo: elsewhere.id });
    expect([wrong.status, wrong.body.code, wrong.body.extras.field]).toEqual([400, 'INVALID_INPUT', 'upTo']);
    expect((await markRead(ada, mine.id, { upTo: 'nope' })).status).toBe(400);
    expect((await markRead(ada, mine.id, { all: true })).status).toBe(400);
    expect((await counts(ada)).conversations[mine.id]).toBe(1);
  });
});

describe('conversations: security', () => {
  it('answers 404 to a non-participant, exactly as for a conversation that does not exist, and writes nothing', async () => {
    const { body: c } = await start(ada, ['bob']);
    await say(ada, c.id, 'private');
    const reading = await read(cy, c.id);
    const posting = await say(cy, c.id, 'let me in');
    const marking = await markRead(cy, c.id);
    const nowhere = await read(cy, crypto.randomUUID());
    for (const res of [reading, posting, marking]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(nowhere.body.error);
      expect(res.text).not.toContain('private');
    }
    const messages = await s.database.db
      .selectFrom('messages')
      .select(['body', 'sender_id'])
      .where('conversation_id', '=', c.id)
      .execute();
    expect(messages.map((m) => m.body)).toContain('private');
    expect(messages.filter((m) => m.sender_id === cy.id)).toEqual([]);
    expect((await as(cy, '/api/messaging/conversations')).body.map((x: any) => x.id)).not.toContain(c.id);
    expect((await counts(cy)).conversations[c.id]).toBeUndefined();
  });

  it('shows participants and senders with public fields only: never e-mail or phone', async () => {
    const { body: c } = await start(ada, ['bob', 'cy']);
    await say(bob, c.id, 'hello');
    const responses = [
      await start(ada, ['bob']),
      await as(ada, '/api/messaging/conversations'),
      await read(ada, c.id),
      await say(cy, c.id, 'hi'),
    ];
    for (const res of responses) expect(res.text).not.toMatch(/@example\.com|\+1555/);
    expect(Object.keys(responses[2].body[0].sender).sort()).toEqual(['id', 'name', 'profileImage', 'usertag']);
  });

  it('makes one direct conversation however concurrently it is started', async () => {
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => start(cy, ['dee'])),
      ...Array.from({ length: 4 }, () => start(dee, ['cy'])),
    ]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const direct = await s.database.db.selectFrom('conversations').select('id').where('kind', '=', 'direct').execute();
    expect(new Set(direct.map((d) => d.id)).size).toBe(direct.length);
    const members = await s.database.db
      .selectFrom('conversation_members')
      .select('user_id')
      .where('conversation_id', '=', results[0].body.id)
      .execute();
    expect(members).toHaveLength(2);
  });

  it('numbers concurrent messages one by one: none lost, unread count exact', async () => {
    const { body: c } = await start(bob, ['dee']);
    await markRead(dee, c.id);
    const sent = await Promise.all(Array.from({ length: 10 }, (_, i) => say(bob, c.id, `m${i}`)));
    expect(sent.every((r) => r.status === 201)).toBe(true);
    expect((await counts(dee)).conversations[c.id]).toBe(10);
    const seqs = await s.database.db
      .selectFrom('messages')
      .select('seq')
      .where('conversation_id', '=', c.id)
      .orderBy('seq')
      .execute();
    expect(seqs.map((m) => Number(m.seq))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('refuses a cookie-authenticated mark-read from another site, and a top-level GET marks nothing', async () => {
    const { body: c } = await start(bob, ['ada']);
    await say(bob, c.id, 'not seen yet');
    const cookie = { Cookie: `svc_auth=${ada.token}` };
    // What a link or a form on another site can make the browser send.
    const navigation = await as(null, `/api/messaging/conversations/${c.id}/messages`, {
      headers: { ...cookie, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' },
    });
    expect(navigation.status).toBe(200);
    const forged = [
      await as(null, `/api/messaging/conversations/${c.id}/read`, {
        method: 'POST',
        json: {},
        headers: { ...cookie, Origin: 'https://evil.example' },
      }),
      await as(null, `/api/messaging/conversations/${c.id}/read`, {
        method: 'POST',
        body: 'upTo=x',
        headers: { ...cookie, Origin: 'https://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    ];
    expect(forged.map((r) => r.status)).toEqual([403, 415]);
    expect((await counts(ada)).conversations[c.id]).toBe(1);
    // From the site's own page it works.
    const own = await as(null, `/api/messaging/conversations/${c.id}/read`, {
      method: 'POST',
      json: {},
      headers: { ...cookie, Origin: s.url, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(own.status).toBe(200);
    expect((await counts(ada)).conversations[c.id]).toBeUndefined();
  });

  it('refuses a cookie-authenticated message from another site', async () => {
    const { body: c } = await start(ada, ['bob']);
    const res = await as(null, `/api/messaging/conversations/${c.id}/messages`, {
      method: 'POST',
      json: { body: 'forged' },
      headers: { Cookie: `svc_auth=${ada.token}`, Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    const forged = await s.database.db.selectFrom('messages').select('id').where('body', '=', 'forged').execute();
    expect(forged).toEqual([]);
  });
});
