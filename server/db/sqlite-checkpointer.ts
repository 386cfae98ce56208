// SQLite checkpoints off the event loop. better-sqlite3 is synchronous: a checkpoint run on the
// app's connection (server/db/index.ts) copies the WAL into the database file and syncs it with the
// event loop blocked, so every request of the process waits for it (tens of ms, hundreds on a busy
// disk). A PASSIVE checkpoint takes no write lock and lets readers read, so it can run on another
// connection to the same file while the app's connection keeps writing and reading: this one runs
// it on a connection of its own in a worker thread (sqlite-checkpoint-worker.js).
import { Worker } from 'node:worker_threads';
import { SQLITE_BUSY_TIMEOUT_MS } from './index.ts';

/**
 * The most rounds one checkpoint runs to catch up with what other connections wrote while it ran
 * (see the worker's `checkpoint`).
 */
export const CATCH_UP_ROUNDS = 4;

/**
 * How long a checkpoint (or closing the worker) may take before the worker is ended: a stalled
 * disk must not hold the purge, or the process's shutdown, for ever. Far longer than a checkpoint
 * of even a large WAL takes.
 */
export const CHECKPOINT_TIMEOUT_MS = 60_000;

/** What one checkpoint did, as its last round's `PRAGMA wal_checkpoint` says. */
export interface CheckpointResult {
  /** Another connection was checkpointing: this one did nothing. */
  busy: boolean;
  /** Frames in the WAL at the last round. */
  walFrames: number;
  /** Of those, how many are in the database file now (all of them unless a reader still needed some). */
  checkpointedFrames: number;
  /** How many rounds it took (the last one found nothing new, unless caughtUp is false). */
  rounds: number;
  /** All of the WAL copied and nothing written since: the next write starts the WAL over. */
  caughtUp: boolean;
  /** When it ran in the worker, in ms since the epoch (performance.timeOrigin + performance.now()). */
  startedAt: number;
  endedAt: number;
}

interface Answer {
  id: number;
  startedAt: number;
  endedAt: number;
  busy?: number;
  log?: number;
  checkpointed?: number;
  rounds?: number;
  caughtUp?: boolean;
  error?: { message: string; code?: string };
}

type Pending = { resolve: (r: CheckpointResult) => void; reject: (err: Error) => void };

const WORKER = new URL('./sqlite-checkpoint-worker.js', import.meta.url);

export class SqliteCheckpointer {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  /** Why the worker is gone (it failed to open the file, or died): every later checkpoint fails with it. */
  #gone: Error | null = null;
  readonly #exited: Promise<void>;

  /** Starts the worker on `file` (a database file, not `:memory:`: another connection cannot see that). */
  constructor(
    file: string,
    private readonly timeoutMs = CHECKPOINT_TIMEOUT_MS,
  ) {
    // No loader: the worker is plain JavaScript (see its file), and tsx's would only slow its start.
    this.#worker = new Worker(WORKER, { workerData: { file, busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS }, execArgv: [] });
    // An idle worker never keeps the process alive (close() is what ends it).
    this.#worker.unref();
    this.#worker.on('message', (a: Answer) => this.#answer(a));
    // Without a listener, a worker's error would be thrown in this thread and end the process.
    this.#worker.on('error', (err: Partial<Error> & { code?: string }) =>
      this.#fail(new Error(`the SQLite checkpoint worker failed: ${err?.message ?? err?.code ?? String(err)}`)),
    );
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        this.#fail(new Error('the SQLite checkpoint worker has stopped'));
        resolve();
      });
    });
  }

  /** Runs one PASSIVE checkpoint in the worker; rejects if it failed (the process goes on). */
  checkpoint(): Promise<CheckpointResult> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = ++this.#next;
    return new Promise<CheckpointResult>((resolve, reject) => {
      const timer = this.#deadline(`a checkpoint took over ${this.timeoutMs} ms`);
      const done =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          fn(value);
        };
      this.#pending.set(id, { resolve: done(resolve), reject: done(reject) });
      // Only while an answer is awaited does the worker keep the process alive.
      this.#worker.ref();
      this.#worker.postMessage({ type: 'checkpoint', id, maxRounds: CATCH_UP_ROUNDS });
    });
  }

  /** Closes the worker's connection and ends the thread; resolves once it has exited. */
  async close(): Promise<void> {
    if (!this.#gone) this.#worker.postMessage({ type: 'close' });
    this.#worker.ref();
    const timer = this.#deadline(`closing the checkpoint worker took over ${this.timeoutMs} ms`);
    await this.#exited;
    clearTimeout(timer);
  }

  /** Ends the worker if it has not answered within the timeout: what waits on it fails with `why`. */
  #deadline(why: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#fail(new Error(`the SQLite checkpoint worker was stopped: ${why}`));
      void this.#worker.terminate();
    }, this.timeoutMs);
    timer.unref();
    return timer;
  }

  #answer(a: Answer): void {
    const pending = this.#pending.get(a.id);
    if (!pending) return;
    this.#settled(a.id);
    if (a.error) {
      const err = Object.assign(new Error(`SQLite checkpoint failed: ${a.error.message}`), { code: a.error.code });
      pending.reject(err);
      return;
    }
    pending.resolve({
      busy: a.busy === 1,
      walFrames: a.log ?? -1,
      checkpointedFrames: a.checkpointed ?? -1,
      rounds: a.rounds ?? 0,
      caughtUp: a.caughtUp === true,
      startedAt: a.startedAt,
      endedAt: a.endedAt,
    });
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
  }

  #fail(err: Error): void {
    this.#gone ??= err;
    for (const [id, pending] of this.#pending) {
      this.#settled(id);
      pending.reject(this.#gone);
    }
  }
}
