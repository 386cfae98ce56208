// The PostgreSQL pool Kysely is given (server/db/pg-statements.ts), on a real server: a process's
// pool must keep working when another process migrates the schema under it (a rolling deploy,
// docs/deploy.md), and what a connection keeps prepared must stay bounded. Needs DATABASE_URL
// (postgres://...); on SQLite runs there is no server to ask, and the file is skipped.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAMED_PER_CONNECTION, withNamedStatements } from '../../server/db/pg-statements.ts';

const url = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
const schema = `svc_pgstmt_${process.pid}`;

describe.skipIf(!url)('postgres named statements', () => {
  let admin: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.query(`create table t (id integer primary key, name text)`);
    await admin.query(`insert into t select g, 'n' || g from generate_series(1, 600) g`);
    // One connection, so every query below runs on the same one.
    pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  });

  afterAll(async () => {
    await pool?.end();
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  /** Runs one query on the pool's connection as Kysely would. */
  async function query(named: ReturnType<typeof withNamedStatements>, text: string, values: unknown[]) {
    const client = await named.connect();
    try {
      return (await client.query(text, values)).rows as Record<string, unknown>[];
    } finally {
      client.release();
    }
  }

  it('keeps answering `select *` and `returning *` after another connection adds a column', async () => {
    const named = withNamedStatements(pool);
    const select = 'select * from t where id = $1';
    const update = 'update t set name = $1 where id = $2 returning *';
    expect(await query(named, select, [1])).toEqual([{ id: 1, name: 'n1' }]);
    expect(await query(named, update, ['u', 2])).toEqual([{ id: 2, name: 'u' }]);
    await admin.query(`alter table t add column extra text default 'e'`);
    expect(await query(named, select, [1])).toEqual([{ id: 1, name: 'n1', extra: 'e' }]);
    expect(await query(named, update, ['v', 2])).toEqual([{ id: 2, name: 'v', extra: 'e' }]);
    await admin.query(`alter table t drop column extra`);
  });

  it('keeps what a connection has prepared bounded: `in` lists of any length, and many distinct texts', async () => {
    const named = withNamedStatements(pool);
    const prepared = async () =>
      Number((await query(named, 'select count(*) as n from pg_prepared_statements where $1', [true]))[0]!.n);
    const before = await prepared();
    for (let n = 1; n <= 300; n++) {
      const list = Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');
      const ids = Array.from({ length: n }, (_, i) => i + 1);
      const rows = await query(named, `select id from t where id in (${list}) order by id`, ids);
      expect(rows).toHaveLength(n);
    }
    // At most the one-element list and the counting query itself.
    expect((await prepared()) - before).toBeLessThanOrEqual(2);
    for (let n = 0; n < NAMED_PER_CONNECTION + 100; n++) {
      expect(await query(named, `select id + ${n} as v from t where id = $1`, [1])).toEqual([{ v: 1 + n }]);
    }
    expect(await prepared()).toBeLessThanOrEqual(NAMED_PER_CONNECTION);
  });
});
