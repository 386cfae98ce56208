import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Segment } from '../../contract/resources.ts';
import type { EmbedConfig } from '../lib/contract.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { ActionError, postAction } from '../lib/forms/actions.ts';
import { Field } from '../lib/forms/Field.tsx';
import { checkEvery, textOf, type Errors, type FieldSpec } from '../lib/forms/form.ts';
import { useForm } from '../lib/forms/use-form.ts';
import { returnUrls } from './checkout.ts';
import { Confirmation, type Outcome } from './Confirmation.tsx';
import { addressToCheck, applicationFields, emailNotice, problemFrom, submitBody, type EmailStatus } from './form.ts';
import { CYCLE_NAME, initialCycle, isFree, offers, priceText, type Cycle } from './segments.ts';
import type { ApplyStore } from './store.ts';

/** `svc:apply:submitted` */
export interface SubmittedDetail {
  requestId: string;
  segmentId: string;
  status: 'APPROVED' | 'PENDING' | 'PAYMENT_PENDING';
}
/** `svc:apply:checkout` */
export interface CheckoutDetail {
  requestId: string;
  sessionId: string;
  checkoutUrl: string;
}

type SubmitAnswer =
  | {
      success: true;
      requestId: string;
      requestStatus: 'APPROVED' | 'PENDING';
      segmentName: string;
      paymentRequired?: undefined;
    }
  | { success: true; requestId: string; paymentRequired: true; segmentName: string };

/** How long typing must pause before the address is checked. */
export const EMAIL_CHECK_DELAY_MS = 400;
const CYCLE_KEY = 'billingCycle';
const RULES_KEY = 'rules';

const base = (config: EmbedConfig) => `/api/actions/${encodeURIComponent(config.community)}`;

export interface ApplicationProps {
  store: ApplyStore;
  segment: Segment;
  config: EmbedConfig;
  locale: string | undefined;
  idBase: string;
  communityName: string;
  rules: { version: number; text: string } | null;
  source: string | null;
  emit: WidgetProps['emit'];
}

