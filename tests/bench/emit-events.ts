// Webhook events written as requests write them: one transaction each, `emitters` callers at once.
// The webhooks bench times it; the two-process bench uses it to leave a backlog both workers race for.
import crypto from 'node:crypto';
import { transaction, type Db } from '../../server/db/index.ts';
import { emit } from '../../server/webhooks/emit.ts';

/** Emits `count` `member.approved` events with `emitters` concurrent callers; returns events/s. */
export async function emitMany(
  db: Db,
  community: { id: string; tag: string },
  count: number,
  emitters: number,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: emitters }, async () => {
      while (next < count) {
        next += 1;
        await transaction(db, (trx) =>
          emit(trx, community, 'member.approved', {
            memberId: crypto.randomUUID(),
            userId: crypto.randomUUID(),
            approvedAt: new Date().toISOString(),
            approvedBy: null,
          }),
        );
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}
