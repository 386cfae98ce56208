// The SMTP transport: nodemailer's pooled SMTP client. It only sends; queueing, retries and
// leases are the worker's. The password lives in the transport alone: describe() and every log
// line name the host and port only.
import nodemailer from 'nodemailer';
import type { SmtpSettings } from './config.ts';
import { mailOptions, type MailTransport } from './transport.ts';

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
      await transporter.sendMail(mailOptions(mail));
      return { file: null };
    },
    describe: () => `${settings.host}:${settings.port}`,
    close: () => transporter.close(),
  };
}
