// One recipient's copy of a broadcast, made when the mail worker sends it (merge at send): the
// outbox row holds only the recipient's merge fields, the body is the broadcast's, so 50,000
// recipients never store 50,000 copies of the HTML (docs/decisions/0029-broadcasts-merge-at-send.md).
//
// `{{name}}` (spaces inside the braces allowed) is the only placeholder: HTML-escaped in the html,
// as it is in the text, one line in the subject. Every copy ends with the unsubscribe footer and
// carries List-Unsubscribe (the page's URL and a mailto) and List-Unsubscribe-Post (RFC 8058).
import { escapeHtml } from '../shared/html.ts';

const NAME = /\{\{\s*name\s*\}\}/g;

export interface MergeFields {
  /** The recipient's account name (a test send: the account with that address, else its local part). */
  name: string;
  /** The unsubscribe page with this recipient's signed token (server/broadcasts/unsubscribe-token.ts). */
  unsubscribeUrl: string;
}

/** What rendering needs of the broadcast row (and its community's name, for the footer). */
export interface BroadcastBody {
  subject: string;
  html: string | null;
  text: string;
  communityName: string;
  /** A test send: the footer says its link changes nothing. */
  test: boolean;
}

export interface RenderedBroadcastMail {
  text: string;
  html: string | null;
  headers: Record<string, string>;
}

/** A subject on one line: a line break in a header would start another header. */
const oneLine = (s: string): string => s.replace(/[\r\n\0]+/g, ' ').trim();

/** The subject as the outbox stores it: `{{name}}` replaced, "[TEST] " in front of a test's, one line. */
export function renderSubject(subject: string, name: string, test: boolean): string {
  // A function replacement: `$&` or `$1` in a name stays literal.
  return oneLine(`${test ? '[TEST] ' : ''}${subject.replace(NAME, () => oneLine(name))}`);
}

/** The html with `{{name}}` HTML-escaped (a name is the member's to write: `<script>` stays text). */
export function mergeHtml(html: string, name: string): string {
  return html.replace(NAME, () => escapeHtml(name));
}

export function mergeText(text: string, name: string): string {
  return text.replace(NAME, () => name);
}

/** The token from the unsubscribe URL (what the mailto's subject carries). */
function tokenOf(unsubscribeUrl: string): string {
  return new URL(unsubscribeUrl).searchParams.get('token') ?? '';
}

/** `mailto:<from address>?subject=unsubscribe%20<token>`: applied by an operator (`svc broadcasts unsubscribe`). */
export function unsubscribeMailto(fromAddress: string, unsubscribeUrl: string): string {
  return `mailto:${fromAddress}?subject=${encodeURIComponent(`unsubscribe ${tokenOf(unsubscribeUrl)}`)}`;
}

export function renderBroadcastMail(
  body: BroadcastBody,
  fields: MergeFields,
  fromAddress: string,
): RenderedBroadcastMail {
  const url = fields.unsubscribeUrl;
  const why = body.test
    ? 'This is a test copy of a broadcast; its unsubscribe link changes nothing.'
    : `You receive this as a member of ${body.communityName}.`;
  const text = `${mergeText(body.text, fields.name).replace(/\s+$/, '')}\n\n-- \n${why}\nUnsubscribe from these e-mails: ${url}\n`;
  const html =
    body.html === null
      ? null
      : `${mergeHtml(body.html, fields.name)}
<hr style="border:none;border-top:1px solid #ddd;margin:2em 0 1em">
<p style="font-size:12px;color:#666">${escapeHtml(why)} <a href="${escapeHtml(url)}">Unsubscribe from these e-mails</a>.</p>`;
  return {
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${url}>, <${unsubscribeMailto(fromAddress, url)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
