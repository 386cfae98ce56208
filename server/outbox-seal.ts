// The outboxes (`mail_outbox`, `sms_outbox`) keep each message until a transport takes it, and some
// messages carry sign-in secrets: a password reset link, an SMS code. Those are stored sealed:
// AES-256-GCM under a key derived from the master key (server/secrets.ts), which is never in the
// database, bound to the row and column, so a copy of the database (a dump, a backup, a replica,
// a read through SQL) holds no usable token. The mail worker and `svc mail|sms list|show` open them
// with the same key. A value without the mark is read as it is: messages that carry no secret,
// and rows written before sealing. See docs/sign-in.md, "Tokens at rest".
import crypto from 'node:crypto';
import type { Config } from './config.ts';
import { deriveKey, existingMasterKey, loadMasterKey } from './secrets.ts';
import { SecretBox } from './webhooks/secret-box.ts';

const MARK = 'sealed:';

/** What a reader shows for a message it cannot open. */
export const UNREADABLE_SEALED =
  "(sealed under another encryption key: read it where SVC_ENCRYPTION_KEY, or the key file in SVC_DATA_DIR, is the server's)";

export type OutboxColumn =
  'mail_outbox.text_body' | 'mail_outbox.html_body' | 'mail_outbox.attachments' | 'sms_outbox.text_body';

export class OutboxSeal {
  readonly #box: SecretBox;
  constructor(key: Buffer) {
    this.#box = new SecretBox(key, 'an outbox message');
  }

  seal(plaintext: string, column: OutboxColumn, rowId: string): string {
    return MARK + this.#box.seal(plaintext, `${column}:${rowId}`);
  }

  /** The value as it was written; throws when it was sealed under another master key (or moved to another row). */
  open(stored: string, column: OutboxColumn, rowId: string): string {
    return stored.startsWith(MARK) ? this.#box.open(stored.slice(MARK.length), `${column}:${rowId}`) : stored;
  }

  /** For listings: open, or UNREADABLE_SEALED when this key does not open it (one such row must not hide the rest). */
  read(stored: string, column: OutboxColumn, rowId: string): string {
    try {
      return this.open(stored, column, rowId);
    } catch {
      return UNREADABLE_SEALED;
    }
  }
}

const sealKey = (master: Buffer) => deriveKey(master, 'outbox messages v1');

/** The seal of this deployment's master key (made on first use, as the server does). */
export function loadOutboxSeal(config: Pick<Config, 'encryptionKey' | 'dataDir'>): OutboxSeal {
  return new OutboxSeal(sealKey(loadMasterKey(config)));
}

/**
 * For reading only (`svc mail|sms list`): the seal of the master key if there is one here. With none,
 * a seal under a throwaway key: it opens no sealed message (each shows UNREADABLE_SEALED), and
 * reading never leaves a new key file behind that a server elsewhere would not share.
 */
export function readingOutboxSeal(config: Pick<Config, 'encryptionKey' | 'dataDir'>): OutboxSeal {
  return new OutboxSeal(sealKey(existingMasterKey(config) ?? crypto.randomBytes(32)));
}
