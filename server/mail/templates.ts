// The e-mails the platform sends, as plain text (what matters) and a small HTML version. Every
// value put into the HTML is escaped; links are built by the caller from trusted origins only.
import { escapeHtml } from '../shared/html.ts';
import type { MailMessage } from './mailer.ts';

function html(title: string, paragraphs: string[], link?: { href: string; label: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const button = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>\n` : '';
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n${body}\n${button}</body></html>\n`;
}

export function passwordResetMail(opts: {
  to: string;
  siteName: string;
  link: string;
  expiresInMinutes: number;
}): MailMessage {
  const subject = `Reset your ${opts.siteName} password`;
  const intro = `Someone (hopefully you) asked to reset the password of the ${opts.siteName} account for ${opts.to}.`;
  const action = `The link works once, within ${opts.expiresInMinutes} minutes.`;
  const ignore = 'If you did not ask for this, ignore this e-mail: your password stays as it is.';
  return {
    to: opts.to,
    subject,
    text: `${intro}\n\nChoose a new password here:\n${opts.link}\n\n${action}\n\n${ignore}\n`,
    html: html(subject, [intro, action, ignore], { href: opts.link, label: 'Choose a new password' }),
    secret: true,
  };
}

/** Sent to an existing account's address when someone tries to sign up with it. */
export function signUpAttemptMail(opts: {
  to: string;
  siteName: string;
  signInLink: string;
  resetLink: string;
}): MailMessage {
  const subject = `Someone tried to create a ${opts.siteName} account with your e-mail`;
  const intro = `Someone tried to create a new ${opts.siteName} account for ${opts.to}, but this address already has one.`;
  const yours = `If it was you, sign in at ${opts.signInLink} or, if you have forgotten your password, reset it at ${opts.resetLink}.`;
  const ignore = 'If it was not you, you can ignore this e-mail: nothing has changed.';
  return {
    to: opts.to,
    subject,
    text: `${intro}\n\n${yours}\n\n${ignore}\n`,
    html: html(subject, [intro, yours, ignore]),
  };
}
