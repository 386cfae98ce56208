// The SMTP transport: nodemailer's pooled SMTP client. It only sends; queueing, retries and
// leases are the worker's. The password lives in the transport alone: describe() and every log
// line name the host and port only.
import nodemailer from 'nodemailer';
import type { SmtpSettings } from './config.ts';
import type { MailAttachment } from './mailer.ts';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  attachments: MailAttachment[];
}

/** What a failed send means for the message: try again later, or never. */
export type SendFailure = { permanent: boolean; error: string };

export interface MailTransport {
  /** Resolves once the server accepted the message; rejects with the server's or the connection's error (see classifySendError). */
  send(mail: OutgoingMail): Promise<void>;
  /** `host:port`, for logs; never the credentials. */
  describe(): string;
  close(): void;
}

/** How long a connection, its greeting and an idle socket may take before the attempt fails (and is retried). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
export const SMTP_MAX_CONNECTIONS = 5;

export function smtpTransport(settings: SmtpSettings): MailTransport {
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections: SMTP_MAX_CONNECTIONS,
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user !== null ? { auth: { user: settings.user, pass: settings.pass ?? '' } } : {}),
    ...TIMEOUTS,
    // nodemailer's own logger would print the conversation, AUTH included.
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      await transporter.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html !== null ? { html: mail.html } : {}),
        attachments: mail.attachments.map((a) => ({
          filename: a.filename, contentType: a.contentType, content: Buffer.from(a.contentBase64, 'base64'),
          ...(a.cid !== undefined ? { cid: a.cid } : {}),
        })),
        // Exactly one recipient, whatever the headers say.
        envelope: { from: envelopeAddress(mail.from), to: [mail.to] },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    describe: () => `${settings.host}:${settings.port}`,
    close: () => transporter.close(),
  };
}

/** `Name <a@b>` -> `a@b`; a bare address stays as it is. */
export function envelopeAddress(from: string): string {
  const m = /<([^<>]+)>\s*$/.exec(from);
  return m ? m[1] : from.trim();
}

/**
 * A 5xx reply is the server refusing this message for good (unknown mailbox, policy), so it
 * fails at once. 4xx replies, timeouts and connection errors may pass: retried. A refused login
 * (EAUTH, 535) is our configuration, not the message: retried too, so fixing the password
 * delivers the queue instead of having failed it.
 */
export function classifySendError(err: unknown): SendFailure {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const code = typeof e?.responseCode === 'number' ? e.responseCode : null;
  const permanent = code !== null && code >= 500 && code < 600 && e.code !== 'EAUTH';
  const error = (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  return { permanent, error };
}
