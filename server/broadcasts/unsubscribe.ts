// Recording an unsubscribe made with a broadcast's link (docs/mail.md, "Unsubscribing"). One row
// per member and community in broadcast_unsubscribes (a second use of any link changes nothing),
// and the broadcast whose link was used counts it, in the same transaction. The audience query
// (./audience.ts) leaves these members out of every later broadcast; transactional mail (tickets,
// receipts, sign-in) never reads this table.
import { transaction, type Db } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import type { UnsubscribeClaims } from './unsubscribe-token.ts';

export type UnsubscribeOutcome = 'unsubscribed' | 'already' | 'test' | 'unknown';

/** Records the unsubscribe a verified token asks for. */
export async function recordUnsubscribe(db: Db, claims: UnsubscribeClaims): Promise<UnsubscribeOutcome> {
  const userId = claims.userId;
  if (userId === null) return 'test';
  return transaction(db, async (trx) => {
    const user = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    // A deleted account has nothing left to unsubscribe.
    if (!user) return 'unknown';
    const broadcast = await trx
      .selectFrom('broadcasts')
      .select('id')
      .where('id', '=', claims.broadcastId)
      .where('community_id', '=', claims.communityId)
      .executeTakeFirst();
    const inserted = await trx
      .insertInto('broadcast_unsubscribes')
      .values({
        community_id: claims.communityId,
        user_id: userId,
        broadcast_id: broadcast?.id ?? null,
        unsubscribed_at: nowIso(),
      })
      .onConflict((oc) => oc.columns(['community_id', 'user_id']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    if (!inserted) return 'already';
    if (broadcast)
      await trx
        .updateTable('broadcasts')
        .set((eb) => ({ unsubscribed_count: eb('unsubscribed_count', '+', 1) }))
        .where('id', '=', broadcast.id)
        .execute();
    return 'unsubscribed';
  });
}

/** Whether this member has unsubscribed from the community's broadcasts. */
export async function isUnsubscribed(db: Db, communityId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('broadcast_unsubscribes')
    .select('user_id')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}
