// The e-mails an applicant gets: received (waiting for review), approved, not accepted. None of
// them ever carries the reviewer's internal reason: the caller does not even pass it.
import type { MailMessage } from './mailer.ts';
import { escapeHtml } from '../shared/html.ts';

export interface MembershipEmailInput {
  community: { name: string };
  to: string;
  name: string;
  segmentName: string;
}

export type MembershipEmailKind = 'received' | 'approved' | 'rejected' | 'joined';

function compose(input: MembershipEmailInput, subject: string, paragraphs: string[]): MailMessage {
  const lines = [`Hi ${input.name},`, ...paragraphs, input.community.name];
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1b1d21">
${lines.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
</body></html>
`;
  return { to: input.to, subject, text: `${lines.join('\n\n')}\n`, html };
}

export function membershipEmail(kind: MembershipEmailKind, input: MembershipEmailInput): MailMessage {
  const { name: community } = input.community;
  switch (kind) {
    case 'received':
      return compose(input, `We received your application to ${community}`, [
        `Thank you for applying to join ${community} (${input.segmentName}).`,
        'Your application is waiting for review; we will e-mail you when it has been decided.',
      ]);
    case 'approved':
      return compose(input, `Welcome to ${community}`, [
        `Your membership of ${community} (${input.segmentName}) was approved. Welcome!`,
      ]);
    case 'joined':
      // By an invite link (server/domain/invites.ts): no review happened, so nothing was "approved".
      return compose(input, `Welcome to ${community}`, [
        `You joined ${community} with an invite link${input.segmentName ? ` (${input.segmentName})` : ''}. Welcome!`,
      ]);
    case 'rejected':
      return compose(input, `Your application to ${community}`, [
        `Thank you for your interest in ${community}. Your application (${input.segmentName}) was not accepted.`,
      ]);
  }
}
