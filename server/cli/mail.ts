// `svc mail list`: the mail outbox, where the embedded default "sends" account e-mail (password
// reset links, sign-up notices). Newest first, with the text body, so a developer can open the
// link. The outbox holds live reset links until they expire: treat its output as secret.
import type { Command } from 'commander';
import { listOutbox, type OutboxEntry } from '../mail/mailer.ts';
import { CliError, out, printJson, withDatabase, type JsonOption } from './runtime.ts';

const MAX_LIST = 1000;

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= MAX_LIST)) throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIST} (got "${value}")`);
  return n;
}

function parseTo(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const to = value.trim();
  if (!to.includes('@')) throw new CliError(`--to must be an e-mail address (got "${value}")`);
  return to;
}

function printEntry(m: OutboxEntry): void {
  out(`─── ${m.createdAt}  ${m.id}`);
  out(`To:      ${m.to}`);
  out(`Subject: ${m.subject}`);
  out('');
  out(m.text.trimEnd());
  out('');
}

export function registerMailCommands(program: Command): void {
  const mail = program.command('mail').description('The mail outbox: account e-mail written to the database instead of sent.');

  mail
    .command('list')
    .description('Outbox messages, newest first, with their text (reset links included).')
    .option('--to <email>', 'only messages to this address (case-insensitive)')
    .option('--limit <n>', `how many (1-${MAX_LIST}, default 20)`)
    .option('--json', 'print the messages as JSON')
    .action(async (opts: JsonOption & { to?: string; limit?: string }) => {
      const to = parseTo(opts.to);
      const limit = parseLimit(opts.limit);
      const messages = await withDatabase((db) => listOutbox(db, { to, limit }));
      if (opts.json) {
        printJson(messages);
        return;
      }
      if (messages.length === 0) {
        out(to ? `No mail to ${to}.` : 'No mail.');
        return;
      }
      messages.forEach(printEntry);
    });
}
