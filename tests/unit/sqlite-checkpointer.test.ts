// The SQLite checkpointer (server/db/sqlite-checkpointer.ts): a PASSIVE checkpoint run in a worker
// thread on a connection of its own, while this thread's connection keeps answering queries. A
// checkpoint run on this thread's connection (what the purge did before) blocks it from start to
// end, so no query of this thread could finish inside the checkpoint's time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../../server/db/sqlite-checkpointer.ts';

let dir: string;
let file: string;
let conn: SQLite.Database;
const now = () => performance.timeOrigin + performance.now();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
  file = path.join(dir, 'db.sqlite');
  conn = new SQLite(file);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  // Everything written stays in the WAL until a checkpoint copies it.
  conn.pragma('wal_autocheckpoint = 0');
  conn.exec('create table t (id integer primary key, body blob)');
});

afterEach(() => {
  conn.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SqliteCheckpointer', { timeout: 30_000 }, () => {
  it('copies the WAL into the database file in a worker while this thread keeps running queries', async () => {
    // About 20 MB in the WAL: a checkpoint of tens of milliseconds (copy and sync).
    const insert = conn.prepare('insert into t (body) values (?)');
    conn.transaction(() => {
      for (let i = 0; i < 5000; i += 1) insert.run(Buffer.alloc(4000, i % 251));
    })();
    const dbBytesBefore = fs.statSync(file).size;
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(20_000_000);

    const checkpointer = new SqliteCheckpointer(file);
    try {
      // This thread's queries, on its own connection, while the checkpoint is asked for and runs.
      const read = conn.prepare('select id from t where id = ?').pluck();
      const answered: number[] = [];
      let running = true;
      const tick = () => {
        if (!running) return;
        expect(read.get(1 + (answered.length % 5000))).toBeDefined();
        answered.push(now());
        setImmediate(tick);
      };
      tick();
      const result = await checkpointer.checkpoint();
      running = false;

      expect(result.busy).toBe(false);
      expect(result.walFrames).toBeGreaterThan(5000);
      expect(result.checkpointedFrames).toBe(result.walFrames);
      // Nothing was written meanwhile: its second round found nothing new.
      expect(result).toMatchObject({ caughtUp: true, rounds: 2 });
      // The rows are in the database file now, not only in the WAL.
      expect(fs.statSync(file).size).toBeGreaterThan(dbBytesBefore + 20_000_000);
      // Queries of this thread finished while the checkpoint ran.
      const during = answered.filter((t) => t > result.startedAt && t < result.endedAt);
      expect(during.length).toBeGreaterThan(0);

      // Nothing new since: the next one has nothing left to copy, and the WAL starts over at the next write.
      const again = await checkpointer.checkpoint();
      expect(again.checkpointedFrames).toBe(again.walFrames);
      insert.run(Buffer.alloc(10));
      expect(conn.pragma('wal_checkpoint(PASSIVE)', { simple: false })).toEqual([{ busy: 0, log: 1, checkpointed: 1 }]);
    } finally {
      await checkpointer.close();
    }
  });

  it('ends a worker that does not answer within its deadline, failing the checkpoint instead of waiting', async () => {
    // A deadline of 1 ms, which starting the thread alone exceeds: the stand-in for a stalled disk.
    const checkpointer = new SqliteCheckpointer(file, 1);
    const started = Date.now();
    await expect(checkpointer.checkpoint()).rejects.toThrow(/worker was stopped: a checkpoint took over 1 ms/);
    await expect(checkpointer.checkpoint()).rejects.toThrow(/worker was stopped/);
    await checkpointer.close();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a database it cannot open makes each checkpoint fail with the reason, and nothing else', async () => {
    const checkpointer = new SqliteCheckpointer(path.join(dir, 'missing.sqlite'));
    try {
      await expect(checkpointer.checkpoint()).rejects.toThrow(/SQLite checkpoint failed: unable to open database file/);
      await expect(checkpointer.checkpoint()).rejects.toThrow(/unable to open database file/);
      // It did not make the file either.
      expect(fs.existsSync(path.join(dir, 'missing.sqlite'))).toBe(false);
    } finally {
      await checkpointer.close();
    }
    // Closed: the worker is gone, and asking again says so rather than waiting forever.
    await expect(checkpointer.checkpoint()).rejects.toThrow(/checkpoint worker has stopped/);
  });
});
