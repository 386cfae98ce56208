// The leader console's audit log: one row per change a founder or admin makes, written with the
// change in its transaction (recordAudit takes the transaction), so a change that rolls back leaves
// no entry and a committed one always has its entry. `before` and `after` are what the change
// replaced and what it left, as JSON; secrets never go in (a key is recorded by its prefix).
import type { AuditEntry } from '../../contract/routes/admin.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';

export interface AuditActor {
  userId: string;
  communityId: string;
}

export interface AuditChange {
  /** `<resource>.<verb>`: `settings.update`, `member.kick`, `key.create`, ... */
  action: string;
  targetType: string;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
}

export async function recordAudit(trx: Trx, actor: AuditActor, change: AuditChange): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      id: newId(),
      community_id: actor.communityId,
      actor_user_id: actor.userId,
      action: change.action,
      target_type: change.targetType,
      target_id: change.targetId ?? null,
      before: change.before === undefined ? null : JSON.stringify(change.before),
      after: change.after === undefined ? null : JSON.stringify(change.after),
      created_at: nowIso(),
    })
    .execute();
}

/** A page of the community's log, newest first (ties by id), with the actor's name when the account exists. */
export async function listAudit(
  db: Db,
  communityId: string,
  opts: { limit: number; offset: number; action?: string },
): Promise<{ items: AuditEntry[]; total: number }> {
  let base = db.selectFrom('audit_log as a').where('a.community_id', '=', communityId);
  if (opts.action) base = base.where('a.action', '=', opts.action);
  const [rows, total] = await Promise.all([
    base
      .leftJoin('users as u', 'u.id', 'a.actor_user_id')
      .select([
        'a.id',
        'a.actor_user_id',
        'u.name as actor_name',
        'a.action',
        'a.target_type',
        'a.target_id',
        'a.before',
        'a.after',
        'a.created_at',
      ])
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.id,
      actor: { userId: r.actor_user_id, name: r.actor_name ?? null },
      action: r.action,
      target: { type: r.target_type, id: r.target_id },
      before: parseJson<unknown>(r.before, null),
      after: parseJson<unknown>(r.after, null),
      createdAt: r.created_at,
    })),
    total: Number(total.n),
  };
}
