// SVC_DATA_DIR as the server process leaves it: the directory 0700 and everything in it 0600 (the
// SQLite database with its -wal and -shm files, the master key file, the `.eml` mail), a directory
// an older version left readable by others tightened at start (and logged), and a password reset
// carried out end to end through the process with the link read from the `.eml` file, while the
// database holds no usable token. On PostgreSQL the server's database is a schema of its own; the
// data directory then holds the key file and the mail.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../server/db/index.ts';
import { KEY_FILE_NAME } from '../../server/secrets.ts';
import { closeSharedDatabase, onPostgres, openSharedDatabase, runSvc, schemaUrl } from './support/cli.ts';
import { databaseText } from './support/db-text.ts';
import { decoded, parseMime, partOfType } from './support/mime.ts';
import { rawRequest } from './support/raw-http.ts';
import { startServerProcess, type RunningServer } from './support/server-process.ts';
import { waitFor } from './support/wait.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-data-dir-'));
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const opened: Array<{ database: DatabaseHandle | undefined; schema: string }> = [];

afterAll(async () => {
  for (const { database, schema } of opened) await closeSharedDatabase(database, schema);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The server on `dir` and a second connection to its database (on PostgreSQL, a new schema made first). */
async function startOn(dir: string): Promise<{ server: RunningServer; database: DatabaseHandle }> {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const entry: { database: DatabaseHandle | undefined; schema: string } = { database: undefined, schema };
  opened.push(entry);
  // On SQLite the server makes the file: opening it first would make it here, not there.
  if (onPostgres) entry.database = await openSharedDatabase(schema, dir);
  const server = await startServerProcess(dir, {
    SVC_SEED_DEMO: 'false',
    ...(onPostgres ? { DATABASE_URL: schemaUrl(schema) } : {}),
  });
  entry.database ??= await openSharedDatabase(schema, dir);
  return { server, database: entry.database };
}

function siteRequest(server: RunningServer) {
  const host = `127.0.0.1:${server.port}`;
  return (method: string, urlPath: string, json: unknown) =>
    rawRequest(
      server.port,
      method,
      urlPath,
      { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
      JSON.stringify(json),
    );
}

/** What SQLite keeps beside the key file while the server has the database open. */
const DATABASE_FILES = onPostgres ? [] : ['svc.db', 'svc.db-shm', 'svc.db-wal'];

describe('data directory: security', () => {
  it(
    'is made 0700 with every file in it 0600, and a reset works end to end while the database holds no usable token',
    { timeout: 90_000 },
    async () => {
      const dir = path.join(tmp, 'fresh', 'data');
      const { server, database } = await startOn(dir);
      try {
        const send = siteRequest(server);
        expect(
          (
            await send('POST', '/api/auth/sign-up', {
              email: 'cy@example.com',
              password: 'a long password',
              name: 'Cy',
            })
          ).status,
        ).toBe(201);
        expect((await send('POST', '/api/auth/password-reset', { email: 'cy@example.com' })).status).toBe(202);
        const mailDir = path.join(dir, 'mail');
        const eml = await waitFor(
          () => fs.existsSync(mailDir) && fs.readdirSync(mailDir).find((n) => n.endsWith('.eml')),
          'the .eml file',
        );

        expect(modeOf(dir)).toBe(0o700);
        expect(fs.readdirSync(dir).sort()).toEqual([...DATABASE_FILES, KEY_FILE_NAME, 'mail'].sort());
        for (const name of [...DATABASE_FILES, KEY_FILE_NAME])
          expect([name, modeOf(path.join(dir, name))]).toEqual([name, 0o600]);
        expect(modeOf(mailDir)).toBe(0o700);
        expect(modeOf(path.join(mailDir, eml))).toBe(0o600);

        // The e-mail carries the real link; the database (a copy, a dump, SQL access) holds none of it.
        const text = decoded(
          partOfType(parseMime(fs.readFileSync(path.join(mailDir, eml), 'utf8')), 'text/plain')!,
        ).toString('utf8');
        const token = new URL(/http\S+\/reset-password\?token=\S+/.exec(text)![0]).searchParams.get('token')!;
        expect(token).toMatch(/^[\w-]{43}$/);
        expect(await databaseText(database)).not.toContain(token);

        expect(
          (await send('POST', '/api/auth/password-reset/confirm', { token, password: 'a new long password' })).status,
        ).toBe(200);
        expect(
          (await send('POST', '/api/auth/sign-in', { email: 'cy@example.com', password: 'a new long password' }))
            .status,
        ).toBe(200);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
  );

  it(
    'tightens a data directory an older version left readable by others, and logs what it changed',
    { timeout: 90_000 },
    async () => {
      const dir = path.join(tmp, 'old');
      fs.mkdirSync(path.join(dir, 'mail'), { recursive: true });
      fs.writeFileSync(path.join(dir, KEY_FILE_NAME), crypto.randomBytes(32).toString('base64'));
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'anything else written here');
      if (!onPostgres) fs.writeFileSync(path.join(dir, 'svc.db'), '');
      const loose = ['', 'mail', KEY_FILE_NAME, 'notes.txt', ...(onPostgres ? [] : ['svc.db'])];
      for (const name of loose) fs.chmodSync(path.join(dir, name), name === '' || name === 'mail' ? 0o755 : 0o644);

      const { server } = await startOn(dir);
      try {
        expect(modeOf(dir)).toBe(0o700);
        expect(modeOf(path.join(dir, 'mail'))).toBe(0o700);
        for (const name of [KEY_FILE_NAME, 'notes.txt', ...DATABASE_FILES])
          expect([name, modeOf(path.join(dir, name))]).toEqual([name, 0o600]);
        const warning = server
          .output()
          .split('\n')
          .filter((l) => l.includes('made it private'))
          .map((l) => JSON.parse(l));
        expect(warning).toHaveLength(1);
        expect(warning[0]).toMatchObject({
          level: 40,
          dataDir: dir,
          msg: 'data directory was readable by other users; made it private (directories 0700, files 0600)',
        });
        expect(warning[0].changed.sort()).toEqual(
          [
            `${dir}: 0755 -> 0700`,
            `${path.join(dir, 'mail')}: 0755 -> 0700`,
            `${path.join(dir, KEY_FILE_NAME)}: 0644 -> 0600`,
            `${path.join(dir, 'notes.txt')}: 0644 -> 0600`,
            ...(onPostgres ? [] : [`${path.join(dir, 'svc.db')}: 0644 -> 0600`]),
          ].sort(),
        );
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
  );

  it('gives the database the same modes when the admin CLI is the first to open it', { timeout: 60_000 }, async () => {
    if (onPostgres) return; // the CLI makes no file on PostgreSQL (it reads no key for `mail list`)
    const dir = path.join(tmp, 'cli-first', 'data');
    const run = await runSvc(['mail', 'list'], { SVC_DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '' });
    expect(run.code).toBe(0);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(path.join(dir, 'svc.db'))).toBe(0o600);
    // `mail list` only reads: it leaves no key file of its own behind.
    expect(fs.existsSync(path.join(dir, KEY_FILE_NAME))).toBe(false);
  });
});
