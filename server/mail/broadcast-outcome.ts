// A broadcast is SENT when it is expanded and every message written for it has been sent or has
// failed. Two kinds of transaction can make that true: the mail worker's record of one message's
// outcome, and the dispatcher's last expansion batch (when the audience turned out empty, or the
// worker finished every earlier message first). Both run this in the same transaction as their own
// change; the conditional update lets exactly one of them win, so `broadcast.sent` is emitted once.
import { sql } from 'kysely';
import type { Trx } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import { emit } from '../webhooks/emit.ts';

/** Marks the broadcast SENT if this transaction is the one that completes it; emits `broadcast.sent` (never for a test). */
export async function completeIfDone(trx: Trx, broadcastId: string): Promise<boolean> {
  const now = nowIso();
  const done = await trx
    .updateTable('broadcasts')
    .set({ status: 'SENT', completed_at: now, lease_token: null, lease_until: null })
    .where('id', '=', broadcastId)
    .where('status', '=', 'SENDING')
    .where('expanded_at', 'is not', null)
    .where(sql<boolean>`sent_count + failed_count >= recipients`)
    .returning(['id', 'community_id', 'subject', 'recipients', 'sent_count', 'failed_count', 'send_at', 'test_to'])
    .executeTakeFirst();
  if (!done) return false;
  if (done.test_to === null) {
    const community = await trx
      .selectFrom('communities')
      .select(['id', 'tag'])
      .where('id', '=', done.community_id)
      .executeTakeFirstOrThrow();
    await emit(trx, community, 'broadcast.sent', {
      broadcastId: done.id,
      subject: done.subject,
      recipients: Number(done.recipients),
      sent: Number(done.sent_count),
      failed: Number(done.failed_count),
      sendAt: done.send_at,
      completedAt: now,
    });
  }
  return true;
}

/** One message's outcome on its broadcast's counters, then the completion check (in the worker's transaction). */
export async function countBroadcastOutcome(trx: Trx, broadcastId: string, outcome: 'sent' | 'failed'): Promise<void> {
  const counted = await trx
    .updateTable('broadcasts')
    .set((eb) =>
      outcome === 'sent' ? { sent_count: eb('sent_count', '+', 1) } : { failed_count: eb('failed_count', '+', 1) },
    )
    .where('id', '=', broadcastId)
    .returning(['status', 'expanded_at', 'sent_count', 'failed_count', 'recipients'])
    .executeTakeFirst();
  // The counter update holds the row's lock to the end of the transaction, so what it returns is
  // current: most messages are not the last, and skip the completion statement.
  if (
    counted &&
    counted.status === 'SENDING' &&
    counted.expanded_at !== null &&
    Number(counted.sent_count) + Number(counted.failed_count) >= Number(counted.recipients)
  )
    await completeIfDone(trx, broadcastId);
}
