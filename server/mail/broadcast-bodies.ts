// The broadcast bodies the mail worker renders copies from, kept briefly: a broadcast's 50,000
// messages go out over a few minutes, and reading its HTML once per message would be 50,000 reads
// of the same row. A broadcast's content never changes after it is queued, so a kept body is never
// stale; the time limit only bounds memory.
import type { Db } from '../db/index.ts';
import type { BroadcastBody } from './broadcast-render.ts';

const KEEP_MS = 60_000;
const MAX_KEPT = 50;

export class BroadcastBodies {
  readonly #kept = new Map<string, { body: BroadcastBody | null; until: number }>();

  constructor(private readonly db: Db) {}

  /** The broadcast's body, or null when it no longer exists. */
  async get(broadcastId: string): Promise<BroadcastBody | null> {
    const now = Date.now();
    const kept = this.#kept.get(broadcastId);
    if (kept && kept.until > now) return kept.body;
    const row = await this.db
      .selectFrom('broadcasts as b')
      .innerJoin('communities as c', 'c.id', 'b.community_id')
      .select(['b.subject', 'b.html', 'b.text', 'b.test_to', 'c.name as communityName'])
      .where('b.id', '=', broadcastId)
      .executeTakeFirst();
    const body: BroadcastBody | null = row
      ? {
          subject: row.subject,
          html: row.html,
          text: row.text,
          communityName: row.communityName,
          test: row.test_to !== null,
        }
      : null;
    if (this.#kept.size >= MAX_KEPT) {
      for (const [id, entry] of this.#kept) if (entry.until <= now) this.#kept.delete(id);
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
    }
    this.#kept.set(broadcastId, { body, until: now + KEEP_MS });
    return body;
  }
}
