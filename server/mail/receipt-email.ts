// The receipt of a completed payment: a donation on its own, or a purchase (products, or tickets
// with a donation) with what was bought line by line. Whenever the payment carries a donation,
// the e-mail has what a donor keeps for their records: donor, recipient, amount, date, receipt
// number and payment reference, and for a donation on its own the statement that nothing was
// given in exchange for it (a donation made with a purchase says which part was the donation).
import { formatMoney, formatUtc } from './format.ts';
import type { MailMessage } from './mailer.ts';
import { escapeHtml } from '../shared/html.ts';

export interface ReceiptLine {
  name: string;
  quantity: number;
  /** Minor units, for the whole line. */
  amount: number;
}

export interface ReceiptEmailInput {
  community: { name: string };
  to: string;
  /** The payer's name when known (a signed-in member's account, a name given at checkout). */
  payerName: string | null;
  /** As shown: `R-000042`. */
  receiptNumber: string;
  issuedAt: string;
  /** The payment processor's id of the payment. */
  paymentReference: string;
  currency: string;
  lines: ReceiptLine[];
  total: number;
  /** The donation in this payment; `standalone` when the payment is the donation alone. */
  donation: { amount: number; standalone: boolean; designation: string } | null;
}

export const NO_GOODS_OR_SERVICES = 'No goods or services were provided in exchange for this donation.';

type Row = [label: string, value: string];

const rowsText = (rows: Row[]) => rows.map(([label, value]) => `${label}: ${value}`);
const rowsHtml = (rows: Row[]) =>
  `<table style="border-collapse:collapse">${rows
    .map(
      ([label, value]) =>
        `<tr><th scope="row" style="text-align:left;padding:2px 16px 2px 0;font-weight:600">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('')}</table>`;

/** What the donation was given in exchange for: nothing, or (with a sale) which part is the donation. */
function donationStatement(
  donation: { amount: number; standalone: boolean },
  total: number,
  money: (minor: number) => string,
): string {
  if (donation.standalone) return NO_GOODS_OR_SERVICES;
  const rest = total - donation.amount;
  return rest > 0
    ? `This donation was made with a purchase of ${money(rest)} in the same payment; only ${money(donation.amount)} of it is a donation.`
    : 'This donation was made with a free order in the same payment; the whole payment is the donation.';
}

export function receiptEmail(input: ReceiptEmailInput): MailMessage {
  const money = (minor: number) => formatMoney(minor, input.currency);
  const community = input.community.name;
  const payer = input.payerName ? `${input.payerName} <${input.to}>` : input.to;
  const donationOnly = input.donation?.standalone === true;
  // A subject is one header line: a stray line break in a name must not stop a payment completing.
  const subject = (
    donationOnly ? `Receipt for your donation to ${community}` : `Your receipt from ${community}`
  ).replace(/\s+/g, ' ');
  const thanks = donationOnly
    ? `Thank you for your donation to ${community}.`
    : `Thank you for your payment to ${community}.`;
  const receipt: Row[] = [
    ['Receipt no.', input.receiptNumber],
    ['Date', formatUtc(input.issuedAt)],
    ['Payment reference', input.paymentReference],
  ];

  const purchase: Row[] = donationOnly
    ? []
    : [
        ...input.lines.map((l): Row => [l.quantity > 1 ? `${l.name} × ${l.quantity}` : l.name, money(l.amount)]),
        ['Total paid', money(input.total)],
      ];
  const donation = input.donation;
  const record: Row[] = donation
    ? [
        ['Donor', payer],
        ['Recipient', community],
        ['For', donation.designation],
        ['Amount donated', money(donation.amount)],
      ]
    : [['Paid by', payer]];
  const statement = donation ? donationStatement(donation, input.total, money) : null;
  const keep = 'Keep this e-mail for your records.';

  const text = [
    thanks,
    '',
    ...rowsText(receipt),
    '',
    ...(purchase.length ? [...rowsText(purchase), ''] : []),
    ...(donation && !donationOnly ? ['Donation', ''] : []),
    ...rowsText(record),
    '',
    ...(statement ? [statement, ''] : []),
    keep,
    '',
    community,
  ].join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1b1d21">
<h1 style="font-size:20px">${escapeHtml(community)}</h1>
<p>${escapeHtml(thanks)}</p>
${rowsHtml(receipt)}
${purchase.length ? rowsHtml(purchase) : ''}
${donation && !donationOnly ? '<h2 style="font-size:16px">Donation</h2>' : ''}
${rowsHtml(record)}
${statement ? `<p>${escapeHtml(statement)}</p>` : ''}
<p>${escapeHtml(keep)}</p>
</body></html>
`;
  return { to: input.to, subject, text: `${text}\n`, html };
}
