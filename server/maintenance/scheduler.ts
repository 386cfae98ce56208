// Runs the purge every `intervalMs` in a process that runs workers (SVC_PURGE_WORKER). A run
// starts shortly after start-up, never overlaps the previous one, and a stop ends it after the
// batch in flight. Two processes may purge one database at once (server/maintenance/purge.ts).
import type { Logger } from 'pino';
import type { Db, Dialect } from '../db/index.ts';
import type { PurgeConfig } from './config.ts';
import { purgeExpired, type PurgeReport } from './purge.ts';

export interface PurgeSchedulerDeps {
  db: Db;
  dialect: Dialect;
  config: PurgeConfig;
  logger: Logger;
  /** Delay before the first run (default 1 minute: a start-up has better things to do). */
  firstRunMs?: number;
  /** Pause between batches (purgeExpired's pauseMs). */
  pauseMs?: number;
  /** Told after every finished run. */
  onRun?: (report: PurgeReport) => void;
}

export class PurgeScheduler {
  readonly #deps: PurgeSchedulerDeps;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(deps: PurgeSchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#schedule(this.#deps.firstRunMs ?? 60_000);
  }

  /** Stops scheduling; resolves once a run in flight has finished its current batch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#running = this.#run().finally(() => {
        this.#running = null;
        this.#schedule(this.#deps.config.intervalMs);
      });
    }, ms);
    // A timer alone never keeps the process alive.
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    const { db, dialect, config, logger } = this.#deps;
    try {
      const report = await purgeExpired(db, dialect, config, {
        pauseMs: this.#deps.pauseMs,
        stopped: () => this.#stopped,
        onCheckpointFailed: (err) =>
          logger.warn(
            { err },
            'SQLite checkpoint during the purge failed; automatic checkpoints are back on for the run',
          ),
      });
      const total = Object.values(report.deleted).reduce((a, b) => a + b, 0);
      if (total > 0) {
        logger.info(
          { deleted: report.deleted, batches: report.batches, slowestBatchMs: Math.round(report.slowestBatchMs) },
          'purged expired rows',
        );
      }
      this.#deps.onRun?.(report);
    } catch (err) {
      // The next run tries again; nothing is lost by a failed purge but disk space.
      logger.warn({ err }, 'purging expired rows failed');
    }
  }
}
