// Conversations: direct (one per pair of users, held by a unique key) and group ones, messages,
// and unread counts. Each message takes the conversation's next sequence number under the
// conversation row's lock; a member's unread messages are those from others with a higher
// number than the member's last_read_seq, so counts are exact whatever the clocks say.
// Only participants see a conversation: for anyone else the functions answer null (not found).
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { Page } from './notifications.ts';
import { Refusal } from './refusal.ts';
import { publicProfiles, publicProfilesByUsertag, type PublicProfile } from './users.ts';

export interface MessageView {
  id: string;
  conversationId: string;
  sender: PublicProfile | null;
  body: string;
  createdAt: string;
}

export interface ConversationView {
  id: string;
  kind: 'direct' | 'group';
  participants: PublicProfile[];
  lastMessage: MessageView | null;
  unreadCount: number;
  createdAt: string;
  lastActivityAt: string;
}

interface ConversationRow {
  id: string;
  kind: 'direct' | 'group';
  last_message_id: string | null;
  last_activity_at: string;
  created_at: string;
}

export const directKey = (a: string, b: string): string => (a < b ? `${a}:${b}` : `${b}:${a}`);

/**
 * Messages from others that `userId` has not read, per conversation (only those with some),
 * optionally limited to some conversations.
 */
async function unreadByConversation(db: Db | Trx, userId: string, only?: string[]): Promise<Map<string, number>> {
  if (only && only.length === 0) return new Map();
  let q = db
    .selectFrom('conversation_members as cm')
    .innerJoin('messages as m', (join) =>
      join.onRef('m.conversation_id', '=', 'cm.conversation_id').onRef('m.seq', '>', 'cm.last_read_seq'),
    )
    .select(['cm.conversation_id', (eb) => eb.fn.countAll().as('n')])
    .where('cm.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.sender_id', 'is', null), eb('m.sender_id', '<>', userId)]))
    .groupBy('cm.conversation_id');
  if (only) q = q.where('cm.conversation_id', 'in', only);
  const rows = await q.execute();
  return new Map(rows.map((r) => [r.conversation_id, Number(r.n)]));
}

/** Builds the views of some conversations for `userId` with a fixed number of queries. */
async function views(db: Db | Trx, userId: string, rows: ConversationRow[]): Promise<ConversationView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const lastIds = rows.flatMap((r) => (r.last_message_id ? [r.last_message_id] : []));
  const [members, lastMessages, unread] = await Promise.all([
    db
      .selectFrom('conversation_members')
      .select(['conversation_id', 'user_id'])
      .where('conversation_id', 'in', ids)
      .orderBy('joined_at')
      .orderBy('user_id')
      .execute(),
    lastIds.length
      ? db
          .selectFrom('messages')
          .select(['id', 'conversation_id', 'sender_id', 'body', 'created_at'])
          .where('id', 'in', lastIds)
          .execute()
      : Promise.resolve([]),
    unreadByConversation(db, userId, ids),
  ]);
  const users = await publicProfiles(db, [
    ...members.map((m) => m.user_id),
    ...lastMessages.flatMap((m) => (m.sender_id ? [m.sender_id] : [])),
  ]);
  const last = new Map(lastMessages.map((m) => [m.id, m]));
  return rows.map((r) => {
    const message = r.last_message_id ? last.get(r.last_message_id) : undefined;
    return {
      id: r.id,
      kind: r.kind,
      participants: members
        .filter((m) => m.conversation_id === r.id)
        .flatMap((m) => {
          const u = users.get(m.user_id);
          return u ? [u] : [];
        }),
      lastMessage: message
        ? {
            id: message.id,
            conversationId: message.conversation_id,
            sender: (message.sender_id && users.get(message.sender_id)) || null,
            body: message.body,
            createdAt: message.created_at,
          }
        : null,
      unreadCount: unread.get(r.id) ?? 0,
      createdAt: r.created_at,
      lastActivityAt: r.last_activity_at,
    };
  });
}

const CONVERSATION_COLUMNS = ['id', 'kind', 'last_message_id', 'last_activity_at', 'created_at'] as const;

