import { useId, useLayoutEffect, useState } from 'preact/hooks';
import type { Event, Tier } from '../../contract/resources.ts';
import type { EmbedConfig } from '../lib/contract.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { formatMoney } from '../lib/format.ts';
import { Field } from '../lib/forms/Field.tsx';
import { Notice } from '../lib/forms/shell.tsx';
import { useForm } from '../lib/forms/use-form.ts';
import { ActionError, actionPath, postAction } from './actions.ts';
import { claimCheckoutReturn, returnUrls } from './checkout-return.ts';
import { Confirmation } from './Confirmation.tsx';
import { checkAll, checkoutRequest, fieldsFor, initialValues, problemFrom, rsvpRequest, type Errors } from './form.ts';
import type { RsvpStore } from './store.ts';
import { TierPicker } from './TierPicker.tsx';
import { hasEnded, isFree, isOpen, maxQuantity } from './tiers.ts';

/** `svc:rsvp:confirmed` */
export interface ConfirmedDetail {
  rsvpId: string;
  tierId: string;
  event: string;
}
/** `svc:rsvp:checkout` */
export interface CheckoutDetail {
  sessionId: string;
  checkoutUrl: string;
}

interface Ticket {
  rsvpId: string;
  tierId: string;
  qrCode: string;
  email: string;
}

export interface BookingProps {
  store: RsvpStore;
  event: Event;
  config: EmbedConfig;
  locale: string | undefined;
  emit: WidgetProps['emit'];
}

