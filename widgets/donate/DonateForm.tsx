// The donate form: the amount chips (a native radio group: Tab enters it, arrows move and
// choose), in pay-what-you-want a custom amount with its minimum, the e-mail of an anonymous
// donor, and the button that opens the checkout. Checked here first, then by the server, whose
// refusals land next to the input they are about.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { DonationConfig } from '../../contract/resources.ts';
import { roundTripUrls } from '../rsvp/checkout-return.ts';
import type { EmbedConfig } from '../lib/contract.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import type { SessionUser } from '../lib/session.ts';
import { DonateError, donatePath, postDonation, problemFrom, type TargetKind } from './action.ts';
import { formatAmount } from './money.ts';
import { Popover } from './Popover.tsx';
import { chipAmounts, chosenAmount, donateBody, EMAIL, minimumOf } from './rules.ts';

/** `svc:donate:checkout` */
export interface CheckoutDetail {
  sessionId: string;
  checkoutUrl: string;
  amount: number;
  currency: string;
}

type Errors = { amount?: string; email?: string };

export interface DonateFormProps {
  kind: TargetKind;
  targetKey: string;
  donation: DonationConfig;
  currency: string;
  config: EmbedConfig;
  locale: string | undefined;
  /** The signed-in visitor on the hosted site (donates as themselves), else null. */
  donor: SessionUser | null;
  emit: WidgetProps['emit'];
}

