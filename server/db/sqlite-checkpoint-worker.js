// The thread of server/db/sqlite-checkpointer.ts: a better-sqlite3 connection of its own to the
// database file, which runs `PRAGMA wal_checkpoint(PASSIVE)` when asked and answers with what it did.
// Plain JavaScript importing no file of ours, so it starts the same under tsx, vitest and the CLI's
// loader (a worker thread does not get the loader its parent registered at run time).
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

// better-sqlite3's errors lose their message on their way out of a worker: sent as plain fields.
const described = (err) => ({ message: err instanceof Error ? err.message : String(err), code: err?.code });
const now = () => performance.timeOrigin + performance.now();

let db = null;
let openFailed = null;
try {
  // The file exists (the main thread has it open): a missing one is a mistake, not a new database.
  db = new SQLite(workerData.file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${Number(workerData.busyTimeoutMs)}`);
} catch (err) {
  // Every checkpoint asked for is answered with it, so the caller reports it where it reports the others.
  openFailed = described(err);
}

/**
 * Checkpoints until a round finds nothing written since the round before, at most `maxRounds`
 * times. Other connections write while a round copies, and the WAL starts over at the next write
 * only if all of it has been copied: a single round that leaves what was written meanwhile would
 * let the WAL grow for as long as writes keep landing during checkpoints. Each round copies only
 * what the one before left, so they get shorter.
 */
function checkpoint(maxRounds) {
  let previous = -1;
  let row;
  for (let round = 1; round <= maxRounds; round += 1) {
    [row] = db.pragma('wal_checkpoint(PASSIVE)');
    const allCopied = row.busy === 0 && row.checkpointed === row.log;
    // An empty WAL, or the same one as the round before, all copied: the next write starts it over.
    if (allCopied && (row.log <= 0 || row.log === previous)) return { ...row, rounds: round, caughtUp: true };
    previous = row.log;
  }
  return { ...row, rounds: maxRounds, caughtUp: false };
}

parentPort.on('message', (msg) => {
  if (msg.type === 'close') {
    db?.close();
    parentPort.close();
    return;
  }
  const startedAt = now();
  try {
    if (openFailed) throw openFailed;
    const done = checkpoint(msg.maxRounds);
    parentPort.postMessage({ id: msg.id, startedAt, endedAt: now(), ...done });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, startedAt, endedAt: now(), error: openFailed ?? described(err) });
  }
});
