// Notifications: what a user is told about (friend requests, approvals, RSVPs). Other features
// call notify() inside their own transaction, so a notification exists exactly when the change
// that caused it committed. Reads show other users with public fields only.
import type { NotificationKind } from '../../contract/routes/visitor.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import { publicProfiles, type PublicProfile } from './users.ts';

export type { NotificationKind };

export interface NotifyInput {
  /** Who is told. */
  userId: string;
  /** The community it belongs to; omit for platform-wide ones (friends). */
  communityId?: string | null;
  /** Who caused it; shown to the recipient with public fields only. */
  actorId?: string | null;
  kind: NotificationKind;
  /** Kind-specific details, JSON-serialisable. Never put another user's private fields here. */
  data?: Record<string, unknown>;
}

/** Records a notification with the caller's transaction; returns its id. */
export async function notify(trx: Trx, input: NotifyInput): Promise<string> {
  const id = newId();
  await trx
    .insertInto('notifications')
    .values({
      id,
      user_id: input.userId,
      community_id: input.communityId ?? null,
      actor_id: input.actorId ?? null,
      kind: input.kind,
      data: JSON.stringify(input.data ?? {}),
      read_at: null,
      created_at: nowIso(),
    })
    .execute();
  return id;
}

export interface NotificationView {
  id: string;
  kind: NotificationKind;
  communityTag: string | null;
  actor: PublicProfile | null;
  data: Record<string, unknown>;
  readAt: string | null;
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** A user's notifications, newest first. */
export async function listNotifications(
  db: Db | Trx,
  userId: string,
  page: { limit: number; offset: number },
): Promise<Page<NotificationView>> {
  const [rows, totalRow] = await Promise.all([
    db
      .selectFrom('notifications')
      .leftJoin('communities', 'communities.id', 'notifications.community_id')
      .select([
        'notifications.id',
        'notifications.kind',
        'notifications.actor_id',
        'notifications.data',
        'notifications.read_at',
        'notifications.created_at',
        'communities.tag as community_tag',
      ])
      .where('notifications.user_id', '=', userId)
      .orderBy('notifications.created_at', 'desc')
      .orderBy('notifications.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  const actors = await publicProfiles(
    db,
    rows.flatMap((r) => (r.actor_id ? [r.actor_id] : [])),
  );
  return {
    total: Number(totalRow.n),
    items: rows.map((r) => ({
      id: r.id,
      kind: r.kind as NotificationKind,
      communityTag: r.community_tag ?? null,
      actor: (r.actor_id && actors.get(r.actor_id)) || null,
      data: parseJson<Record<string, unknown>>(r.data, {}),
      readAt: r.read_at,
      createdAt: r.created_at,
    })),
  };
}

export async function unreadNotificationCount(db: Db | Trx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Marks the user's unread notifications read: the listed ones, or all. Ids of other users'
 * notifications match nothing. Returns how many changed.
 */
export async function markNotificationsRead(
  trx: Trx,
  userId: string,
  which: { ids: string[] } | { all: true },
): Promise<number> {
  let q = trx
    .updateTable('notifications')
    .set({ read_at: nowIso() })
    .where('user_id', '=', userId)
    .where('read_at', 'is', null);
  if ('ids' in which) q = q.where('id', 'in', [...new Set(which.ids)]);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Marks read what `actorId` caused of `kind` (e.g. a friend request once it is answered). */
export async function markReadFromActor(
  trx: Trx,
  userId: string,
  kind: NotificationKind,
  actorId: string,
): Promise<void> {
  await trx
    .updateTable('notifications')
    .set({ read_at: nowIso() })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('actor_id', '=', actorId)
    .where('read_at', 'is', null)
    .execute();
}
