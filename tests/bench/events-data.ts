// The events list benches' data: the demo community with enough events that the list reads a real
// page out of a real table (1,000 by default, as issue 21 measures it), imported through the same
// importer as the demo seed so every row, tier and key is what the app itself would have written.
import fs from 'node:fs';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseTarget } from '../../server/db/index.ts';
import { importFixture } from '../../server/domain/import.ts';
import { DEMO_FIXTURE_PATH } from '../../server/domain/seed.ts';

interface FixtureFile {
  communities: { tag: string; events: Record<string, unknown>[] }[];
}

/**
 * The demo fixture with events added to the demo community until it has `total`: alternately past
 * and upcoming (relative dates, so the split holds whenever it runs), every tenth one members-only,
 * each with one or two tiers, so the list's visibility filter and its tiers query have work to do.
 */
export function demoWithEvents(total: number): FixtureFile {
  const fixture = JSON.parse(fs.readFileSync(DEMO_FIXTURE_PATH, 'utf8')) as FixtureFile;
  const demo = fixture.communities.find((c) => c.tag === 'demo');
  if (!demo) throw new Error('the demo fixture has no demo community');
  for (let i = demo.events.length; i < total; i++) {
    const days = 1 + (i % 700);
    const when = `${i % 2 === 0 ? '+' : '-'}${days}d@${String(8 + (i % 12)).padStart(2, '0')}:${i % 2 === 0 ? '00' : '30'}`;
    demo.events.push({
      slug: `bench-event-${i}`,
      name: `Bench event ${i}`,
      description: `Event ${i} of the list bench: a walk, a talk and a picnic, long enough to look like a real description.`,
      startDate: when,
      format: i % 3 === 0 ? 'online' : 'in_person',
      location: i % 3 === 0 ? null : { name: 'Trailhead', city: 'Seattle', country: 'US' },
      visibility: i % 10 === 0 ? 'MEMBERS_ONLY' : null,
      tiers: [
        { name: 'Free RSVP', priceCents: 0, currency: 'USD', capacity: 40, sold: i % 40 },
        ...(i % 2 === 0 ? [{ name: 'Supporter', priceCents: 1500, currency: 'USD', capacity: null, sold: 0 }] : []),
      ],
    });
  }
  return fixture;
}

/** Migrates `target` and imports the demo with `total` events (what the server's own seed would do, with more events). */
export async function seedEventsBench(target: DatabaseTarget, baseUrl: string, total = 1000): Promise<void> {
  const database = openDatabase(target);
  try {
    await migrate(database.db);
    await importFixture(database.db, demoWithEvents(total), { baseUrl });
    // A database in service has planner statistics: autovacuum analyzes a table within about a
    // minute of a bulk change. Measured straight after the import, PostgreSQL would plan the
    // list for empty tables (a bitmap scan and a sort instead of the index's order).
    if (target.kind === 'postgres') await sql`analyze`.execute(database.db);
  } finally {
    await database.close();
  }
}
