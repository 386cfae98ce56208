// `svc payments renew` and `svc payments lapse`: the local gateway's stand-in for Stripe's
// subscription billing, so every billing cycle can be tried (and shown in the demo) offline.
// `renew` bills the next period of a local purchase now, through the same handler hook as Stripe's
// invoice.paid; `lapse` ends memberships whose paid access is over. See docs/payments.md.
import type { Command } from 'commander';
import type { Db } from '../db/index.ts';
import {
  dueLocalBillings,
  lapseExpired,
  localBillingOf,
  renewLocally,
  type LocalRenewal,
} from '../domain/membership-payments.ts';
import { ticketCodesFor } from '../domain/ticket-codes.ts';
import { fulfilmentHandlers } from '../payments/handlers.ts';
import { Payments } from '../payments/payments.ts';
import type { Config } from '../config.ts';
import { CliError, out, printJson, table, withDatabase, type JsonOption } from './runtime.ts';

/** Payments without a gateway: renewals need no processor, only the handlers. */
export function paymentsForRenewals(db: Db, config: Config): Payments {
  return new Payments({
    db,
    gateway: null,
    handlers: fulfilmentHandlers({ ticketCodes: ticketCodesFor(config) }),
    config: config.payments,
  });
}

/** Renews one membership's local purchase, or every one that is due. */
export async function renewCommand(
  db: Db,
  config: Config,
  target: { membershipId?: string; due?: boolean },
): Promise<LocalRenewal[]> {
  if (config.payments.gateway !== 'local') {
    throw new CliError(
      `renewals are simulated only with the local gateway (SVC_PAYMENTS=local); this configuration uses ${config.payments.gateway}` +
        (config.payments.gateway === 'stripe' ? ': Stripe bills them itself and tells us with invoice.paid' : ''),
    );
  }
  const payments = paymentsForRenewals(db, config);
  if (target.due) {
    const done: LocalRenewal[] = [];
    for (const b of await dueLocalBillings(db)) {
      const r = await renewLocally(db, payments, b);
      if (r) done.push(r);
    }
    return done;
  }
  const billing = await localBillingOf(db, target.membershipId!);
  if (!billing)
    throw new CliError(`membership ${target.membershipId} has no active purchase made through the local gateway`);
  const r = await renewLocally(db, payments, billing);
  if (!r)
    throw new CliError(
      `membership ${target.membershipId} has nothing more to bill (a one-time purchase, or a finished plan)`,
    );
  return [r];
}

export function registerPaymentsCommands(program: Command): void {
  const payments = program
    .command('payments')
    .description('Membership billing with the local gateway (SVC_PAYMENTS=local).');
  payments
    .command('renew')
    .description(
      "Bill the next period of a membership now (or of every one due with --due), as Stripe's invoice.paid would.",
    )
    .argument('[membershipId]', 'the membership to bill')
    .option('--due', 'every local purchase whose next charge is due')
    .option('--json', 'print JSON')
    .action(async (membershipId: string | undefined, opts: JsonOption & { due?: boolean }) => {
      if (!membershipId && !opts.due) throw new CliError('give a membership id, or --due');
      const done = await withDatabase((db, ctx) => renewCommand(db, ctx.config, { membershipId, due: opts.due }));
      if (opts.json) return printJson(done);
      if (done.length === 0) return out('nothing due');
      out(
        table(
          ['membership', 'charged', 'access until', 'plan'],
          done.map((r) => [
            r.membershipId,
            String(r.amount),
            r.accessUntil ?? 'no end',
            r.stopped ? 'finished' : 'continues',
          ]),
        ),
      );
    });
  payments
    .command('lapse')
    .description('End the memberships whose paid access is over (a kick with reason "access ended").')
    .action(async () => {
      const n = await withDatabase((db) => lapseExpired(db));
      out(`${n} membership${n === 1 ? '' : 's'} ended`);
    });
}
