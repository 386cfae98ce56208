// What every command shares: the server's configuration and database (migrated first, closed at
// the end), the box for webhook signing secrets, output that keeps stdout for results and stderr for messages,
// and error reporting without stack traces unless SVC_DEBUG=1.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { migrate, openDatabase, type Db, type Dialect } from '../db/index.ts';
import { FixtureError } from '../domain/import.ts';
import { readingOutboxSeal, type OutboxSeal } from '../outbox-seal.ts';
import { KEY_FILE_NAME } from '../secrets.ts';
import { WebhookAdminError } from '../webhooks/endpoints.ts';
import { loadSecretBox, type SecretBox } from '../webhooks/secret-box.ts';

/** An expected failure: its message is the whole story, so no stack trace is ever printed. */
export class CliError extends Error {}

/** What a command gets besides the database: the configuration and, on demand, the secret box. */
export interface CliContext {
  config: Config;
  dialect: Dialect;
  /**
   * The key that encrypts webhook signing secrets, exactly as the server loads it
   * (SVC_ENCRYPTION_KEY, else the key file in SVC_DATA_DIR). Loaded on first use, so commands
   * that never touch a secret never create a key file.
   */
  secrets(): SecretBox;
  /** Opens the sealed messages of the mail and SMS outboxes (server/outbox-seal.ts); never makes a key file. */
  outboxSeal(): OutboxSeal;
}

/** Opens the database exactly as the server would (DATABASE_URL / SVC_DATA_DIR), migrates it, runs fn, closes it. */
export async function withDatabase<T>(fn: (db: Db, ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const handle = openDatabase(config.database);
  let box: SecretBox | null = null;
  const ctx: CliContext = {
    config,
    dialect: handle.dialect,
    secrets() {
      box ??= loadCliSecretBox(config);
      return box;
    },
    outboxSeal: () => readingOutboxSeal(config),
  };
  try {
    await migrate(handle.db);
    return await fn(handle.db, ctx);
  } finally {
    await handle.close();
  }
}

/**
 * loadSecretBox, plus a warning when it had to make a new key file for a PostgreSQL database: the
 * server may run elsewhere with another data directory and could then not decrypt the secrets.
 * (On SQLite the key file sits next to svc.db, where the server looks for it too.)
 */
function loadCliSecretBox(config: Config): SecretBox {
  const file = path.join(config.dataDir, KEY_FILE_NAME);
  const existed = config.encryptionKey !== null || fs.existsSync(file);
  const box = loadSecretBox(config);
  if (!existed && config.database.kind === 'postgres') {
    note(
      `warning: created a new master key in ${file} to encrypt webhook signing secrets. The server must use the same key ` +
        'to sign deliveries: share this file, or set SVC_ENCRYPTION_KEY for both.',
    );
  }
  return box;
}

export const out = (text = ''): void => {
  process.stdout.write(`${text}\n`);
};
export const note = (text: string): void => {
  process.stderr.write(`${text}\n`);
};
export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** Every command takes `--json`: results as JSON on stdout, messages still on stderr. */
export interface JsonOption {
  json?: boolean;
}

/** Prints an error to stderr; returns the exit code. */
export function reportError(err: unknown): number {
  const debug = process.env.SVC_DEBUG === '1';
  if (
    err instanceof FixtureError ||
    err instanceof CliError ||
    err instanceof ConfigError ||
    err instanceof WebhookAdminError
  ) {
    note(`error: ${err.message}`);
  } else if (err instanceof Error) {
    note(`error: ${err.message}`);
    if (!debug) note('(set SVC_DEBUG=1 for details)');
  } else {
    note(`error: ${String(err)}`);
  }
  if (debug && err instanceof Error && err.stack) note(err.stack);
  return 1;
}

/** Aligns rows into columns for terminal output. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
