// SVC_DATA_DIR holds the embedded database (with its -wal and -shm files), the master key file and
// the `.eml` mail, which carries live reset links: all of it is private to the user svc runs as.
// Whatever creates something there (the server, the CLI, tests) makes directories 0700 and files
// 0600 itself, rather than relying on a process umask that only the entry points would set. At
// start the server tightens what an older version (or a copy, or an unpack) left looser, and says so.
import fs from 'node:fs';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** `mkdir -p`, with every directory it creates 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty and 0600 unless it exists. SQLite accepts an empty file as a new database,
 * and gives the -wal and -shm files it makes the permission bits of the database file, so this one
 * mode covers all three.
 */
export function ensurePrivateFile(file: string): void {
  ensurePrivateDir(path.dirname(file));
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
}

export interface Tightened {
  path: string;
  from: number;
  to: number;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;
export const describeTightened = (t: Tightened): string => `${t.path}: ${octal(t.from)} -> ${octal(t.to)}`;

function tighten(file: string, stat: fs.Stats, mode: number): Tightened | null {
  if ((stat.mode & 0o077) === 0) return null;
  fs.chmodSync(file, mode);
  return { path: file, from: stat.mode & 0o777, to: mode };
}

/** lstat (stat for the data directory itself, which may well be a link to a volume), or null when it is gone. */
function statOrNull(file: string, follow: boolean): fs.Stats | null {
  try {
    return follow ? fs.statSync(file) : fs.lstatSync(file);
  } catch (err) {
    // Another process may remove an entry (SQLite's -shm on close) between the listing and here.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Takes group and other access away from the data directory and from what is directly in it
 * (files 0600, directories 0700; symbolic links inside are left alone, their targets are not ours).
 * One level is enough: everything svc writes deeper (`mail/*.eml`) has always been written 0600. A
 * directory that does not exist yet is left to whoever creates it. Returns what was changed.
 */
export function tightenDataDir(dir: string): Tightened[] {
  const stat = statOrNull(dir, true);
  if (!stat?.isDirectory()) return [];
  const changes = [tighten(dir, stat, PRIVATE_DIR_MODE)];
  for (const name of fs.readdirSync(dir)) {
    const entry = path.join(dir, name);
    const s = statOrNull(entry, false);
    if (s?.isFile()) changes.push(tighten(entry, s, PRIVATE_FILE_MODE));
    else if (s?.isDirectory()) changes.push(tighten(entry, s, PRIVATE_DIR_MODE));
  }
  return changes.filter((c): c is Tightened => c !== null);
}
