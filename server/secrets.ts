// The process's key material. One 32-byte master key, from SVC_ENCRYPTION_KEY or a key file made
// on first use in SVC_DATA_DIR (mode 0600), from which each use derives its own key with HKDF,
// so a key for one purpose never doubles as another's. Every process of one deployment (servers,
// the CLI) must see the same master key.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './data-dir.ts';

export const KEY_FILE_NAME = 'encryption.key';

/** The master key if there is one (SVC_ENCRYPTION_KEY or the key file), without making a key file: for commands that only read. */
export function existingMasterKey(config: Pick<Config, 'encryptionKey' | 'dataDir'>): Buffer | null {
  if (config.encryptionKey) return config.encryptionKey;
  return fs.existsSync(path.join(config.dataDir, KEY_FILE_NAME)) ? loadMasterKey(config) : null;
}

export function loadMasterKey(config: Pick<Config, 'encryptionKey' | 'dataDir'>): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  const file = path.join(config.dataDir, KEY_FILE_NAME);
  ensurePrivateDir(config.dataDir);
  if (!fs.existsSync(file)) {
    // Written aside and linked into place: link fails if the file exists, so two processes
    // starting together agree on one key, and neither ever reads a half-written file.
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, crypto.randomBytes(32).toString('base64'), { flag: 'wx', mode: PRIVATE_FILE_MODE });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.unlinkSync(tmp);
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/** A 32-byte key for one named purpose, e.g. 'session tokens v1'. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', master, Buffer.alloc(0), `svc ${purpose}`, 32));
}
