// Handoff codes: how a flow finished on the platform's callback reaches the community domain it
// started on, whose cookie the platform cannot set. A code is 32 random bytes, lives 60 seconds,
// works once (one DELETE ... RETURNING claims it), only on the origin it was made for, and only
// in the browser holding the binding cookie set on that origin at the start. Only its sha256 is
// stored. A handoff only ever signs in: linking happens on the platform, never on a community's domain,
// so `link_user_id` is always written null and never read.
import crypto from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { ExternalIdentity } from '../domain/oauth-identities.ts';

export const HANDOFF_TTL_MS = 60_000;

export const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('base64url');

export interface Handoff {
  identity: ExternalIdentity;
  origin: string;
  bindHash: string;
  returnTo: string;
}

/** Stores the finished flow and returns the code to put in the redirect. */
export async function createHandoff(db: Db, h: Handoff, now = Date.now()): Promise<string> {
  const code = crypto.randomBytes(32).toString('base64url');
  // Expired handoffs are left to the scheduled purge (server/maintenance/purge.ts); a redeem
  // ignores them.
  await db
    .insertInto('oauth_handoffs')
    .values({
      code_hash: sha256(code),
      origin: h.origin,
      bind_hash: h.bindHash,
      return_to: h.returnTo,
      provider: h.identity.provider,
      subject: h.identity.subject,
      email: h.identity.email,
      email_verified: h.identity.emailVerified ? 1 : 0,
      name: h.identity.name,
      link_user_id: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + HANDOFF_TTL_MS).toISOString(),
    })
    .execute();
  return code;
}

/**
 * Claims the code on `origin`: the handoff, once, or null (unknown, used, expired, or made for
 * another origin; a code tried on the wrong origin stays usable on its own). The expiry is part
 * of the claim, so an expired handoff is never claimed: it stays for the purge.
 */
export async function redeemHandoff(db: Db, code: string, origin: string, now = Date.now()): Promise<Handoff | null> {
  if (code.length > 100) return null;
  const row = await db
    .deleteFrom('oauth_handoffs')
    .where('code_hash', '=', sha256(code))
    .where('origin', '=', origin)
    .where('expires_at', '>', new Date(now).toISOString())
    .returningAll()
    .executeTakeFirst();
  if (!row) return null;
  return {
    identity: {
      provider: row.provider,
      subject: row.subject,
      email: row.email,
      emailVerified: row.email_verified === 1,
      name: row.name,
    },
    origin: row.origin,
    bindHash: row.bind_hash,
    returnTo: row.return_to,
  };
}
