// `svc sms list`: the SMS outbox, where the embedded default "sends" sign-in codes. Newest first,
// with the text, so a developer can sign in by phone without a gateway. The outbox holds live codes
// until they expire (10 minutes, single use): treat its output as secret.
import type { Command } from 'commander';
import { normalizePhone } from '../../contract/routes/auth.ts';
import { listSmsOutbox, type SmsOutboxEntry } from '../sms/sender.ts';
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
  const to = normalizePhone(value);
  if (!to) throw new CliError(`--to must be an international phone number: + and 8 to 15 digits, e.g. +14155550123 (got "${value}")`);
  return to;
}

function printEntry(m: SmsOutboxEntry): void {
  out(`─── ${m.createdAt}  ${m.id}`);
  out(`To: ${m.to}`);
  out(m.text.trimEnd());
  out('');
}

export function registerSmsCommands(program: Command): void {
  const sms = program.command('sms').description('The SMS outbox: sign-in codes written to the database instead of sent.');

  sms
    .command('list')
    .description('Outbox messages, newest first, with their text (sign-in codes included).')
    .option('--to <phone>', 'only messages to this number (E.164; spaces and dashes are ignored)')
    .option('--limit <n>', `how many (1-${MAX_LIST}, default 20)`)
    .option('--json', 'print the messages as JSON')
    .action(async (opts: JsonOption & { to?: string; limit?: string }) => {
      const to = parseTo(opts.to);
      const limit = parseLimit(opts.limit);
      const messages = await withDatabase((db) => listSmsOutbox(db, { to, limit }));
      if (opts.json) {
        printJson(messages);
        return;
      }
      if (messages.length === 0) {
        out(to ? `No SMS to ${to}.` : 'No SMS.');
        return;
      }
      messages.forEach(printEntry);
    });
}
