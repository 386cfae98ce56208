// `svc sms list` as a developer runs it: a child process on a temporary SQLite data directory
// (always SQLite: this suite does not touch DATABASE_URL).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/index.ts';
import { loadOutboxSeal, UNREADABLE_SEALED } from '../../server/outbox-seal.ts';
import { listSmsOutbox, OutboxSmsSender } from '../../server/sms/sender.ts';
import { runSvc } from './support/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sms-'));
const env = { SVC_DATA_DIR: path.join(tmp, 'data'), DATABASE_URL: '', REDIS_URL: '' };

beforeAll(async () => {
  const handle = openDatabase({ kind: 'sqlite', file: path.join(env.SVC_DATA_DIR, 'svc.db') });
  await migrate(handle.db);
  // Sealed under the data directory's key, as the server would: the CLI below opens it with the same key file.
  const seal = loadOutboxSeal({ encryptionKey: null, dataDir: env.SVC_DATA_DIR });
  const sender = new OutboxSmsSender(handle.db, seal);
  await sender.send('+14155550123', 'Your The Club code is 123456');
  await new Promise((r) => setTimeout(r, 5));
  await sender.send('+447700900123', 'Your svc code is 654321');
  expect((await listSmsOutbox(handle.db, seal, { to: '+14155550123' })).map((m) => m.text)).toEqual([
    'Your The Club code is 123456',
  ]);
  const stored = await handle.db.selectFrom('sms_outbox').select('text_body').execute();
  expect(stored.map((r) => r.text_body).join()).not.toMatch(/123456|654321/);
  await handle.close();
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('svc sms list', { timeout: 60_000 }, () => {
  it('prints the outbox newest first, with the text so the code can be read', async () => {
    const r = await runSvc(['sms', 'list'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.indexOf('654321')).toBeLessThan(r.stdout.indexOf('123456'));
    expect(r.stdout).toContain('To: +14155550123');
    expect(r.stdout).toContain('Your The Club code is 123456');
  });

  it('filters by --to (normalised: spaces and dashes ignored), limits with --limit, and prints JSON with --json', async () => {
    const to = await runSvc(['sms', 'list', '--to', '+1 415-555-0123', '--json'], env);
    expect(to.code).toBe(0);
    const messages = JSON.parse(to.stdout);
    expect(messages).toEqual([
      {
        id: expect.any(String),
        to: '+14155550123',
        text: 'Your The Club code is 123456',
        createdAt: expect.any(String),
        sentAt: null,
      },
    ]);
    const one = JSON.parse((await runSvc(['sms', 'list', '--limit', '1', '--json'], env)).stdout);
    expect(one.map((m: { to: string }) => m.to)).toEqual(['+447700900123']);
    const none = await runSvc(['sms', 'list', '--to', '+15555550000'], env);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('No SMS to +15555550000.');
  });

  it('opens the sealed texts only with the master key they were written under, and says so otherwise', async () => {
    const other = await runSvc(['sms', 'list', '--json'], {
      ...env,
      SVC_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    });
    expect(other.code).toBe(0);
    const texts = (JSON.parse(other.stdout) as Array<{ text: string }>).map((m) => m.text);
    expect(texts).toEqual([UNREADABLE_SEALED, UNREADABLE_SEALED]);
    expect(other.stdout).not.toMatch(/123456|654321/);
  });

  it('refuses bad options with a message and exit code 1', async () => {
    const bad = await runSvc(['sms', 'list', '--limit', '1001'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--limit must be a whole number from 1 to 1000');
    const notPhone = await runSvc(['sms', 'list', '--to', '4155550123'], env);
    expect(notPhone.code).toBe(1);
    expect(notPhone.stderr).toContain('--to must be an international phone number');
  });
});
