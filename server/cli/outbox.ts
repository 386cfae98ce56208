// `svc mail list` and `svc sms list` share one shape: an outbox of messages written to the
// database first (and, for mail, delivered from there by the worker), listed newest first with
// their text so a developer can open a reset link or type a sign-in code. Both outboxes hold live
// secrets until they expire.
import type { Command } from 'commander';
import type { Db } from '../db/index.ts';
import { CliError, out, printJson, withDatabase, type CliContext, type JsonOption } from './runtime.ts';

const MAX_LIST = 1000;

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= MAX_LIST))
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIST} (got "${value}")`);
  return n;
}

export interface OutboxCommand<E extends { id: string; createdAt: string; to: string; text: string }> {
  /** `mail`, `sms`. */
  name: string;
  description: string;
  listDescription: string;
  toHelp: string;
  /** Checks and normalises `--to`; throws CliError with the expected form. */
  parseTo: (value: string) => string;
  list: (db: Db, opts: { to?: string; limit: number }, ctx: CliContext) => Promise<E[]>;
  /** Header lines between the separator and the text, e.g. To and Subject. */
  headers: (entry: E) => string[];
  /** What "nothing" is called: `mail`, `SMS`. */
  noun: string;
}

/** Registers `<name> list`; returns the `<name>` command so an outbox can add more (`svc mail retry`). */
export function registerOutboxCommand<E extends { id: string; createdAt: string; to: string; text: string }>(
  program: Command,
  spec: OutboxCommand<E>,
): Command {
  const group = program.command(spec.name).description(spec.description);
  group
    .command('list')
    .description(spec.listDescription)
    .option('--to <recipient>', spec.toHelp)
    .option('--limit <n>', `how many (1-${MAX_LIST}, default 20)`)
    .option('--json', 'print the messages as JSON')
    .action(async (opts: JsonOption & { to?: string; limit?: string }) => {
      const to = opts.to === undefined ? undefined : spec.parseTo(opts.to);
      const limit = parseLimit(opts.limit);
      const messages = await withDatabase((db, ctx) => spec.list(db, { to, limit }, ctx));
      if (opts.json) {
        printJson(messages);
        return;
      }
      if (messages.length === 0) {
        out(to ? `No ${spec.noun} to ${to}.` : `No ${spec.noun}.`);
        return;
      }
      for (const m of messages) {
        out(`─── ${m.createdAt}  ${m.id}`);
        for (const line of spec.headers(m)) out(line);
        if (spec.headers(m).length > 1) out('');
        out(m.text.trimEnd());
        out('');
      }
    });
  return group;
}
