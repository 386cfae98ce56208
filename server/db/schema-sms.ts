// Table types of migration 0005_sms: SMS sign-in codes and the SMS outbox (see server/db/schema.ts
// for the storage conventions).
import type { Generated } from 'kysely';

export interface SmsCodesTable {
  id: string;
  /** E.164 (`+` and 8-15 digits), as normalised by the contract's Phone. */
  phone: string;
  /** The account the code signs in to (a code is only made for a phone that has one). */
  user_id: string;
  /** HMAC-SHA256 (base64url) of `<id>:<phone>:<code>` under a server key; the code itself is never stored. */
  code_hash: string;
  /** Guesses made against this code (right or wrong); at SMS_CODE_MAX_ATTEMPTS it is dead. */
  attempts: Generated<number>;
  created_at: string;
  expires_at: string;
  /** Set by the one conditional UPDATE that signs in with the code. */
  used_at: string | null;
  /** Set when a newer code for the same phone replaced this one. */
  superseded_at: string | null;
  /**
   * Migration 0014: what the code is for, SIGN_IN (the default, every older row) or VERIFY_PHONE
   * (proves `user_id` holds `phone`, which they are adding). A code works only for its purpose.
   */
  purpose: Generated<SmsCodePurpose>;
}

export type SmsCodePurpose = 'SIGN_IN' | 'VERIFY_PHONE';

export interface SmsOutboxTable {
  id: string;
  /** E.164. */
  to_number: string;
  text_body: string;
  created_at: string;
  /** When a transport handed the message on; null in the outbox-only default. */
  sent_at: string | null;
}

export interface SmsTables {
  sms_codes: SmsCodesTable;
  sms_outbox: SmsOutboxTable;
}