export function Booking({ store, event, config, locale, emit }: BookingProps) {
  const slug = store.slug;
  const idBase = `svc-rsvp-${useId()}`;
  const [returned] = useState(() => claimCheckoutReturn(slug));
  const [tierId, setTierId] = useState<string | null>(null);
  const { values, setValues, errors, setErrors, formError, setFormError, formRef, change, fail: refuse } = useForm();
  const [busy, setBusy] = useState(false);
  const [ticket, setTicket] = useState<Ticket | null>(null);

  const ssr = store.seed?.ssr;
  const tiers = store.tiers.value;
  const tier = tiers.find((t) => t.id === tierId) ?? null;
  const formState = tier ? store.forms.value[tier.id] : undefined;
  const schema = formState?.status === 'ready' ? formState.schema : [];
  const fields = tier ? fieldsFor(tier, schema) : [];

  const choose = (next: Tier) => {
    setTierId(next.id);
    // The attendee's name and e-mail carry over to another tier; its own answers do not.
    setValues({
      ...(values.name ? { name: values.name } : {}),
      ...(values.email ? { email: values.email } : {}),
      ...initialValues(next),
    });
    setErrors({});
    setFormError(null);
    void store.loadForm(next);
  };

  // Hydrated onto the server's form (the hosted site; only it gives a seed): a tier the visitor
  // chose before the script arrived is checked in the DOM, which hydration leaves as it is, but
  // chosen in no state, so it would stay checked with no form under it (and choosing it again
  // fires no change). It is taken in once, as if chosen now.
  useLayoutEffect(() => {
    if (!store.seed) return;
    const checked = formRef.current?.querySelector<HTMLInputElement>('input[name="tierId"]:checked');
    const chosen = checked && tiers.find((t) => t.id === checked.value);
    if (chosen && isOpen(chosen)) choose(chosen);
  }, []);

  const fail = (found: Errors, message: string | null) =>
    refuse(
      found,
      message,
      fields.map((f) => f.key),
    );

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    if (!tier || busy || formState?.status !== 'ready') return;
    const found = checkAll(fields, values, tier);
    if (Object.keys(found).length) return fail(found, null);
    setBusy(true);
    setFormError(null);
    try {
      if (isFree(tier)) {
        const body = rsvpRequest(tier, schema, values);
        const res = await postAction<{ rsvpId: string; tierId: string; qrCode: string }>(
          config,
          actionPath(config.community, slug, 'rsvp'),
          body,
        );
        setTicket({ rsvpId: res.rsvpId, tierId: res.tierId, qrCode: res.qrCode, email: body.email });
        setBusy(false);
        emit<ConfirmedDetail>('confirmed', { rsvpId: res.rsvpId, tierId: res.tierId, event: slug });
        return;
      }
      const body = checkoutRequest(tier, schema, values, returnUrls(location.href, slug));
      const res = await postAction<CheckoutDetail>(config, actionPath(config.community, slug, 'checkout'), body);
      // The host page may take the buyer there itself (a SPA, a new tab): preventDefault() keeps us still.
      const go = emit<CheckoutDetail>('checkout', { sessionId: res.sessionId, checkoutUrl: res.checkoutUrl }, true);
      if (go && /^https?:\/\//i.test(res.checkoutUrl)) location.assign(res.checkoutUrl);
      else setBusy(false);
    } catch (err) {
      setBusy(false);
      const error = err instanceof ActionError ? err : new ActionError('Unexpected error', 0, undefined, undefined, {});
      const problem = problemFrom(
        error,
        fields.map((f) => f.key),
      );
      fail(problem.fields, problem.message);
      emit('error', {
        action: isFree(tier) ? 'rsvp' : 'checkout',
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
      if (problem.refreshTiers) void store.refreshTiers();
    }
  };

  const again = () => {
    setTicket(null);
    setTierId(null);
    void store.refreshTiers();
  };

  const notice =
    returned?.kind === 'success' ? (
      <Notice text="Payment received — your tickets are on their way by e-mail." />
    ) : returned?.kind === 'cancelled' ? (
      <Notice text="Checkout cancelled: nothing was charged." />
    ) : null;

  if (ticket && tier) {
    return (
      <div class="rsvp">
        <Confirmation
          eventName={event.name}
          tierName={tier.name}
          qrCode={ticket.qrCode}
          email={ticket.email}
          onAgain={again}
        />
      </div>
    );
  }

  if (hasEnded(event)) {
    return (
      <div class="rsvp">
        {notice}
        <p class="status" part="ended">
          This event has ended.
        </p>
      </div>
    );
  }
  if (tiers.length === 0) {
    return (
      <div class="rsvp">
        {notice}
        <p class="status" part="empty">
          Tickets are not on sale yet.
        </p>
      </div>
    );
  }

  const open = tier && isOpen(tier);
  const quantity = Number(values.quantity);
  const total =
    tier && !isFree(tier) && Number.isInteger(quantity) && quantity >= 1 && quantity <= maxQuantity(tier)
      ? formatMoney(tier.priceCents * quantity, tier.currency, locale)
      : null;
  const live = busy ? (tier && isFree(tier) ? 'Sending your RSVP…' : 'Opening the checkout…') : '';

  return (
    <div class="rsvp">
      {notice}
      <form
        class="form"
        part="form"
        noValidate
        onSubmit={submit}
        ref={formRef}
        aria-busy={busy ? 'true' : undefined}
        method={ssr && 'post'}
        action={ssr?.action}
      >
        <TierPicker
          legend={`Tickets for ${event.name}`}
          tiers={tiers}
          selected={tierId}
          locale={locale}
          onSelect={choose}
        />
        {open && formState?.status === 'ready' && (
          <div class="fields" part="fields">
            <p class="hint" aria-hidden="true">
              * required
            </p>
            {fields.map((spec) => (
              <Field
                key={`${tierId}:${spec.key}`}
                spec={spec}
                idBase={idBase}
                value={values[spec.key]}
                error={errors[spec.key]}
                max={spec.key === 'quantity' ? maxQuantity(tier) : undefined}
                onChange={change}
              />
            ))}
            {total && (
              <p class="total" part="total">
                Total: {total}
              </p>
            )}
            <button type="submit" class="primary submit" part="submit" aria-busy={busy ? 'true' : undefined}>
              {isFree(tier) ? 'RSVP' : 'Continue to payment'}
            </button>
          </div>
        )}
        {open && formState?.status === 'loading' && (
          <p class="status" part="status">
            Loading the form…
          </p>
        )}
        {open && formState?.status === 'error' && (
          <div class="error" part="error" role="alert">
            <span>We couldn't load this ticket's form.</span>
            <button type="button" class="secondary" part="retry" onClick={() => void store.loadForm(tier)}>
              Try again
            </button>
          </div>
        )}
        {formError && (
          <p class="form-error" part="error" role="alert">
            {formError}
          </p>
        )}
        <p class="visually-hidden" role="status">
          {live}
        </p>
        {ssr && <div class="nojs" dangerouslySetInnerHTML={{ __html: ssr.noscript }} />}
      </form>
    </div>
  );
}
