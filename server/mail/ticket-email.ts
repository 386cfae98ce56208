// The ticket e-mail: one QR code per ticket, attached as an inline image (cid:) so mail clients
// that block remote and data: images still show it, plus each ticket's code as text.
import type { MailMessage } from './mailer.ts';
import { formatUtc } from './format.ts';
import { escapeHtml } from '../shared/html.ts';

export interface TicketEmailInput {
  community: { name: string; brandColor: string | null };
  to: string;
  name: string;
  event: { name: string; start_date: string };
  tierName: string;
  /** `qrPng` is base64. */
  tickets: Array<{ id: string; code: string; qrPng: string }>;
}

const SAFE_COLOR = /^#[0-9a-fA-F]{3,8}$/;

export function ticketEmail(input: TicketEmailInput): MailMessage {
  const n = input.tickets.length;
  const subject = `Your ${n > 1 ? `${n} tickets` : 'ticket'} for ${input.event.name}`;
  // The brand colour comes from community settings: only a plain hex colour reaches the markup.
  const brand =
    input.community.brandColor && SAFE_COLOR.test(input.community.brandColor) ? input.community.brandColor : '#1b1d21';
  const intro = `Hi ${input.name}, you are going to ${input.event.name} (${input.tierName}) on ${formatUtc(input.event.start_date)}.`;
  const show = n > 1 ? 'Show one QR code per person at the door.' : 'Show this QR code at the door.';
  const text = [
    intro,
    '',
    show,
    '',
    ...input.tickets.map((t, i) => `Ticket ${i + 1}: ${t.code}`),
    '',
    `${input.community.name}`,
  ].join('\n');
  const blocks = input.tickets
    .map(
      (t, i) => `<div style="margin:16px 0"><p style="margin:0 0 4px">Ticket ${i + 1}</p>
<img src="cid:ticket-${escapeHtml(t.id)}" width="240" height="240" alt="QR code of ticket ${i + 1}">
<p style="font-family:monospace;font-size:12px;word-break:break-all">${escapeHtml(t.code)}</p></div>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1b1d21">
<h1 style="color:${brand};font-size:20px">${escapeHtml(input.community.name)}</h1>
<p>${escapeHtml(intro)}</p>
<p>${escapeHtml(show)}</p>
${blocks}
</body></html>
`;
  return {
    to: input.to,
    subject,
    text,
    html,
    attachments: input.tickets.map((t, i) => ({
      filename: `ticket-${i + 1}.png`,
      contentType: 'image/png',
      contentBase64: t.qrPng,
      cid: `ticket-${t.id}`,
    })),
  };
}
