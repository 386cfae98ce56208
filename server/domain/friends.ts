// Friends: requests, acceptance, rejection. One row per pair of users (ordered ids, unique), so
// duplicate or crossing requests, however concurrent, can never make two. Each request and each
// acceptance notifies the other user in the same transaction.
//
// Every request notifies someone, so asking is bounded: at most FRIEND_REQUEST_PENDING_MAX
// unanswered requests per sender, FRIEND_REQUESTS_PER_HOUR attempts per sender (the HTTP layer's
// rate-limit bucket), and after a rejection the same sender waits FRIEND_REQUEST_COOLDOWN_MS
// before asking the same person again. None of these stop accepting a request the other user sent.
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { FriendshipsTable } from '../db/schema-social.ts';
import { markReadFromActor, notify, type Page } from './notifications.ts';
import { findPublicProfileByUsertag, publicProfiles, type PublicProfile } from './users.ts';
import { Refusal } from './refusal.ts';

/** Unanswered requests one user may have out at once. */
export const FRIEND_REQUEST_PENDING_MAX = 100;
/** Friend request attempts per sender per hour (rate-limit bucket `friend-requests`). */
export const FRIEND_REQUESTS_PER_HOUR = 30;
/** After a rejection, how long before the same sender may ask the same person again. */
export const FRIEND_REQUEST_COOLDOWN_MS = 7 * 24 * 3_600_000;

export interface FriendshipView {
  user: PublicProfile;
  status: 'PENDING' | 'ACCEPTED';
  requestedBy: 'me' | 'them';
  createdAt: string;
  acceptedAt: string | null;
}

type Row = Pick<FriendshipsTable, 'id' | 'requester_id' | 'status' | 'created_at' | 'accepted_at'>;

const pair = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

function view(row: Row, me: string, other: PublicProfile): FriendshipView {
  return {
    user: other,
    status: row.status,
    requestedBy: row.requester_id === me ? 'me' : 'them',
    createdAt: row.created_at,
    acceptedAt: row.accepted_at,
  };
}

async function rowOfPair(trx: Trx, a: string, b: string): Promise<Row | undefined> {
  const [low, high] = pair(a, b);
  return trx
    .selectFrom('friendships')
    .select(['id', 'requester_id', 'status', 'created_at', 'accepted_at'])
    .where('user_low', '=', low)
    .where('user_high', '=', high)
    .executeTakeFirst();
}

/** PENDING -> ACCEPTED, only if still pending (a concurrent accept or reject wins otherwise). */
async function acceptRow(trx: Trx, row: Row, accepter: string, requester: string): Promise<Row | null> {
  const now = nowIso();
  const done = await trx
    .updateTable('friendships')
    .set({ status: 'ACCEPTED', accepted_at: now })
    .where('id', '=', row.id)
    .where('status', '=', 'PENDING')
    .where('requester_id', '=', requester)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) return null;
  await notify(trx, { userId: requester, actorId: accepter, kind: 'friend.accepted', data: {} });
  await markReadFromActor(trx, accepter, 'friend.requested', requester);
  return { ...row, status: 'ACCEPTED', accepted_at: now };
}

