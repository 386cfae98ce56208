// `svc mail list` and `svc mail retry`: the mail outbox, where every account e-mail (password
// reset links, sign-up notices) is written first. With SVC_SMTP_URL the server's worker sends it
// and the list shows how that went; without, it stays here. The outbox holds live reset links
// until they expire: treat its output as secret.
import type { Command } from 'commander';
import { listOutbox, retryOutboxMessage, type OutboxEntry } from '../mail/mailer.ts';
import { registerOutboxCommand } from './outbox.ts';
import { CliError, out, printJson, withDatabase, type JsonOption } from './runtime.ts';

/** `queued (attempt 2 failed; next 2025-01-01T10:05:00Z)`, `sent 2025-...`, `failed after 6 attempts`. */
export function statusLine(m: OutboxEntry): string {
  const tries = `${m.attempts} attempt${m.attempts === 1 ? '' : 's'}`;
  if (m.status === 'sent') return `sent ${m.sentAt} (${tries})`;
  if (m.status === 'failed') return `failed ${m.failedAt} after ${tries}`;
  return m.attempts === 0 ? 'queued' : `queued (${tries} so far; next ${m.nextAttemptAt})`;
}

export function registerMailCommands(program: Command): void {
  const mail = registerOutboxCommand(program, {
    name: 'mail',
    description: 'The mail outbox: account e-mail, queued for the SMTP worker (SVC_SMTP_URL) or kept here without one.',
    listDescription: 'Outbox messages, newest first, with their delivery status and text (reset links included).',
    toHelp: 'only messages to this address (case-insensitive)',
    parseTo: (value) => {
      const to = value.trim();
      if (!to.includes('@')) throw new CliError(`--to must be an e-mail address (got "${value}")`);
      return to;
    },
    list: listOutbox,
    headers: (m) => [
      `To:      ${m.to}`,
      `Subject: ${m.subject}`,
      `Status:  ${statusLine(m)}`,
      ...(m.lastError ? [`Error:   ${m.lastError}`] : []),
    ],
    noun: 'mail',
  });

  mail.command('retry')
    .description('Queues a failed message again with a fresh round of attempts; the server\'s worker sends it at its next look (SVC_MAIL_POLL_MS).')
    .argument('<id>', 'the message id (from `svc mail list`)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts: JsonOption) => {
      const outcome = await withDatabase((db) => retryOutboxMessage(db, id.trim()));
      if (outcome === 'not_found') throw new CliError(`No mail with id ${id}.`);
      if (outcome === 'not_failed') throw new CliError(`Mail ${id} has not failed (it is queued or sent): nothing to retry.`);
      if (opts.json) printJson({ id, status: 'queued' });
      else out(`Mail ${id} is queued again.`);
    });
}
