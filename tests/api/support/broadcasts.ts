// Broadcasts for delivery tests, written as `POST /v1/communities/{tag}/broadcasts` writes them
// (server/domain/broadcasts.ts): one row, QUEUED with send_at now (or SCHEDULED with a later one,
// as an ISO string in UTC), recipients = the audience counted at queue time (1 for a test send),
// the html sanitized and the text derived from it when absent. Without the API's checks (the
// feature, the limit, the segments), so a test can write what it needs directly;
// tests/api/broadcasts-e2e.test.ts shows the two write the same row.
import { countAudience } from '../../../server/broadcasts/audience.ts';
import { prepareBroadcastContent } from '../../../server/broadcasts/content.ts';
import { BroadcastDispatcher } from '../../../server/broadcasts/dispatcher.ts';
import { UnsubscribeTokens } from '../../../server/broadcasts/unsubscribe-token.ts';
import { wakeBroadcastDispatchers } from '../../../server/broadcasts/wake.ts';
import { transaction, afterCommit, type Db } from '../../../server/db/index.ts';
import { newId, nowIso } from '../../../server/db/ids.ts';
import { sanitizeArticleHtml } from '../../../server/domain/article-html.ts';
import { createLogger } from '../../../server/http/logger.ts';
import { loadMasterKey } from '../../../server/secrets.ts';
import type { TestServer } from './harness.ts';

export interface BroadcastInput {
  subject: string;
  html?: string | null;
  /** Derived from the html when absent, as the API does. */
  text?: string;
  segmentIds?: string[] | null;
  sendAt?: string;
  testTo?: string;
}

export async function queueBroadcast(db: Db, communityId: string, b: BroadcastInput): Promise<string> {
  const id = newId();
  const now = nowIso();
  const segmentIds = b.segmentIds ?? null;
  const content = prepareBroadcastContent({ html: b.html, text: b.text }, sanitizeArticleHtml);
  await transaction(db, async (trx) => {
    const recipients = b.testTo ? 1 : await countAudience(trx, { communityId, segmentIds });
    await trx
      .insertInto('broadcasts')
      .values({
        id,
        community_id: communityId,
        subject: b.subject,
        html: content.html,
        text: content.text,
        audience_segment_ids: segmentIds === null ? null : JSON.stringify(segmentIds),
        test_to: b.testTo ?? null,
        status: b.sendAt && !b.testTo ? 'SCHEDULED' : 'QUEUED',
        send_at: b.testTo || !b.sendAt ? now : new Date(b.sendAt).toISOString(),
        recipients,
        created_at: now,
      })
      .execute();
    afterCommit(trx, wakeBroadcastDispatchers);
  });
  return id;
}

export const broadcastRow = (db: Db, id: string) =>
  db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The server's unsubscribe tokens (the same master key as its pages). */
export const tokensOf = (server: TestServer) => new UnsubscribeTokens(loadMasterKey(server.config));

/** A dispatcher as the server process runs it, on `db` (default: the server's). */
export function dispatcherFor(server: TestServer, opts: { db?: Db; batchSize?: number; pollMs?: number } = {}) {
  return new BroadcastDispatcher({
    db: opts.db ?? server.database.db,
    dialect: server.database.dialect,
    logger: createLogger('silent'),
    tokens: tokensOf(server),
    publicUrl: server.config.publicUrl,
    siteDomain: server.config.siteDomain,
    pollMs: opts.pollMs ?? 100,
    batchSize: opts.batchSize,
  });
}
