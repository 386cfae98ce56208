// The signed token in every broadcast message's unsubscribe link (docs/mail.md, "Unsubscribing"):
// HMAC-SHA256 over (community id, user id, broadcast id) with a key of its own derived from the
// master key. It is the only authority the unsubscribe page asks for (no sign-in, no CSRF token:
// a mail provider's RFC 8058 one-click POST carries neither), so it names exactly one member of
// one community and cannot be altered into another. It never expires: a link in an old message
// keeps working, as the law and the mail providers expect. A test send's token names no user.
import crypto from 'node:crypto';
import { deriveKey } from '../secrets.ts';

export interface UnsubscribeClaims {
  communityId: string;
  /** null for a test send: the page says so and changes nothing. */
  userId: string | null;
  broadcastId: string;
}

/** 128 bits of the HMAC: what RFC 2104 allows for truncation, and it keeps the link short. */
const MAC_BYTES = 16;
/** The ids are ours (uuids): anything else in a token is not one we signed. */
const ID = /^[0-9a-zA-Z-]{1,64}$/;

export class UnsubscribeTokens {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    this.#key = deriveKey(masterKey, 'broadcast-unsubscribe');
  }

  #mac(payload: string): Buffer {
    return crypto.createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES);
  }

  /** `<payload>.<mac>`, both base64url: safe in a URL query and a mailto subject as it is. */
  sign(c: UnsubscribeClaims): string {
    const payload = Buffer.from(`${c.communityId}.${c.userId ?? ''}.${c.broadcastId}`).toString('base64url');
    return `${payload}.${this.#mac(payload).toString('base64url')}`;
  }

  /** The claims of a token this key signed, or null for anything else (forged, altered, truncated). */
  verify(token: string): UnsubscribeClaims | null {
    if (typeof token !== 'string' || token.length > 400) return null;
    const parts = token.split('.');
    if (parts.length !== 2 || !/^[\w-]+$/.test(parts[0]) || !/^[\w-]+$/.test(parts[1])) return null;
    const given = Buffer.from(parts[1], 'base64url');
    const expected = this.#mac(parts[0]);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
    const fields = Buffer.from(parts[0], 'base64url').toString('utf8').split('.');
    if (fields.length !== 3) return null;
    const [communityId, userId, broadcastId] = fields;
    if (!ID.test(communityId) || !ID.test(broadcastId) || (userId !== '' && !ID.test(userId))) return null;
    return { communityId, userId: userId === '' ? null : userId, broadcastId };
  }
}
