// `auth: {kind: 'leader'}`: the leader console's routes (`{site_base}/api/admin/{communityTag}/...`,
// docs/leader-console.md). The visitor is authenticated first exactly as for `session` routes (the
// sign-in cookie bound to this site, or a Bearer token; cookie writes from the site's own origin
// only), then judged here: the request must be on the community's own site, and the visitor's
// membership there must be ACCEPTED with the founder or admin role. Every other caller gets the
// same 403 NOT_A_LEADER, so the answer tells a member, an applicant, a banned user and a leader of
// another community nothing about the community they are not leading.
import type { Db } from '../db/index.ts';
import { messages } from '../shared/messages.ts';
import { ApiError } from './api-error.ts';
import type { Visitor } from './session.ts';

export type LeaderRole = 'founder' | 'admin';

export interface Leader {
  userId: string;
  /** The leader's own name (the console's header, a preview's sample recipient). */
  name: string;
  /** The leader's account e-mail: where the console's "Send a test to me" goes. */
  email: string;
  membershipId: string;
  communityId: string;
  communityTag: string;
  communityName: string;
  role: LeaderRole;
}

/**
 * The leader the visitor is in `communityTag`, or a 403. The site check comes first: a leader of
 * two communities signed in on one's site never acts on the other from there (a cookie of one
 * community never writes another).
 */
export async function authenticateLeader(
  db: Db,
  visitor: Pick<Visitor, 'userId' | 'communityTag'>,
  communityTag: string | undefined,
): Promise<Leader> {
  if (!communityTag || visitor.communityTag !== communityTag) throw notALeader();
  const row = await db
    .selectFrom('memberships as m')
    .innerJoin('communities as c', 'c.id', 'm.community_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'm.id as membershipId',
      'm.role',
      'c.id as communityId',
      'c.tag as communityTag',
      'c.name as communityName',
      'u.name',
      'u.email',
    ])
    .where('c.tag', '=', communityTag)
    .where('m.user_id', '=', visitor.userId)
    .where('m.status', '=', 'ACCEPTED')
    .where('m.role', 'in', ['founder', 'admin'])
    .executeTakeFirst();
  if (!row) throw notALeader();
  return {
    userId: visitor.userId,
    name: row.name,
    email: row.email,
    membershipId: row.membershipId,
    communityId: row.communityId,
    communityTag: row.communityTag,
    communityName: row.communityName,
    role: row.role as LeaderRole,
  };
}

const notALeader = () => new ApiError('NOT_A_LEADER', messages.notALeader);
