// `svc maintenance purge`: the scheduled purge (server/maintenance/purge.ts) run once, now, with
// the server's retention settings, printing what it deleted. For an operator who runs no worker
// process, or wants the space back before the next scheduled run. See docs/maintenance.md.
//
// `svc maintenance recount [--repair]`: the list counts and donation totals (docs/list-counts.md)
// compared with their rows, and rewritten from them with --repair. Triggers keep the counters
// exact; a TRUNCATE, a restore that skips triggers or a load into a copy without them does not,
// and this is how an operator finds and repairs that.
import type { Command } from 'commander';
import { driftKeyParts, recountLists } from '../domain/list-counts.ts';
import { purgeExpired, PURGED_TABLES } from '../maintenance/purge.ts';
import { CliError, note, out, printJson, table, withDatabase, type JsonOption } from './runtime.ts';

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
        purgeExpired(
          db,
          ctx.dialect,
          { ...ctx.config.purge, batchSize: batchSize ?? ctx.config.purge.batchSize },
          {
            onCheckpointFailed: (err) =>
              note(`warning: ${err.message}; automatic checkpoints are back on for the rest of the purge`),
          },
        ),
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
  maintenance
    .command('recount')
    .description(
      'Compare every list count and donation total with COUNT(*) and SUM() over its rows; with --repair, rewrite the counters from the rows. Exits 1 when a counter is off and --repair was not given.',
    )
    .option('--repair', 'rewrite the counters from the rows (writers to the counted tables wait until it commits)')
    .option('--json', 'print JSON')
    .action(async (opts: JsonOption & { repair?: boolean }) => {
      const repair = opts.repair === true;
      const { drift, tags } = await withDatabase(async (db) => {
        const found = await recountLists(db, { repair });
        const ids = [...new Set(found.map((d) => driftKeyParts(d)[0]!))];
        const rows = ids.length
          ? await db.selectFrom('communities').select(['id', 'tag']).where('id', 'in', ids).execute()
          : [];
        return { drift: found, tags: new Map(rows.map((r) => [r.id, r.tag])) };
      });
      const described = drift.map((d) => {
        const [communityId, ...counter] = driftKeyParts(d);
        return {
          table: d.table,
          community: tags.get(communityId!) ?? communityId!,
          counter: counter.filter(Boolean).join(' '),
          stored: d.stored,
          actual: d.actual,
        };
      });
      if (opts.json) printJson({ drift: described, repaired: repair && drift.length > 0 });
      else if (drift.length === 0) out('every count is exact');
      else {
        out(
          table(
            ['table', 'community', 'counter', 'stored', 'actual'],
            described.map((d) => [d.table, d.community, d.counter, d.stored, d.actual]),
          ),
        );
        if (repair) out(`${drift.length} counter${drift.length === 1 ? '' : 's'} repaired`);
      }
      if (drift.length > 0 && !repair) {
        throw new CliError(
          `${drift.length} counter${drift.length === 1 ? ' is' : 's are'} off; \`svc maintenance recount --repair\` rewrites them from the rows`,
        );
      }
    });
}
