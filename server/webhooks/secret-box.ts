// Webhook signing secrets at rest: AES-256-GCM under the master key (server/secrets.ts), bound to
// the endpoint id (as associated data) so a ciphertext copied onto another endpoint does not
// decrypt. Every process that signs deliveries (servers, the CLI) must see the same key.
import crypto from 'node:crypto';
import type { Config } from '../config.ts';
import { deriveKey, loadMasterKey } from '../secrets.ts';

const VERSION = 'v1';

export class SecretBox {
  readonly #key: Buffer;
  /** What is sealed, for the error when it does not open (`a webhook secret`). */
  readonly #what: string;
  constructor(key: Buffer, what = 'a webhook secret') {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.#key = key;
    this.#what = what;
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
      throw new Error(
        `cannot decrypt ${this.#what}: SVC_ENCRYPTION_KEY (or the key file) differs from the one it was stored with`,
      );
    }
  }
}

/** The box for webhook signing secrets, under a key derived from the master key for this purpose only. */
export function loadSecretBox(config: Pick<Config, 'encryptionKey' | 'dataDir'>): SecretBox {
  return new SecretBox(deriveKey(loadMasterKey(config), 'webhook signing secrets v1'));
}

export { KEY_FILE_NAME } from '../secrets.ts';

/** A new signing secret, `whsec_` and 32 url-safe characters. */
export const newSigningSecret = (): string => `whsec_${crypto.randomBytes(24).toString('base64url')}`;
