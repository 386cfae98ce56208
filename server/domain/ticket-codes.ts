// Ticket codes: what a ticket's QR code carries, and what the door checks.
//   svt1.<ticket id, 32 hex>.<HMAC-SHA256(ticket id) truncated to 128 bits, base64url>
// The MAC makes a code unforgeable and unguessable without the server's key (derived from the
// master key, purpose "ticket codes v1"), while the id lets the server find the ticket in one
// lookup. Nothing about the code is stored: rotating the master key invalidates every printed code.
import crypto from 'node:crypto';
import QRCode from 'qrcode';
import type { Config } from '../config.ts';
import { deriveKey, loadMasterKey } from '../secrets.ts';

const PREFIX = 'svt1';
const CODE = /^svt1\.([0-9a-f]{32})\.([A-Za-z0-9_-]{22})$/;

export class TicketCodes {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('ticket code key must be at least 32 bytes');
  }

  private mac(hexId: string): string {
    return crypto
      .createHmac('sha256', this.key)
      .update(`${PREFIX}.${hexId}`)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }

  codeFor(ticketId: string): string {
    const hexId = ticketId.replaceAll('-', '').toLowerCase();
    return `${PREFIX}.${hexId}.${this.mac(hexId)}`;
  }

  /** The ticket id a genuine code names, or null for anything else (compared in constant time). */
  ticketIdOf(code: string): string | null {
    const m = CODE.exec(code.trim());
    if (!m) return null;
    const expected = Buffer.from(this.mac(m[1]));
    const given = Buffer.from(m[2]);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
    const h = m[1];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

/** The code as a PNG QR image, base64 (no data: prefix): what `qrCode` in an RSVP answer is. */
export async function qrPngBase64(code: string): Promise<string> {
  const png = await QRCode.toBuffer(code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
  return png.toString('base64');
}

/** The server's codes: keyed by the master key, so every process agrees and a restart changes nothing. */
export function ticketCodesFor(config: Pick<Config, 'encryptionKey' | 'dataDir'>): TicketCodes {
  return new TicketCodes(deriveKey(loadMasterKey(config), 'ticket codes v1'));
}
