// `svc sms list`: the SMS outbox, where the embedded default "sends" sign-in codes, so a developer
// can sign in by phone without a gateway. The outbox holds live codes until they expire (10
// minutes, single use): treat its output as secret.
import type { Command } from 'commander';
import { normalizePhone } from '../../contract/routes/auth.ts';
import { listSmsOutbox } from '../sms/sender.ts';
import { registerOutboxCommand } from './outbox.ts';
import { CliError } from './runtime.ts';

export function registerSmsCommands(program: Command): void {
  registerOutboxCommand(program, {
    name: 'sms',
    description: 'The SMS outbox: sign-in codes written to the database instead of sent.',
    listDescription: 'Outbox messages, newest first, with their text (sign-in codes included).',
    toHelp: 'only messages to this number (E.164; spaces and dashes are ignored)',
    parseTo: (value) => {
      const to = normalizePhone(value);
      if (!to)
        throw new CliError(
          `--to must be an international phone number: + and 8 to 15 digits, e.g. +14155550123 (got "${value}")`,
        );
      return to;
    },
    list: (db, opts, ctx) => listSmsOutbox(db, ctx.outboxSeal(), opts),
    headers: (m) => [`To: ${m.to}`],
    noun: 'SMS',
  });
}
