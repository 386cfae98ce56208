// `svc mail list`: the mail outbox, where the embedded default "sends" account e-mail (password
// reset links, sign-up notices). The outbox holds live reset links until they expire: treat its
// output as secret.
import type { Command } from 'commander';
import { listOutbox } from '../mail/mailer.ts';
import { registerOutboxCommand } from './outbox.ts';
import { CliError } from './runtime.ts';

export function registerMailCommands(program: Command): void {
  registerOutboxCommand(program, {
    name: 'mail',
    description: 'The mail outbox: account e-mail written to the database instead of sent.',
    listDescription: 'Outbox messages, newest first, with their text (reset links included).',
    toHelp: 'only messages to this address (case-insensitive)',
    parseTo: (value) => {
      const to = value.trim();
      if (!to.includes('@')) throw new CliError(`--to must be an e-mail address (got "${value}")`);
      return to;
    },
    list: listOutbox,
    headers: (m) => [`To:      ${m.to}`, `Subject: ${m.subject}`],
    noun: 'mail',
  });
}
