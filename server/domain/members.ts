// The public member directory. Rows are built from an explicit column list and copied field by
// field into the response, so a column added to users or memberships later (payment ids,
// verification flags) cannot reach the directory by accident.
import type { Member } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';

export interface MemberPage {
  items: Member[];
  total: number;
  hasMore: boolean;
}

export async function listAccepted(
  db: Db,
  communityId: string,
  q: { limit: number; offset: number },
): Promise<MemberPage> {
  const base = db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .where('memberships.community_id', '=', communityId)
    .where('memberships.status', '=', 'ACCEPTED');
  const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .select([
      'users.id as userId',
      'users.name',
      'users.usertag',
      'users.profile_image',
      'users.bio',
      // A membership accepted before accepted_at was recorded joined when it was created.
      (eb) => eb.fn.coalesce('memberships.accepted_at', 'memberships.created_at').as('joinedAt'),
    ])
    .orderBy('joinedAt')
    .orderBy('memberships.id')
    .limit(q.limit + 1)
    .offset(q.offset)
    .execute();
  return {
    items: rows.slice(0, q.limit).map((r) => ({
      userId: r.userId,
      name: r.name,
      usertag: r.usertag,
      profileImage: r.profile_image,
      bio: r.bio,
      joinedAt: r.joinedAt,
    })),
    total: Number(total.n),
    hasMore: rows.length > q.limit,
  };
}
