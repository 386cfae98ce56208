// What every command shares: the server's configuration and database (migrated first, closed at
// the end), output that keeps stdout for results and stderr for messages, and error reporting
// without stack traces unless SVC_DEBUG=1.
import { ConfigError, loadConfig } from '../config.ts';
import { migrate, openDatabase, type Db } from '../db/index.ts';
import { FixtureError } from '../domain/import.ts';

/** An expected failure: its message is the whole story, so no stack trace is ever printed. */
export class CliError extends Error {}

/** Opens the database exactly as the server would (DATABASE_URL / SVC_DATA_DIR), migrates it, runs fn, closes it. */
export async function withDatabase<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const handle = openDatabase(config.database);
  try {
    await migrate(handle.db);
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

export const out = (text = ''): void => { process.stdout.write(`${text}\n`); };
export const note = (text: string): void => { process.stderr.write(`${text}\n`); };
export const printJson = (value: unknown): void => { process.stdout.write(`${JSON.stringify(value, null, 2)}\n`); };

/** Every command takes `--json`: results as JSON on stdout, messages still on stderr. */
export interface JsonOption { json?: boolean }

/** Prints an error to stderr; returns the exit code. */
export function reportError(err: unknown): number {
  const debug = process.env.SVC_DEBUG === '1';
  if (err instanceof FixtureError || err instanceof CliError || err instanceof ConfigError) {
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