/** Refuses (friend_request_cooldown, friend_request_limit) when `fromUserId` may not send `toUserId` a new request now. */
async function assertMayAsk(trx: Trx, fromUserId: string, toUserId: string): Promise<void> {
  const rejected = await trx
    .selectFrom('friend_request_rejections')
    .select('rejected_at')
    .where('requester_id', '=', fromUserId)
    .where('addressee_id', '=', toUserId)
    .executeTakeFirst();
  if (rejected) {
    const until = Date.parse(rejected.rejected_at) + FRIEND_REQUEST_COOLDOWN_MS;
    if (until > Date.now())
      throw new Refusal('friend_request_cooldown', { retryAfter: Math.ceil((until - Date.now()) / 1000) });
  }
  const pending = await trx
    .selectFrom('friendships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('requester_id', '=', fromUserId)
    .where('status', '=', 'PENDING')
    .executeTakeFirstOrThrow();
  if (Number(pending.n) >= FRIEND_REQUEST_PENDING_MAX)
    throw new Refusal('friend_request_limit', { max: FRIEND_REQUEST_PENDING_MAX });
}

/**
 * `fromUserId` asks `toUsertag`. If the other user had already asked, this accepts their request.
 * Refuses: user_not_found, friend_request_self, friend_request_exists (already pending from me), already_friends,
 * and for a new request, friend_request_cooldown (turned down by them lately) or friend_request_limit
 * (too many unanswered).
 */
export async function sendFriendRequest(trx: Trx, fromUserId: string, toUsertag: string): Promise<FriendshipView> {
  const target = await findPublicProfileByUsertag(trx, toUsertag);
  if (!target) throw new Refusal('user_not_found');
  if (target.id === fromUserId) throw new Refusal('friend_request_self');
  // Only a new request is held to the limits; an existing row is answered as before below.
  if (!(await rowOfPair(trx, fromUserId, target.id))) await assertMayAsk(trx, fromUserId, target.id);
  const [low, high] = pair(fromUserId, target.id);
  // Two passes at most: a pending row we saw can be rejected (deleted) before we accept it.
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = nowIso();
    // ON CONFLICT DO NOTHING: a concurrent request for the same pair (either direction) makes
    // this one wait for it, then insert nothing; the row is then read below.
    const inserted = await trx
      .insertInto('friendships')
      .values({
        id: newId(),
        user_low: low,
        user_high: high,
        requester_id: fromUserId,
        addressee_id: target.id,
        status: 'PENDING',
        created_at: now,
        accepted_at: null,
      })
      .onConflict((oc) => oc.columns(['user_low', 'user_high']).doNothing())
      .returning(['id', 'requester_id', 'status', 'created_at', 'accepted_at'])
      .executeTakeFirst();
    if (inserted) {
      await notify(trx, { userId: target.id, actorId: fromUserId, kind: 'friend.requested', data: {} });
      return view(inserted, fromUserId, target);
    }
    const existing = await rowOfPair(trx, fromUserId, target.id);
    if (!existing) continue;
    if (existing.status === 'ACCEPTED') throw new Refusal('already_friends');
    if (existing.requester_id === fromUserId) throw new Refusal('friend_request_exists');
    const accepted = await acceptRow(trx, existing, fromUserId, target.id);
    if (accepted) return view(accepted, fromUserId, target);
  }
  // Lost every race against the other user's accept/reject: say what is there now.
  const now = await rowOfPair(trx, fromUserId, target.id);
  throw new Refusal(now?.status === 'ACCEPTED' ? 'already_friends' : 'friend_request_exists');
}

/** Pending requests other users sent to `userId`, newest first. */
export async function listIncomingRequests(
  db: Db | Trx,
  userId: string,
  page: { limit: number; offset: number },
): Promise<Page<FriendshipView>> {
  const base = db.selectFrom('friendships').where('addressee_id', '=', userId).where('status', '=', 'PENDING');
  const [rows, totalRow] = await Promise.all([
    base
      .select(['id', 'requester_id', 'status', 'created_at', 'accepted_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  const users = await publicProfiles(
    db,
    rows.map((r) => r.requester_id),
  );
  return {
    total: Number(totalRow.n),
    items: rows.flatMap((r) => {
      const other = users.get(r.requester_id);
      return other ? [view(r, userId, other)] : [];
    }),
  };
}

/**
 * Accepts the request `fromUsertag` sent to `userId`. Only requests to the caller: none, or one
 * the caller sent, is no_request. An already accepted friendship is answered again, silently.
 */
export async function acceptFriendRequest(trx: Trx, userId: string, fromUsertag: string): Promise<FriendshipView> {
  const other = await findPublicProfileByUsertag(trx, fromUsertag);
  if (!other || other.id === userId) throw new Refusal('friend_request_not_found');
  const row = await rowOfPair(trx, userId, other.id);
  if (!row) throw new Refusal('friend_request_not_found');
  if (row.status === 'ACCEPTED') return view(row, userId, other);
  if (row.requester_id !== other.id) throw new Refusal('friend_request_not_found');
  const accepted = await acceptRow(trx, row, userId, other.id);
  if (accepted) return view(accepted, userId, other);
  // Changed under us: accepted concurrently (answer it) or withdrawn (nothing to accept).
  const now = await rowOfPair(trx, userId, other.id);
  if (now?.status === 'ACCEPTED') return view(now, userId, other);
  throw new Refusal('friend_request_not_found');
}

/** Removes the pending request `fromUsertag` sent to `userId`; anything else is no_request. */
export async function rejectFriendRequest(trx: Trx, userId: string, fromUsertag: string): Promise<void> {
  const other = await findPublicProfileByUsertag(trx, fromUsertag);
  if (!other || other.id === userId) throw new Refusal('friend_request_not_found');
  const [low, high] = pair(userId, other.id);
  const gone = await trx
    .deleteFrom('friendships')
    .where('user_low', '=', low)
    .where('user_high', '=', high)
    .where('requester_id', '=', other.id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  if (Number(gone.numDeletedRows) !== 1) throw new Refusal('friend_request_not_found');
  // Remembered (the request row is gone) so the sender waits out the cooldown before asking again.
  const now = nowIso();
  await trx
    .insertInto('friend_request_rejections')
    .values({ requester_id: other.id, addressee_id: userId, rejected_at: now })
    .onConflict((oc) => oc.columns(['requester_id', 'addressee_id']).doUpdateSet({ rejected_at: now }))
    .execute();
  await markReadFromActor(trx, userId, 'friend.requested', other.id);
}
