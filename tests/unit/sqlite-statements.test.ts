// The SQLite connection Kysely is given (server/db/sqlite-statements.ts): statements kept by SQL
// text, and rows read raw and made into objects. The rows must be exactly what better-sqlite3
// itself would have returned, whatever the schema does meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../server/db/sqlite-statements.ts';

let dir: string;
let conn: SQLite.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stmt-'));
  conn = new SQLite(path.join(dir, 'db.sqlite'));
  conn.exec(`create table t (id integer primary key, name text, score real, data blob, flag integer)`);
  conn.exec(`insert into t values (1, 'a', 1.5, x'0102', null), (2, 'b', null, null, 1), (3, 'c', -2, x'', 0)`);
});

afterEach(() => {
  conn.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Counts what the real connection prepares. */
function countingPrepares(db: SQLite.Database) {
  const prepares: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepares.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return prepares;
}

describe('sqlite statements', () => {
  it('answers every read with the rows better-sqlite3 builds itself', () => {
    const cached = withStatementCache(conn);
    for (const sql of [
      'select * from t order by id',
      'select id, name as n, score, data, flag from t where id > ? order by id desc',
      // Duplicate names: the last one wins, as in better-sqlite3's own objects.
      'select id as x, name as x from t order by id',
      'select count(*) as n from t',
      'select t.*, 1 as "odd "" name", "quoted" from t left join (select 1 as quoted) on 1 order by id',
    ]) {
      const params = sql.includes('?') ? [1] : [];
      const expected = conn.prepare(sql).all(...params);
      expect(cached.prepare(sql).all(params)).toEqual(expected);
      expect([...cached.prepare(sql).iterate(params)]).toEqual(expected);
    }
  });

  it('prepares each SQL text once, and writes still report their changes', () => {
    const prepares = countingPrepares(conn);
    const cached = withStatementCache(conn);
    const select = 'select name from t where id = ?';
    for (const id of [1, 2, 3, 1]) cached.prepare(select).all([id]);
    expect(prepares.filter((s) => s === select)).toHaveLength(1);
    const update = 'update t set name = ? where id = ?';
    const r = cached.prepare(update).run(['z', 2]);
    expect(Number(r.changes)).toBe(1);
    expect(cached.prepare(select).all([2])).toEqual([{ name: 'z' }]);
    expect(prepares.filter((s) => s === update)).toHaveLength(1);
  });

  it('follows a schema change made by another connection: `*` reads take the new columns, in their new order', () => {
    const cached = withStatementCache(conn);
    expect(cached.prepare('select * from t where id = ?').all([1])).toEqual([
      { id: 1, name: 'a', score: 1.5, data: Buffer.from([1, 2]), flag: null },
    ]);
    // Another process rebuilds the table with its columns in another order.
    const other = new SQLite(path.join(dir, 'db.sqlite'));
    other.exec(`
      create table t2 (flag integer, name text, id integer primary key, extra text default 'e');
      insert into t2 (flag, name, id) select flag, name, id from t;
      drop table t;
      alter table t2 rename to t;`);
    other.close();
    expect(cached.prepare('select * from t where id = ?').all([1])).toEqual([
      { flag: null, name: 'a', id: 1, extra: 'e' },
    ]);
  });

  it('names the columns of a `*` read first prepared after another connection changed the schema', () => {
    const cached = withStatementCache(conn);
    // This connection has read the old schema (the inserts above); the new one is not loaded yet.
    const other = new SQLite(path.join(dir, 'db.sqlite'));
    other.exec(`
      create table t2 (name text, id integer primary key);
      insert into t2 (name, id) select name, id from t;
      drop table t;
      alter table t2 rename to t;`);
    other.close();
    expect(cached.prepare('select * from t where id = ?').all([2])).toEqual([{ name: 'b', id: 2 }]);
  });

  it('runs a `returning *` write once when another connection changed the schema, with the new columns', () => {
    const cached = withStatementCache(conn);
    const insert = 'insert into t (id, name) values (?, ?) returning *';
    const remove = 'delete from t where id = ? returning *';
    // Both kept, made for the schema as it is now.
    cached.prepare(insert).all([10, 'x']);
    cached.prepare(remove).all([10]);
    const other = new SQLite(path.join(dir, 'db.sqlite'));
    other.exec(`alter table t add column extra text default 'e'`);
    other.close();
    expect(cached.prepare(insert).all([11, 'y'])).toEqual([
      { id: 11, name: 'y', score: null, data: null, flag: null, extra: 'e' },
    ]);
    // Run again, the insert would have failed on the primary key (or, without one, added a second row).
    expect(conn.prepare('select count(*) as n from t where id = 11').get()).toEqual({ n: 1 });
    const again = new SQLite(path.join(dir, 'db.sqlite'));
    again.exec(`alter table t add column more integer default 7`);
    again.close();
    // Run twice, the delete would have found nothing the second time and returned no rows.
    expect(cached.prepare(remove).all([11])).toEqual([
      { id: 11, name: 'y', score: null, data: null, flag: null, extra: 'e', more: 7 },
    ]);
    expect(conn.prepare('select count(*) as n from t where id = 11').get()).toEqual({ n: 0 });
    // And the next run of each is made for the schema as it now is.
    expect(cached.prepare(insert).all([12, 'z'])).toEqual([
      { id: 12, name: 'z', score: null, data: null, flag: null, extra: 'e', more: 7 },
    ]);
  });

  it('gives a statement that is still iterating to nobody else', () => {
    const cached = withStatementCache(conn);
    const sql = 'select id from t order by id';
    const outer = cached.prepare(sql).iterate([]);
    expect(outer.next().value).toEqual({ id: 1 });
    // The same SQL while the first read is open: a statement of its own, not "busy".
    expect(cached.prepare(sql).all([])).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect([...outer]).toEqual([{ id: 2 }, { id: 3 }]);
  });

  it('treats a column named __proto__ as better-sqlite3 does', () => {
    const cached = withStatementCache(conn);
    const sql = `select null as "__proto__", 2 as y`;
    const [row] = cached.prepare(sql).all([]) as Record<string, unknown>[];
    const own = conn.prepare(sql).get() as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(own));
    expect(Object.keys(row)).toEqual(Object.keys(own));
    expect(row.y).toBe(2);
  });

  it('keeps at most its size of statements, dropping the oldest', () => {
    const prepares = countingPrepares(conn);
    const cached = withStatementCache(conn, 2);
    const q = (n: number) => `select ${n} as n`;
    for (const n of [1, 2, 3, 1]) cached.prepare(q(n)).all([]);
    // 1 was dropped when 3 came in, so it is prepared again; 3 is still kept.
    expect(prepares.filter((s) => s === q(1))).toHaveLength(2);
    cached.prepare(q(3)).all([]);
    expect(prepares.filter((s) => s === q(3))).toHaveLength(1);
  });
});
