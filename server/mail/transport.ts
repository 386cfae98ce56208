// What the delivery worker hands a transport, and the one place a stored message becomes
// nodemailer's message: the SMTP transport and the `.eml` file transport both compose from
// mailOptions(), so a file holds exactly the MIME an SMTP server would have received.
import type { SendMailOptions } from 'nodemailer';
import type { MailAttachment } from './mailer.ts';

export interface OutgoingMail {
  /** The outbox row's id and time of writing: they name the `.eml` file and date the message. */
  id: string;
  createdAt: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  attachments: MailAttachment[];
  /** Headers of its own (a broadcast's List-Unsubscribe and List-Unsubscribe-Post); values one line each. */
  headers?: Record<string, string>;
}

export interface SendResult {
  /** The `.eml` file written (absolute path); null when the message went out over SMTP. */
  file: string | null;
}

/** What a failed send means for the message: try again later, or never. */
export type SendFailure = { permanent: boolean; error: string };

export interface MailTransport {
  /** Resolves once the message is delivered (accepted by the server, or on disk); rejects with the reason (see classifySendError). */
  send(mail: OutgoingMail): Promise<SendResult>;
  /** `host:port` or `files in <dir>`, for logs; never credentials. */
  describe(): string;
  close(): void;
}

/** `Name <a@b>` -> `a@b`; a bare address stays as it is. */
export function envelopeAddress(from: string): string {
  const m = /<([^<>]+)>\s*$/.exec(from);
  return m ? m[1] : from.trim();
}

/** A line break in a value would start another header: refused, never sent. */
function oneLineHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers))
    if (!/^[A-Za-z0-9-]+$/.test(name) || /[\r\n\0]/.test(value))
      throw new Error(`mail header ${name} must be one line`);
  return headers;
}

export function mailOptions(mail: OutgoingMail): SendMailOptions {
  return {
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    // The origination date (RFC 5322 3.6.1) is when the message was written, not when a retry got it out.
    date: new Date(mail.createdAt),
    text: mail.text,
    ...(mail.html !== null ? { html: mail.html } : {}),
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: Buffer.from(a.contentBase64, 'base64'),
      ...(a.cid !== undefined ? { cid: a.cid } : {}),
    })),
    ...(mail.headers ? { headers: oneLineHeaders(mail.headers) } : {}),
    // Exactly one recipient, whatever the headers say.
    envelope: { from: envelopeAddress(mail.from), to: [mail.to] },
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * A 5xx reply is the server refusing this message for good (unknown mailbox, policy), so it
 * fails at once. 4xx replies, timeouts, connection errors and disk errors may pass: retried. A
 * refused login (EAUTH, 535) is our configuration, not the message: retried too, so fixing the
 * password delivers the queue instead of having failed it.
 */
export function classifySendError(err: unknown): SendFailure {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const code = typeof e?.responseCode === 'number' ? e.responseCode : null;
  const permanent = code !== null && code >= 500 && code < 600 && e.code !== 'EAUTH';
  const error = (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  return { permanent, error };
}
