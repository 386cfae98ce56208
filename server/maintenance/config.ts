// Retention of the tables that would otherwise grow forever, and how the purge runs (see the
// README's Configuration and docs/maintenance.md). Read from the environment once at start.
import { z } from 'zod';
import { parseDuration } from '../shared/duration.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The spec's Idempotency-Key window: a key must replay for 24 h, so it is never purged sooner. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

export interface PurgeConfig {
  /** Run the scheduled purge in this process (SVC_PURGE_WORKER). */
  worker: boolean;
  /** How often the scheduled purge runs. */
  intervalMs: number;
  /** The most rows one batch deletes (each batch its own short transaction; purge.ts shrinks slow ones). */
  batchSize: number;
  retention: {
    /** Idempotency keys, from when they were made (at least the 24 h window). */
    idempotencyKeysMs: number;
    /** Finished webhook deliveries (and their attempts) from their last change; events no delivery needs from their emission. */
    webhookDeliveriesMs: number;
    /** Sent or failed mail, from when it was sent or failed. */
    mailMs: number;
    /** The SMS outbox, from when a message was written. */
    smsMs: number;
    /** SMS codes, password reset tokens, OAuth handoffs and revoked sessions, past their expiry. */
    signInCodesMs: number;
  };
}

const Duration = (fallback: string, minMs: number, what: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === null || ms < minMs) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration of at least ${what} like ${fallback} (units ms, s, m, h, d)`,
        });
        return z.NEVER;
      }
      return ms;
    });

const PurgeEnv = z.object({
  SVC_PURGE_WORKER: z.enum(['true', 'false']).optional(),
  SVC_PURGE_INTERVAL: Duration('1h', 1000, '1s'),
  SVC_PURGE_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(200),
  SVC_RETAIN_IDEMPOTENCY_KEYS: Duration('24h', IDEMPOTENCY_WINDOW_MS, "24h (the spec's Idempotency-Key window)"),
  SVC_RETAIN_WEBHOOK_DELIVERIES: Duration('30d', HOUR_MS, '1h'),
  SVC_RETAIN_MAIL: Duration('30d', HOUR_MS, '1h'),
  SVC_RETAIN_SMS: Duration('7d', HOUR_MS, '1h'),
  SVC_RETAIN_SIGN_IN_CODES: Duration('1d', 0, '0s'),
});

/**
 * Returns the settings, or the problems as lines for ConfigError. `runsWorkers`: whether this
 * process runs the webhook or mail worker; the purge runs where they do unless told otherwise.
 */
export function parsePurgeConfig(
  env: Record<string, string | undefined>,
  runsWorkers: boolean,
): PurgeConfig | string[] {
  const parsed = PurgeEnv.safeParse(env);
  if (!parsed.success) return parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const e = parsed.data;
  return {
    worker: e.SVC_PURGE_WORKER === undefined ? runsWorkers : e.SVC_PURGE_WORKER === 'true',
    intervalMs: e.SVC_PURGE_INTERVAL,
    batchSize: e.SVC_PURGE_BATCH_SIZE,
    retention: {
      idempotencyKeysMs: e.SVC_RETAIN_IDEMPOTENCY_KEYS,
      webhookDeliveriesMs: e.SVC_RETAIN_WEBHOOK_DELIVERIES,
      mailMs: e.SVC_RETAIN_MAIL,
      smsMs: e.SVC_RETAIN_SMS,
      signInCodesMs: e.SVC_RETAIN_SIGN_IN_CODES,
    },
  };
}
