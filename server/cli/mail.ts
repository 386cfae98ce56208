// `svc mail list`, `svc mail show` and `svc mail retry`: the mail outbox, where every e-mail
// (password reset links, sign-up notices, tickets) is written first. The server's worker sends
// it over SMTP (SMTP_URL) or writes it as an `.eml` file, and these show how that went. The
// outbox holds live reset links until they expire: treat its output as secret.
import fs from 'node:fs';
import type { Command } from 'commander';
import { findOutboxByIdPrefix, listOutbox, retryOutboxMessage, type OutboxEntry } from '../mail/mailer.ts';
import { registerOutboxCommand } from './outbox.ts';
import { CliError, out, printJson, withDatabase, type JsonOption } from './runtime.ts';

/** `queued (attempt 2 failed; next 2025-01-01T10:05:00Z)`, `sent 2025-...`, `failed after 6 attempts`. */
export function statusLine(m: OutboxEntry): string {
  const tries = `${m.attempts} attempt${m.attempts === 1 ? '' : 's'}`;
  if (m.status === 'sent') return `sent ${m.sentAt} (${tries})`;
  if (m.status === 'failed') return `failed ${m.failedAt} after ${tries}`;
  return m.attempts === 0 ? 'queued' : `queued (${tries} so far; next ${m.nextAttemptAt})`;
}

/** `1 234 bytes` is hard to read at a glance; `1.2 KB (1234 bytes)` is not. */
export function byteSize(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const unit = n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${unit} (${n} bytes)`;
}

export interface ShowContext {
  /** This configuration's SVC_MAIL_FROM: what an unsent message will go out with. */
  defaultFrom: string;
  /** Whether the recorded `.eml` file is on this machine (the CLI may run elsewhere than the server). */
  fileExists: boolean;
}

/** The lines `svc mail show` prints: headers, delivery, file, text body, attachments. */
export function formatMailShow(m: OutboxEntry, ctx: ShowContext): string[] {
  const lines = [
    `Mail ${m.id}`,
    `From:     ${m.from ?? ctx.defaultFrom}`,
    `To:       ${m.to}`,
    `Subject:  ${m.subject}`,
    `Date:     ${m.createdAt}`,
    `Status:   ${statusLine(m)}`,
    ...(m.lastError ? [`Error:    ${m.lastError}`] : []),
    ...(m.emlPath ? [`File:     ${m.emlPath}${ctx.fileExists ? '' : ' (not on this machine)'}`] : []),
    '',
    m.text.trimEnd(),
  ];
  if (m.attachments.length > 0) {
    lines.push('', `Attachments (${m.attachments.length}):`);
    for (const a of m.attachments) {
      lines.push(`  ${a.filename}  ${a.contentType}  ${byteSize(a.size)}${a.cid ? `  cid:${a.cid}` : ''}`);
    }
  }
  return lines;
}

/** Outbox ids are UUIDs; anything else cannot match and is refused before the database is opened. */
const ID_PREFIX = /^[\w-]{1,100}$/;

async function findOne(prefix: string): Promise<{ entry: OutboxEntry; defaultFrom: string }> {
  if (!ID_PREFIX.test(prefix))
    throw new CliError(`"${prefix}" is not a message id (or its beginning): see \`svc mail list\`.`);
  const { matches, defaultFrom } = await withDatabase(async (db, ctx) => ({
    matches: await findOutboxByIdPrefix(db, ctx.outboxSeal(), prefix),
    defaultFrom: ctx.config.mail.from,
  }));
  if (matches.length === 0) throw new CliError(`No mail with id ${prefix}.`);
  if (matches.length > 1) {
    throw new CliError(
      `${prefix} is the beginning of more than one message id (${matches.map((m) => m.id).join(', ')}${matches.length >= 5 ? ', ...' : ''}): type more of it.`,
    );
  }
  return { entry: matches[0], defaultFrom };
}

export function registerMailCommands(program: Command): void {
  const mail = registerOutboxCommand(program, {
    name: 'mail',
    description:
      "The mail outbox: every e-mail, queued for the server's worker, which sends it over SMTP (SMTP_URL) or writes it as an .eml file under SVC_DATA_DIR/mail.",
    listDescription: 'Outbox messages, newest first, with their delivery status and text (reset links included).',
    toHelp: 'only messages to this address (case-insensitive)',
    parseTo: (value) => {
      const to = value.trim();
      if (!to.includes('@')) throw new CliError(`--to must be an e-mail address (got "${value}")`);
      return to;
    },
    list: (db, opts, ctx) => listOutbox(db, ctx.outboxSeal(), opts),
    headers: (m) => [
      `To:      ${m.to}`,
      `Subject: ${m.subject}`,
      `Status:  ${statusLine(m)}`,
      ...(m.lastError ? [`Error:   ${m.lastError}`] : []),
      ...(m.emlPath ? [`File:    ${m.emlPath}`] : []),
    ],
    noun: 'mail',
  });

  mail
    .command('show')
    .description('One message: From, To, Subject, Date, delivery status, its .eml file, the text and the attachments.')
    .argument('<id>', 'the message id, or enough of its beginning to be unique (from `svc mail list`)')
    .option('--json', 'print the message as JSON')
    .action(async (id: string, opts: JsonOption) => {
      const { entry, defaultFrom } = await findOne(id.trim());
      if (opts.json) {
        printJson(entry);
        return;
      }
      const fileExists = entry.emlPath !== null && fs.existsSync(entry.emlPath);
      for (const line of formatMailShow(entry, { defaultFrom, fileExists })) out(line);
    });

  mail
    .command('retry')
    .description(
      "Queues a failed message again with a fresh round of attempts; the server's worker sends it at its next look (SVC_MAIL_POLL_MS).",
    )
    .argument('<id>', 'the message id (from `svc mail list`)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts: JsonOption) => {
      const outcome = await withDatabase((db) => retryOutboxMessage(db, id.trim()));
      if (outcome === 'not_found') throw new CliError(`No mail with id ${id}.`);
      if (outcome === 'not_failed')
        throw new CliError(`Mail ${id} has not failed (it is queued or sent): nothing to retry.`);
      if (opts.json) printJson({ id, status: 'queued' });
      else out(`Mail ${id} is queued again.`);
    });
}
