// `svc maintenance purge`: the scheduled purge (server/maintenance/purge.ts) run once, now, with
// the server's retention settings, printing what it deleted. For an operator who runs no worker
// process, or wants the space back before the next scheduled run. See docs/maintenance.md.
import type { Command } from 'commander';
import { purgeExpired, PURGED_TABLES } from '../maintenance/purge.ts';
import { CliError, out, printJson, table, withDatabase, type JsonOption } from './runtime.ts';

export function registerMaintenanceCommands(program: Command): void {
  const maintenance = program.command('maintenance').description('Housekeeping of the database.');
  maintenance
    .command('purge')
    .description(
      'Delete expired rows now (idempotency keys, finished webhook deliveries, old mail and SMS, expired sign-in codes), in small batches, with the SVC_RETAIN_* settings.',
    )
    .option('--batch-size <n>', 'the most rows per batch (default SVC_PURGE_BATCH_SIZE, 200)')
    .option('--json', 'print JSON')
    .action(async (opts: JsonOption & { batchSize?: string }) => {
      const batchSize = opts.batchSize === undefined ? undefined : Number(opts.batchSize);
      if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 10_000))
        throw new CliError(`--batch-size must be a whole number from 1 to 10000 (got "${opts.batchSize}")`);
      const report = await withDatabase((db, ctx) =>
        purgeExpired(db, ctx.dialect, { ...ctx.config.purge, batchSize: batchSize ?? ctx.config.purge.batchSize }),
      );
      const slowest = Math.round(report.slowestBatchMs * 10) / 10;
      if (opts.json) return printJson({ deleted: report.deleted, batches: report.batches, slowestBatchMs: slowest });
      out(
        table(
          ['table', 'deleted'],
          PURGED_TABLES.map((t) => [t, String(report.deleted[t])]),
        ),
      );
      out(`${report.batches} batch${report.batches === 1 ? '' : 'es'}, the slowest ${slowest} ms`);
    });
}
