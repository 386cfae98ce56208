// Webhook signing secrets at rest: AES-256-GCM under one process key, bound to the endpoint id
// (as associated data) so a ciphertext copied onto another endpoint does not decrypt. The key
// comes from SVC_ENCRYPTION_KEY, or from a key file made on first use in SVC_DATA_DIR; every
// process that signs deliveries (servers, the CLI) must see the same key.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

const VERSION = 'v1';
export const KEY_FILE_NAME = 'encryption.key';

export class SecretBox {
  readonly #key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.#key = key;
  }

  seal(plaintext: string, boundTo: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, boundTo: string): string {
    const [version, payload] = sealed.split(':');
    if (version !== VERSION || !payload) throw new Error('unrecognised secret ciphertext');
    const raw = Buffer.from(payload, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('cannot decrypt a webhook secret: SVC_ENCRYPTION_KEY (or the key file) differs from the one it was stored with');
    }
  }
}

/** The configured key, or the key file in the data directory (created, mode 0600, on first use). */
export function loadSecretBox(config: Pick<Config, 'encryptionKey' | 'dataDir'>): SecretBox {
  if (config.encryptionKey) return new SecretBox(config.encryptionKey);
  const file = path.join(config.dataDir, KEY_FILE_NAME);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists, so two processes starting together agree on one key.
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return new SecretBox(key);
}

/** A new signing secret, `whsec_` and 32 url-safe characters. */
export const newSigningSecret = (): string => `whsec_${crypto.randomBytes(24).toString('base64url')}`;