/**
 * Starts a conversation between `userId` and the users named. One other user: their direct
 * conversation, made once (`created` says whether this call made it). More: a new group.
 * The caller's own usertag and repeats are ignored.
 */
export async function createConversation(
  trx: Trx,
  userId: string,
  usertags: string[],
): Promise<{ conversation: ConversationView; created: boolean }> {
  const found = await publicProfilesByUsertag(trx, usertags);
  const missing = usertags.find((t) => !found.has(t));
  if (missing !== undefined) throw new Refusal('conversation_user_not_found', { usertag: missing });
  const others = [...new Set([...found.values()].map((u) => u.id))].filter((id) => id !== userId);
  if (others.length === 0) throw new Refusal('conversation_needs_others');

  const now = nowIso();
  const id = newId();
  const kind = others.length === 1 ? 'direct' : 'group';
  const pairKey = kind === 'direct' ? directKey(userId, others[0]) : null;
  // ON CONFLICT DO NOTHING on the direct key: a concurrent creation of the same pair waits for
  // the other and then finds its conversation instead of making a second.
  const inserted = await trx
    .insertInto('conversations')
    .values({
      id,
      kind,
      direct_key: pairKey,
      created_by: userId,
      last_message_id: null,
      last_activity_at: now,
      created_at: now,
    })
    .onConflict((oc) => oc.column('direct_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    await trx
      .insertInto('conversation_members')
      .values([userId, ...others].map((u) => ({ conversation_id: id, user_id: u, joined_at: now, last_read_at: null })))
      .execute();
  }
  const row = await trx
    .selectFrom('conversations')
    .select(CONVERSATION_COLUMNS)
    // Not inserted means the pair's conversation already existed (a group always inserts).
    .$call((q) => (inserted || pairKey === null ? q.where('id', '=', id) : q.where('direct_key', '=', pairKey)))
    .executeTakeFirstOrThrow();
  const [conversation] = await views(trx, userId, [row]);
  return { conversation, created: Boolean(inserted) };
}

/** The conversations `userId` takes part in, most recent activity first. */
export async function listConversations(
  db: Db | Trx,
  userId: string,
  page: { limit: number; offset: number },
): Promise<Page<ConversationView>> {
  const base = db
    .selectFrom('conversation_members as cm')
    .innerJoin('conversations as c', 'c.id', 'cm.conversation_id')
    .where('cm.user_id', '=', userId);
  const [rows, totalRow] = await Promise.all([
    base
      .select(['c.id', 'c.kind', 'c.last_message_id', 'c.last_activity_at', 'c.created_at'])
      .orderBy('c.last_activity_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: await views(db, userId, rows), total: Number(totalRow.n) };
}

/** One conversation as `userId` sees it; null when they do not take part in it (or it does not exist). */
export async function getConversation(
  db: Db | Trx,
  userId: string,
  conversationId: string,
): Promise<ConversationView | null> {
  const row = await db
    .selectFrom('conversation_members as cm')
    .innerJoin('conversations as c', 'c.id', 'cm.conversation_id')
    .select(['c.id', 'c.kind', 'c.last_message_id', 'c.last_activity_at', 'c.created_at'])
    .where('cm.user_id', '=', userId)
    .where('cm.conversation_id', '=', conversationId)
    .executeTakeFirst();
  return row ? ((await views(db, userId, [row]))[0] ?? null) : null;
}

async function isParticipant(db: Db | Trx, userId: string, conversationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('conversation_members')
    .select('user_id')
    .where('conversation_id', '=', conversationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Posts a message; null when `userId` is not a participant (or there is no such conversation). */
export async function postMessage(
  trx: Trx,
  userId: string,
  conversationId: string,
  body: string,
): Promise<MessageView | null> {
  if (!(await isParticipant(trx, userId, conversationId))) return null;
  const id = newId();
  // Takes the conversation row's lock: posts to one conversation number themselves one by one.
  const { last_seq: seq } = await trx
    .updateTable('conversations')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1), last_message_id: id }))
    .where('id', '=', conversationId)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const now = nowIso();
  await trx
    .insertInto('messages')
    .values({ id, conversation_id: conversationId, seq, sender_id: userId, body, created_at: now })
    .execute();
  await trx.updateTable('conversations').set({ last_activity_at: now }).where('id', '=', conversationId).execute();
  // One's own message is read by oneself.
  await trx
    .updateTable('conversation_members')
    .set({ last_read_seq: seq, last_read_at: now })
    .where('conversation_id', '=', conversationId)
    .where('user_id', '=', userId)
    .where('last_read_seq', '<', seq)
    .execute();
  const sender = (await publicProfiles(trx, [userId])).get(userId) ?? null;
  return { id, conversationId, sender, body, createdAt: now };
}

/**
 * A page of messages, newest first; null when `userId` is not a participant. Reading changes
 * nothing (markRead does): a GET must be safe to follow from anywhere.
 */
export async function listMessages(
  db: Db | Trx,
  userId: string,
  conversationId: string,
  page: { limit: number; offset: number },
): Promise<Page<MessageView> | null> {
  const member = await db
    .selectFrom('conversation_members as cm')
    .innerJoin('conversations as c', 'c.id', 'cm.conversation_id')
    .select(['c.last_seq'])
    .where('cm.conversation_id', '=', conversationId)
    .where('cm.user_id', '=', userId)
    .executeTakeFirst();
  if (!member) return null;
  const rows = await db
    .selectFrom('messages')
    .select(['id', 'seq', 'sender_id', 'body', 'created_at'])
    .where('conversation_id', '=', conversationId)
    .orderBy('seq', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const senders = await publicProfiles(
    db,
    rows.flatMap((r) => (r.sender_id ? [r.sender_id] : [])),
  );
  return {
    // Messages are never deleted on their own, so the sequence is the count.
    total: Number(member.last_seq),
    items: rows.map((r) => ({
      id: r.id,
      conversationId,
      sender: (r.sender_id && senders.get(r.sender_id)) || null,
      body: r.body,
      createdAt: r.created_at,
    })),
  };
}

/**
 * Marks the conversation read for `userId` up to the message `upTo` (by its sequence number, so
 * everything older is read too), or up to the newest message. The mark only moves forward.
 * Answers the unread count left. A non-participant is refused as if there were no such
 * conversation, so ids cannot be probed.
 */
export async function markRead(
  trx: Trx,
  userId: string,
  conversationId: string,
  upTo?: string,
): Promise<{ unreadCount: number }> {
  const member = await trx
    .selectFrom('conversation_members as cm')
    .innerJoin('conversations as c', 'c.id', 'cm.conversation_id')
    .select(['c.last_seq'])
    .where('cm.conversation_id', '=', conversationId)
    .where('cm.user_id', '=', userId)
    .executeTakeFirst();
  if (!member) throw new Refusal('conversation_not_found');
  let seq = Number(member.last_seq);
  if (upTo !== undefined) {
    const message = await trx
      .selectFrom('messages')
      .select('seq')
      .where('id', '=', upTo)
      .where('conversation_id', '=', conversationId)
      .executeTakeFirst();
    if (!message) throw new Refusal('message_not_in_conversation');
    seq = Number(message.seq);
  }
  if (seq > 0) {
    await trx
      .updateTable('conversation_members')
      .set({ last_read_seq: seq, last_read_at: nowIso() })
      .where('conversation_id', '=', conversationId)
      .where('user_id', '=', userId)
      .where('last_read_seq', '<', seq)
      .execute();
  }
  const unread = await unreadByConversation(trx, userId, [conversationId]);
  return { unreadCount: unread.get(conversationId) ?? 0 };
}

/** Unread messages from others: in total and per conversation (those with none left out). */
export async function unreadMessageCounts(
  db: Db | Trx,
  userId: string,
): Promise<{ total: number; conversations: Record<string, number> }> {
  const counts = await unreadByConversation(db, userId);
  let total = 0;
  const conversations: Record<string, number> = {};
  for (const [id, n] of counts) {
    conversations[id] = n;
    total += n;
  }
  return { total, conversations };
}
