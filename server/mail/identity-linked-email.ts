// Told to an account's owner whenever a Google / Slack / Discord account is linked to it: a linked
// provider account signs in everywhere (the platform and every community), so a link its owner did
// not make must not go unnoticed. Links are built by the caller from the platform's public URL.
import type { MailMessage } from './mailer.ts';
import { escapeHtml } from '../shared/html.ts';

export interface IdentityLinkedMailInput {
  to: string;
  siteName: string;
  /** Display name: `Google`. */
  providerName: string;
  /** Path segment: `google`. */
  provider: string;
  /** The platform's public URL, no trailing slash. */
  platformUrl: string;
  /** Linked by e-mail match, which removed the account's password (and phone and other identities). */
  credentialsRemoved: boolean;
}

export function identityLinkedMail(opts: IdentityLinkedMailInput): MailMessage {
  const subject = `${opts.providerName} was linked to your ${opts.siteName} account`;
  const signIn = `${opts.platformUrl}/sign-in`;
  const reset = `${opts.platformUrl}/reset-password`;
  const paragraphs = [
    `A ${opts.providerName} account was linked to the ${opts.siteName} account for ${opts.to}. ` +
      `It now signs in to this account on ${opts.siteName} and on every community site.`,
    ...(opts.credentialsRemoved
      ? [
          `This was the first sign-in with ${opts.providerName} to confirm this address, so everything that could sign in ` +
            'without it was removed: the password, the phone number and any other linked sign-in. Every session was signed ' +
            `out. To use a password again, choose one at ${reset}.`,
        ]
      : []),
    'If this was not you, remove the link and lock out whoever made it: ' +
      `sign in at ${signIn}, remove ${opts.providerName} from your account ` +
      `(DELETE ${opts.platformUrl}/api/auth/oauth/${opts.provider}/link), then reset your password at ${reset}, ` +
      'which signs out every session.',
  ];
  return {
    to: opts.to,
    subject,
    text: `${paragraphs.join('\n\n')}\n`,
    html:
      `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n` +
      `${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}\n</body></html>\n`,
  };
}
