// The leader console's integrations (docs/leader-console.md, "Integrations"): when each secret key
// was last used. Written by the key resolver at most once a minute per key and process, after the
// request that used it has been answered (server/domain/api-keys.ts, `lastUseRecorder`), so the
// hot path never waits on it; the time is therefore right to the minute, not the second.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
}