export function Application({
  store,
  segment,
  config,
  locale,
  idBase,
  communityName,
  rules,
  source,
  emit,
}: ApplicationProps) {
  const [cycle, setCycle] = useState<Cycle | null>(() => initialCycle(segment));
  const { values, errors, formError, setFormError, formRef, change, fail: refuse } = useForm();
  const [busy, setBusy] = useState(false);
  const [emailStatus, setEmailStatus] = useState<EmailStatus | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const formState = store.forms.value[segment.id];
  const form = applicationFields(formState?.status === 'ready' ? formState.schema : []);
  const rulesSpec: FieldSpec | null = rules
    ? {
        key: RULES_KEY,
        field: { id: RULES_KEY, type: 'checkbox', label: 'I have read and accept the community rules', required: true },
      }
    : null;
  const fields = rulesSpec ? [...form.fields, rulesSpec] : form.fields;
  const list = offers(segment);
  const notice = emailStatus ? emailNotice(emailStatus) : null;
  const address = formState?.status === 'ready' ? addressToCheck(values, form) : null;

  useEffect(() => void store.loadForm(segment), [segment.id]);

  useEffect(() => {
    // Tell a member or a pending applicant before they fill in the rest: once typing pauses.
    setEmailStatus(null);
    if (!address) return;
    const abort = new AbortController();
    const timer = setTimeout(async () => {
      const status = await store.checkEmail(segment.id, address, abort.signal);
      if (!abort.signal.aborted) setEmailStatus(status);
    }, EMAIL_CHECK_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [address, segment.id]);

  const fail = (found: Errors, message: string | null) =>
    refuse(found, message, [CYCLE_KEY, ...fields.map((f) => f.key)]);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    if (busy || formState?.status !== 'ready') return;
    const found = checkEvery(fields, values);
    if (list.length > 0 && !cycle) found[CYCLE_KEY] = 'Choose how you would like to pay.';
    if (notice?.blocks && !found[form.emailKey]) found[form.emailKey] = notice.text;
    if (Object.keys(found).length) return fail(found, null);
    setBusy(true);
    setFormError(null);
    let action = 'submit';
    try {
      const body = submitBody(form, values, list.length ? cycle : null, source);
      const res = await postAction<SubmitAnswer>(
        config,
        `${base(config)}/segments/${encodeURIComponent(segment.id)}/submit`,
        body,
      );
      const status = res.paymentRequired ? 'PAYMENT_PENDING' : res.requestStatus;
      emit<SubmittedDetail>('submitted', { requestId: res.requestId, segmentId: segment.id, status });
      if (!res.paymentRequired) {
        setBusy(false);
        setOutcome({ status: res.requestStatus, segmentName: res.segmentName, email: textOf(values[form.emailKey]) });
        return;
      }
      action = 'checkout';
      const urls = returnUrls(location.href, segment.id);
      const co = await postAction<{ checkoutUrl: string; sessionId: string }>(
        config,
        `${base(config)}/apply/checkout`,
        { requestId: res.requestId, ...urls },
      );
      // The host page may take the applicant there itself: preventDefault() keeps us still.
      const go = emit<CheckoutDetail>(
        'checkout',
        { requestId: res.requestId, sessionId: co.sessionId, checkoutUrl: co.checkoutUrl },
        true,
      );
      if (go && /^https?:\/\//i.test(co.checkoutUrl)) location.assign(co.checkoutUrl);
      else setBusy(false);
    } catch (err) {
      setBusy(false);
      const error = err instanceof ActionError ? err : new ActionError('Unexpected error', 0, undefined, undefined, {});
      const problem = problemFrom(
        error,
        fields.map((f) => f.key),
        form.emailKey,
      );
      fail(problem.fields, problem.message);
      emit('error', {
        action,
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
      if (problem.refreshSegments) void store.load(true);
    }
  };

  if (outcome) return <Confirmation outcome={outcome} communityName={communityName} />;

  const live = busy ? (list.length ? 'Opening the checkout…' : 'Sending your application…') : '';
  const cycleError = errors[CYCLE_KEY];

  return (
    <form class="form" part="form" noValidate onSubmit={submit} ref={formRef} aria-busy={busy ? 'true' : undefined}>
      {list.length > 1 && (
        <fieldset
          class="cycles"
          part="cycles"
          data-key={CYCLE_KEY}
          aria-describedby={cycleError ? `${idBase}-cycle-error` : undefined}
        >
          <legend class="legend" part="legend">
            How would you like to pay?
          </legend>
          {list.map((offer) => (
            <label class="cycle" part="cycle" key={offer.cycle}>
              <input
                type="radio"
                name={`${idBase}-cycle`}
                value={offer.cycle}
                checked={cycle === offer.cycle}
                onChange={() => {
                  setCycle(offer.cycle);
                  change(CYCLE_KEY, offer.cycle);
                }}
              />
              <span class="cycle-name">{CYCLE_NAME[offer.cycle]}</span>
              <span class="cycle-price" part="cycle-price">
                {priceText(segment, offer, locale)}
                {offer.regular !== null && (
                  <span class="regular">
                    {' '}
                    (founding price; regularly {priceText(segment, offer, locale, offer.regular)})
                  </span>
                )}
              </span>
            </label>
          ))}
          {cycleError && (
            <p class="field-error" part="field-error" id={`${idBase}-cycle-error`}>
              {cycleError}
            </p>
          )}
        </fieldset>
      )}
      {list.length === 1 && (
        <p class="price" part="price">
          {priceText(segment, list[0], locale)}
          {list[0].regular !== null && (
            <span class="regular">
              {' '}
              (founding price; regularly {priceText(segment, list[0], locale, list[0].regular)})
            </span>
          )}
        </p>
      )}

      {formState?.status === 'ready' && (
        <div class="fields" part="fields">
          <p class="hint" aria-hidden="true">
            * required
          </p>
          {form.fields.map((spec) => (
            <Fragment key={spec.key}>
              <Field spec={spec} idBase={idBase} value={values[spec.key]} error={errors[spec.key]} onChange={change} />
              {spec.key === form.emailKey && (
                <p class="email-status" part="email-status" role="status">
                  {errors[spec.key] ? '' : (notice?.text ?? '')}
                </p>
              )}
            </Fragment>
          ))}
          {rules && rulesSpec && (
            <div class="rules" part="rules">
              <p class="rules-title" id={`${idBase}-rules-title`}>
                Community rules
              </p>
              <div
                class="rules-text"
                part="rules-text"
                role="region"
                aria-labelledby={`${idBase}-rules-title`}
                tabIndex={0}
              >
                {rules.text}
              </div>
              <Field
                spec={rulesSpec}
                idBase={idBase}
                value={values[RULES_KEY]}
                error={errors[RULES_KEY]}
                onChange={change}
              />
            </div>
          )}
          <button type="submit" class="primary submit" part="submit" aria-busy={busy ? 'true' : undefined}>
            {isFree(segment) ? 'Apply' : 'Continue to payment'}
          </button>
        </div>
      )}
      {formState?.status === 'loading' && (
        <p class="status" part="status">
          Loading the form…
        </p>
      )}
      {formState?.status === 'error' && (
        <div class="error" part="error" role="alert">
          <span>We couldn't load this membership's form.</span>
          <button type="button" class="secondary" part="retry" onClick={() => void store.loadForm(segment)}>
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
    </form>
  );
}
