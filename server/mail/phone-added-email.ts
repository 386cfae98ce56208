// Sent to the account's address when a phone number is added: a phone signs in, so the owner
// hears about it even when someone else did it with their session.
import type { MailMessage } from './mailer.ts';
import { escapeHtml } from '../shared/html.ts';

/** `+14155550142` -> `+1 *** *** 0142`: enough to recognise, not to harvest. */
function masked(phone: string): string {
  return `${phone.slice(0, 2)} *** *** ${phone.slice(-4)}`;
}

export function phoneAddedMail(opts: { to: string; phone: string; siteName: string }): MailMessage {
  const subject = `A phone number was added to your ${opts.siteName} account`;
  const what = `The number ${masked(opts.phone)} can now sign in to the ${opts.siteName} account for ${opts.to} with a texted code.`;
  const undo =
    'If this was not you, sign in, remove the number (DELETE /api/users/me/phone from a fresh platform session), and change your password.';
  return {
    to: opts.to,
    subject,
    text: `${what}\n\n${undo}\n`,
    html: `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n<p>${escapeHtml(what)}</p>\n<p>${escapeHtml(undo)}</p>\n</body></html>\n`,
  };
}
