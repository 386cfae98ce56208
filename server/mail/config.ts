// Mail settings, read from the environment once at start (see docs/mail.md). SMTP_URL chooses
// the transport: SMTP when set, `.eml` files under SVC_DATA_DIR/mail when not.
import { z } from 'zod';
import { parseDuration } from '../shared/duration.ts';

/** Retries 1 m, 5 m, 30 m, 2 h and 12 h after the previous attempt: 6 attempts over about 15 h. */
export const DEFAULT_MAIL_RETRY_DELAYS = '1m,5m,30m,2h,12h';

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps:// = TLS from the first byte (port 465); smtp:// upgrades with STARTTLS when offered. */
  secure: boolean;
  user: string | null;
  pass: string | null;
}

/** The From without SMTP: nothing leaves the machine, so no real domain is needed. */
export const DEFAULT_MAIL_FROM = 'svc <no-reply@localhost>';

export interface MailConfig {
  /** Null: no SMTP; the worker writes each message as an `.eml` file instead. */
  smtp: SmtpSettings | null;
  /** The From header and envelope sender; required with SMTP, DEFAULT_MAIL_FROM without. */
  from: string;
  /** Run the delivery worker in this process (SVC_MAIL_WORKER); off for an API-only instance. */
  worker: boolean;
  /** Milliseconds to wait after attempt n (index n-1) before the next; attempts = length + 1. */
  retryDelaysMs: number[];
  /** How often an idle worker looks for due mail (mail written in this process wakes it at once). */
  pollMs: number;
}

const DurationList = z
  .string()
  .default(DEFAULT_MAIL_RETRY_DELAYS)
  .transform((value, ctx) => {
    const ms = value.split(',').map((p) => parseDuration(p.trim()));
    if (ms.length > 20 || ms.some((d) => d === null)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be 1 to 20 comma-separated durations like ${DEFAULT_MAIL_RETRY_DELAYS} (units ms, s, m, h, d)`,
      });
      return z.NEVER;
    }
    return ms as number[];
  });

/** `a@b.example` or `Name <a@b.example>`, one line: it becomes a header. */
const FROM = /^(?:[^\r\n<>"]{0,100}<[^\s<>@"]+@[^\s<>@"]+>|[^\s<>@"]+@[^\s<>@"]+)$/;

const MailEnv = z.object({
  // The value is never echoed in an error: it holds the SMTP password.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/?#]+(?::\d+)?\/?$/, 'must look like smtp://user:pass@host:587 or smtps://user:pass@host:465')
    .optional(),
  SVC_MAIL_FROM: z
    .string()
    .regex(FROM, 'must be an address like no-reply@example.com or "Example <no-reply@example.com>"')
    .optional(),
  SVC_MAIL_RETRY_DELAYS: DurationList,
  SVC_MAIL_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(5000),
  SVC_MAIL_WORKER: z.enum(['true', 'false']).default('true'),
});

function smtpSettings(text: string): SmtpSettings | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const secure = url.protocol === 'smtps:';
  if (!url.hostname) return null;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    user: url.username ? decodeURIComponent(url.username) : null,
    pass: url.password ? decodeURIComponent(url.password) : null,
  };
}

/** Returns the settings, or the list of problems as lines for ConfigError. */
export function parseMailConfig(env: Record<string, string | undefined>): MailConfig | string[] {
  const parsed = MailEnv.safeParse(env);
  if (!parsed.success) return parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const e = parsed.data;
  const smtp = e.SMTP_URL === undefined ? null : smtpSettings(e.SMTP_URL);
  if (e.SMTP_URL !== undefined && !smtp)
    return ['  SMTP_URL: must look like smtp://user:pass@host:587 or smtps://user:pass@host:465'];
  // A made-up sender on a real relay lands in spam or is refused: with SMTP it must be chosen.
  if (smtp && !e.SVC_MAIL_FROM)
    return ['  SVC_MAIL_FROM: required with SMTP_URL (the sender address, e.g. no-reply@example.com)'];
  return {
    smtp,
    from: e.SVC_MAIL_FROM ?? DEFAULT_MAIL_FROM,
    worker: e.SVC_MAIL_WORKER === 'true',
    retryDelaysMs: e.SVC_MAIL_RETRY_DELAYS,
    pollMs: e.SVC_MAIL_POLL_MS,
  };
}
