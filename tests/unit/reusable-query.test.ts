// reusableQuery (server/db/reusable-query.ts): a query compiled once, run with new values each time.
// On a real SQLite database: every run must answer exactly what the freshly built query would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/index.ts';
import { reusableQuery } from '../../server/db/reusable-query.ts';
import { sql } from 'kysely';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase({ kind: 'sqlite', file: ':memory:' });
  await sql`create table communities (id text primary key, tag text, visibility text)`.execute(database.db);
  for (const [id, tag] of [
    ['c1', 'one'],
    ['c2', 'two'],
    ['c3', 'three'],
  ])
    await sql`insert into communities values (${id}, ${tag}, 'PUBLIC')`.execute(database.db);
});

afterAll(() => database.close());

describe('reusableQuery', () => {
  it('answers each run with its own values, scalar and list, whatever ran before', async () => {
    let builds = 0;
    const find = reusableQuery((db, tag: string, ids: string[]) => {
      builds++;
      return (db as any)
        .selectFrom('communities')
        .select(['id'])
        .where('tag', '!=', tag)
        .where('id', 'in', ids)
        .where('visibility', '=', 'PUBLIC')
        .orderBy('id');
    });
    const ids = async (tag: string, list: string[]) => (await find(database.db, tag, list)).map((r: any) => r.id);
    expect(await ids('one', ['c1', 'c2', 'c3'])).toEqual(['c2', 'c3']);
    expect(await ids('two', ['c1', 'c2', 'c3'])).toEqual(['c1', 'c3']);
    expect(await ids('three', ['c3'])).toEqual([]);
    expect(await ids('nope', ['c3'])).toEqual(['c3']);
    expect(await ids('one', ['c2', 'c1'])).toEqual(['c2']);
    // Built once per length of the list: 3, 1 and 2 items.
    expect(builds).toBe(3);
  });

  it('runs inside a transaction like any query', async () => {
    const tagOf = reusableQuery((db, id: string) =>
      (db as any).selectFrom('communities').select('tag').where('id', '=', id),
    );
    const tag = await database.db.transaction().execute(async (trx) => {
      await sql`update communities set tag = 'changed' where id = 'c1'`.execute(trx);
      return ((await tagOf(trx, 'c1'))[0] as { tag?: string } | undefined)?.tag;
    });
    expect(tag).toBe('changed');
  });

  it('refuses a builder that reads an argument instead of passing it on as a value', async () => {
    const wrong = reusableQuery((db, id: string) =>
      (db as any)
        .selectFrom('communities')
        .select('id')
        .where('id', '=', String(id).length > 0 ? 'c1' : 'c2'),
    );
    await expect(wrong(database.db, 'c3')).rejects.toThrow(/every argument must be a value/);
  });
});
