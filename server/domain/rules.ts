// Rules acceptance: an ACCEPTED member records that they accepted the community's current rules
// version. The primary key (community, user, version) makes it idempotent: a repeat, or two at
// once, records one acceptance and answers the first one's time.
import type { Trx } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import { Refusal } from './refusal.ts';

/** Records the acceptance and answers its time; refuses a stale version or a non-member. */
export async function acceptRules(
  trx: Trx,
  communityId: string,
  userId: string,
  rulesVersion: number,
): Promise<{ acceptedAt: string }> {
  const community = await trx
    .selectFrom('communities')
    .select('rules_version')
    .where('id', '=', communityId)
    .executeTakeFirst();
  if (!community) throw new Refusal('community_not_found');
  const current = Number(community.rules_version);
  // Version 0 is "no rules published yet": there is nothing to accept.
  if (current < 1 || rulesVersion !== current)
    throw new Refusal('rules_version_mismatch', { asked: rulesVersion, currentVersion: current });
  const membership = await trx
    .selectFrom('memberships')
    .select('status')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (membership?.status !== 'ACCEPTED') throw new Refusal('not_a_member');

  await trx
    .insertInto('rules_acceptances')
    .values({ community_id: communityId, user_id: userId, rules_version: rulesVersion, accepted_at: nowIso() })
    .onConflict((oc) => oc.columns(['community_id', 'user_id', 'rules_version']).doNothing())
    .execute();
  const row = await trx
    .selectFrom('rules_acceptances')
    .select('accepted_at')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('rules_version', '=', rulesVersion)
    .executeTakeFirstOrThrow();
  return { acceptedAt: row.accepted_at };
}
