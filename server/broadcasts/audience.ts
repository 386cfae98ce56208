// Who a broadcast goes to: the community's ACCEPTED members (PENDING, REJECTED, kicked and BANNED
// are not members), or those of them in the listed segments, minus the members who unsubscribed
// from its broadcasts. One definition for the count the API answers when a broadcast is queued and
// for the batches the dispatcher writes to the outbox, so the two never disagree on who is in it.
//
// Both read memberships by (community_id, status, id) (migration 0022's memberships_by_status_id)
// and skip unsubscribed members through broadcast_unsubscribes' primary key: index-bound at any
// size. Batches are keyed by membership id, so the dispatcher resumes after the last one written.
import type { Db, Trx } from '../db/index.ts';

export interface Audience {
  communityId: string;
  /** null = every ACCEPTED member. */
  segmentIds: readonly string[] | null;
}

export interface AudienceMember {
  membershipId: string;
  userId: string;
  email: string;
  name: string;
}

function members(db: Db | Trx, audience: Audience) {
  let q = db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .where('m.community_id', '=', audience.communityId)
    .where('m.status', '=', 'ACCEPTED')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('broadcast_unsubscribes as x')
            .select('x.user_id')
            .whereRef('x.community_id', '=', 'm.community_id')
            .whereRef('x.user_id', '=', 'm.user_id'),
        ),
      ),
    );
  if (audience.segmentIds !== null) {
    // An empty list is nobody: `in ()` is not SQL.
    if (audience.segmentIds.length === 0) q = q.where((eb) => eb.val(1), '=', 0);
    else q = q.where('m.segment_id', 'in', [...audience.segmentIds]);
  }
  return q;
}

/** How many members the audience holds now. */
export async function countAudience(db: Db | Trx, audience: Audience): Promise<number> {
  const row = await members(db, audience)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Up to `limit` members after membership id `after` (from the start when null), in membership-id order. */
export async function audienceBatch(
  db: Db | Trx,
  audience: Audience,
  after: string | null,
  limit: number,
): Promise<AudienceMember[]> {
  let q = members(db, audience).select([
    'm.id as membershipId',
    'm.user_id as userId',
    'u.email as email',
    'u.name as name',
  ]);
  if (after !== null) q = q.where('m.id', '>', after);
  return q.orderBy('m.id').limit(limit).execute();
}
