// The demo community: imported from demo/fixture.json on the first start of an empty database
// (server/main.ts) and on demand by `svc seed`. The file's event dates are relative
// ("+7d@18:00"), so a fresh seed always has upcoming and past events.
import { fileURLToPath } from 'node:url';
import { isUniqueViolation, type Db } from '../db/index.ts';
import { importFixture, readFixtureFile, type ImportResult } from './import.ts';

export const DEMO_FIXTURE_PATH = fileURLToPath(new URL('../../demo/fixture.json', import.meta.url));

/**
 * Imports the demo fixture (idempotent: what exists is left as it is). `baseUrl` (SVC_PUBLIC_URL)
 * makes its image paths absolute: the banners are served by the platform at /demo/banners/.
 */
export async function seedDemo(db: Db, opts: { now?: Date; baseUrl: string }): Promise<ImportResult> {
  return importFixture(db, await readFixtureFile(DEMO_FIXTURE_PATH), opts);
}

/**
 * Seeds the demo when the database has no community at all; returns null when it has one. Several
 * instances starting at once on one empty PostgreSQL database all see it empty: one import wins,
 * the others hit the unique tag, roll back whole, and return null.
 */
export async function seedDemoIfEmpty(db: Db, opts: { now?: Date; baseUrl: string }): Promise<ImportResult | null> {
  const any = await db.selectFrom('communities').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  try {
    return await seedDemo(db, opts);
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}