export function DonateForm({ kind, targetKey, donation, currency, config, locale, donor, emit }: DonateFormProps) {
  const id = `svc-donate-${useId()}`;
  const [chip, setChip] = useState<number | null>(null);
  const [custom, setCustom] = useState('');
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const focus = useRef<keyof Errors | null>(null);

  const pwyw = donation.mode === 'pwyw';
  const minimum = minimumOf(donation);
  const chips = chipAmounts(donation);
  const money = (minor: number, short?: boolean) => formatAmount(minor, currency, locale, short);
  const choice = chosenAmount(donation, currency, locale, { chip, custom });
  const amount = 'amount' in choice ? choice.amount : null;

  // Hydrated onto the server's form (the hosted site): a chip chosen or an amount or e-mail typed
  // before the script arrived is in the DOM, which hydration leaves as it is, but in no state, so
  // the form would show one amount and send another (or none). It is taken in once. (On a fresh
  // render the DOM holds exactly the state, and nothing changes.)
  useLayoutEffect(() => {
    const el = form.current;
    if (!el) return;
    const input = (selector: string) => el.querySelector<HTMLInputElement>(selector);
    const checked = input(`input[name="${id}-amount"]:checked`);
    if (checked && chips.includes(Number(checked.value))) setChip(Number(checked.value));
    const typed = input(`input[id="${id}-custom"]`)?.value ?? '';
    if (typed) setCustom(typed);
    const mail = input(`input[id="${id}-email"]`)?.value ?? '';
    if (mail) setEmail(mail);
  }, []);

  useEffect(() => {
    // After a refused submit: the first input with a problem, so its message is read out.
    const key = focus.current;
    focus.current = null;
    if (key) form.current?.querySelector<HTMLElement>(`[data-key="${key}"]`)?.focus();
  });

  const fail = (found: Errors, message: string | null) => {
    setErrors(found);
    setFormError(message);
    focus.current = found.amount ? 'amount' : found.email ? 'email' : null;
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    if (busy) return;
    const found: Errors = {};
    if ('problem' in choice) found.amount = choice.problem;
    if (!donor && !(EMAIL.test(email.trim()) && email.trim().length <= 254))
      found.email = 'Enter an e-mail address like name@example.com.';
    if (amount === null || found.email) return fail(found, null);
    setBusy(true);
    setFormError(null);
    try {
      const body = donateBody(
        amount,
        donor ? null : email,
        roundTripUrls(location.href, {
          state: 'svc_donate',
          owner: [kind === 'product' ? 'svc_sku' : 'svc_event', targetKey],
        }),
      );
      const res = await postDonation(config, donatePath(config.community, kind, targetKey), body);
      // The host page may take the donor there itself (a SPA, a new tab): preventDefault() keeps us still.
      const go = emit<CheckoutDetail>(
        'checkout',
        { sessionId: res.sessionId, checkoutUrl: res.checkoutUrl, amount, currency },
        true,
      );
      if (go && /^https?:\/\//i.test(res.checkoutUrl)) location.assign(res.checkoutUrl);
      else setBusy(false);
    } catch (err) {
      setBusy(false);
      const error = err instanceof DonateError ? err : new DonateError('Unexpected error', 0, undefined, undefined);
      const problem = problemFrom(error, currency, locale, !donor);
      fail(problem.field ? { [problem.field]: problem.message } : {}, problem.field ? null : problem.message);
      emit('error', {
        action: 'donate',
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
    }
  };

  // A message goes once its input is edited; the next submit brings it back if still wrong.
  const clear = (key: keyof Errors) => {
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const amountError = errors.amount && (
    <p class="field-error" part="field-error" id={`${id}-amount-error`}>
      {errors.amount}
    </p>
  );
  const invalid = (key: keyof Errors) => (errors[key] ? 'true' : undefined);

  return (
    <form class="form" part="form" noValidate onSubmit={submit} ref={form}>
      <fieldset
        class="amounts"
        part="amounts"
        aria-describedby={!pwyw && errors.amount ? `${id}-amount-error` : undefined}
      >
        <legend class="legend" part="legend">
          {donation.label?.trim() || 'Choose an amount'}
        </legend>
        <div class="chips" part="chips">
          {chips.map((a, i) => (
            <label class="chip" part="chip" key={a}>
              <input
                type="radio"
                name={`${id}-amount`}
                value={String(a)}
                checked={chip === a && (!pwyw || custom.trim() === '')}
                data-key={i === 0 && !pwyw ? 'amount' : undefined}
                aria-invalid={!pwyw ? invalid('amount') : undefined}
                onChange={() => {
                  setChip(a);
                  setCustom('');
                  clear('amount');
                }}
              />
              <span>{money(a, true)}</span>
            </label>
          ))}
        </div>
        {!pwyw && amountError}
        {pwyw && (
          <div class="field" part="field custom">
            <label for={`${id}-custom`}>Other amount ({currency})</label>
            <div class="row">
              <input
                id={`${id}-custom`}
                type="text"
                inputMode="decimal"
                autocomplete="off"
                data-key="amount"
                value={custom}
                aria-invalid={invalid('amount')}
                aria-describedby={`${id}-min${errors.amount ? ` ${id}-amount-error` : ''}`}
                onInput={(e) => {
                  setCustom((e.currentTarget as HTMLInputElement).value);
                  clear('amount');
                }}
              />
              <Popover
                label="?"
                title="Why is there a minimum?"
                triggerClass="secondary info"
                triggerPart="info"
                panelPart="info-panel"
              >
                <p>
                  Gifts here start at {money(minimum!)}. Every card payment carries a fixed processing fee, so the
                  minimum keeps most of each gift for the cause.
                </p>
              </Popover>
            </div>
            <p class="help" part="minimum" id={`${id}-min`}>
              Minimum {money(minimum!)}
            </p>
            {amountError}
          </div>
        )}
      </fieldset>
      {donor ? (
        <p class="help" part="donor">
          Donating as {donor.name || `@${donor.usertag}`}.
        </p>
      ) : (
        <div class="field" part="field">
          <label for={`${id}-email`}>E-mail</label>
          <input
            id={`${id}-email`}
            type="email"
            autocomplete="email"
            required
            data-key="email"
            value={email}
            aria-invalid={invalid('email')}
            aria-describedby={`${id}-email-help${errors.email ? ` ${id}-email-error` : ''}`}
            onInput={(e) => {
              setEmail((e.currentTarget as HTMLInputElement).value);
              clear('email');
            }}
          />
          <p class="help" id={`${id}-email-help`}>
            For your receipt.
          </p>
          {errors.email && (
            <p class="field-error" part="field-error" id={`${id}-email-error`}>
              {errors.email}
            </p>
          )}
        </div>
      )}
      <button type="submit" class="primary submit" part="submit" aria-busy={busy ? 'true' : undefined}>
        {/* Never just "Donate": in mode="button" that names the button that opened this form. */}
        {amount === null ? 'Continue to payment' : `Donate ${money(amount)}`}
      </button>
      {formError && (
        <p class="form-error" part="error" role="alert">
          {formError}
        </p>
      )}
      <p class="visually-hidden" role="status">
        {busy ? 'Opening the checkout…' : ''}
      </p>
    </form>
  );
}
