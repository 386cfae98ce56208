// Two app instances on one PostgreSQL database, as two processes behind a load balancer
// (docs/deploy.md): what must hold whichever instance a request reaches, because it is decided in
// the database and not in a process. PostgreSQL only: SQLite is one process only (two writers on
// one file fail with SQLITE_BUSY). tests/bench/two-processes.ts checks the same with two real
// server processes, their workers and Redis, at a larger scale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { onPostgres, startTestServer, type TestResponse, type TestServer } from './support/harness.ts';

describe.runIf(onPostgres)('two instances on one database', () => {
  let a: TestServer;
  let b: TestServer;
  let tag: string;
  let communityId: string;
  let adminKey: string;
  let salesKey: string;

  beforeAll(async () => {
    a = await startTestServer();
    b = await startTestServer({ sharedWith: a });
    const community = await makeCommunity(a.database.db, 'twoinst');
    tag = community.tag;
    communityId = community.id;
    adminKey = await makeKey(a.database.db, community.id, ['ADMIN']);
    salesKey = await makeKey(a.database.db, community.id, ['WRITE_SALES']);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** The i-th request goes to one instance, the next to the other, as a round-robin balancer sends them. */
  const either = (i: number) => (i % 2 === 0 ? a : b);

  it('one Idempotency-Key sent to both at once changes state once, and every answer is the first', async () => {
    for (let round = 0; round < 5; round++) {
      const title = `Once ${round}`;
      const answers: TestResponse[] = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          either(i).request(`/v1/communities/${tag}/articles`, {
            method: 'POST',
            key: adminKey,
            headers: { 'Idempotency-Key': `two-instances-${round}` },
            json: { title },
          }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
      expect(answers.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
      const rows = await a.database.db
        .selectFrom('articles')
        .select('id')
        .where('community_id', '=', communityId)
        .where('title', '=', title)
        .execute();
      expect(rows).toEqual([{ id: answers[0]!.body.id }]);
    }
  });

  it('concurrent RSVPs split across both seat exactly the capacity', async () => {
    const event = await makeEvent(a.database.db, communityId, {
      slug: 'two-instances',
      tiers: [{ priceCents: 0, capacity: 12 }],
    });
    const tierId = event.tierIds[0]!;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        either(i).request(`/v1/communities/${tag}/events/two-instances/rsvp`, {
          method: 'POST',
          key: salesKey,
          json: { tierId, email: `guest${i}@example.com`, name: `Guest ${i}` },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.filter((s) => s === 422)).toHaveLength(28);
    const tier = await a.database.db
      .selectFrom('tiers')
      .select(['sold', 'held'])
      .where('id', '=', tierId)
      .executeTakeFirstOrThrow();
    expect({ sold: Number(tier.sold), held: Number(tier.held) }).toEqual({ sold: 12, held: 0 });
    const tickets = await a.database.db.selectFrom('tickets').select('id').where('tier_id', '=', tierId).execute();
    expect(tickets).toHaveLength(12);
  });
});
