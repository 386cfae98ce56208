// Receipts of completed payments: a donation (standalone, or riding on a ticket or product sale)
// and a product purchase each get one receipt e-mail, written to the outbox in the transaction
// that completes the payment (fulfil()), so it is sent if and only if the completion commits.
// Exactly once: fulfil() runs a checkout's handler once however often the payment is reported,
// and the receipts table is unique on the checkout besides. Paid tickets without a donation get
// their ticket e-mail instead; memberships have their own e-mails.
import type { Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { receiptEmail } from '../mail/receipt-email.ts';
import type { CheckoutRecord } from '../payments/gateway.ts';
import { accountContact } from './users.ts';

export interface IssueReceipt {
  checkout: CheckoutRecord;
  transactionId: string;
  /**
   * The donation in this payment, in minor units: `standalone` for a donation checkout, else it
   * rode on a sale as the checkout's last line item (as the checkout plans put it).
   */
  donation: { amount: number; standalone: boolean } | null;
  /** The signed-in buyer or donor: the receipt shows their account's name. */
  userId: string | null;
  /** A name given at checkout, when no account names the payer. */
  name?: string | null;
}

/** `R-000042`: the community's running number, padded so receipts sort and read alike. */
export const formatReceiptNumber = (n: number): string => `R-${String(n).padStart(6, '0')}`;

/** The community's next receipt number; the counter row stays locked until the payment commits. */
async function nextReceiptNumber(trx: Trx, communityId: string): Promise<number> {
  const row = await trx
    .insertInto('receipt_counters')
    .values({ community_id: communityId, last_number: 1 })
    .onConflict((oc) =>
      oc
        .column('community_id')
        .doUpdateSet((eb) => ({ last_number: eb(eb.ref('receipt_counters.last_number'), '+', 1) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(row.last_number);
}

/** E-mails the receipt of a completed payment, once per checkout; nothing without a buyer address. */
export async function issueReceipt(trx: Trx, input: IssueReceipt): Promise<void> {
  const { checkout } = input;
  const to = checkout.customerEmail;
  if (!to) return;
  const already = await trx
    .selectFrom('receipts')
    .select('id')
    .where('checkout_session_id', '=', checkout.id)
    .executeTakeFirst();
  if (already) return;
  const community = await trx
    .selectFrom('communities')
    .select(['id', 'name'])
    .where('id', '=', checkout.communityId)
    .executeTakeFirst();
  if (!community) return;
  const number = await nextReceiptNumber(trx, community.id);
  const issuedAt = nowIso();
  await trx
    .insertInto('receipts')
    .values({
      id: newId(),
      community_id: community.id,
      number,
      checkout_session_id: checkout.id,
      email: to,
      issued_at: issuedAt,
    })
    .execute();
  const account = input.userId ? await accountContact(trx, input.userId) : null;
  const donationLine = checkout.lineItems[checkout.lineItems.length - 1];
  await new OutboxMailer(trx).send(
    receiptEmail({
      community: { name: community.name },
      to,
      payerName: account?.name ?? input.name ?? null,
      receiptNumber: formatReceiptNumber(number),
      issuedAt,
      paymentReference: input.transactionId,
      currency: checkout.currency,
      lines: checkout.lineItems.map((l) => ({ name: l.name, quantity: l.quantity, amount: l.unitAmount * l.quantity })),
      total: checkout.amountTotal,
      donation: input.donation ? { ...input.donation, designation: donationLine.name } : null,
    }),
  );
}
