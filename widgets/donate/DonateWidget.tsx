import { useEffect, useMemo, useRef } from 'preact/hooks';
import { claimReturn } from '../rsvp/checkout-return.ts';
import { $community, isSettled } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { $session, loadSession } from '../lib/session.ts';
import { storeSignal } from '../lib/store-signal.ts';
import type { TargetKind } from './action.ts';
import { DonateForm } from './DonateForm.tsx';
import { formatCount } from '../lib/format.ts';
import { formatAmount } from './money.ts';
import { Popover } from './Popover.tsx';
import { DonateStore, type DonateSeed } from './store.ts';

/** After a paid return the payment may reach the server a little later (a Stripe webhook): read the summary again. */
const SUMMARY_RETRIES_MS = [3_000, 10_000, 30_000];

/** What the page URL says about this widget's checkout; focused, so it is read first. */
function Notice({ text }: { text: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <p class="notice" part="notice" role="status" tabIndex={-1} ref={ref}>
      {text}
    </p>
  );
}

export function DonateWidget({ api, config, attrs, locale, emit, state }: WidgetProps) {
  const sku = (attrs.sku ?? '').trim();
  const slug = (attrs.event ?? '').trim();
  const kind: TargetKind | null = sku ? 'product' : slug ? 'event' : null;
  const key = sku || slug;
  // The server's state is for the target it rendered; another attribute loads afresh.
  const seed = (state as DonateSeed | undefined)?.key === key ? (state as DonateSeed) : undefined;
  const store = useMemo(
    () => (kind ? new DonateStore(api, config.community, kind, key, seed) : null),
    [api, config.community, kind, key],
  );
  const returned = useMemo(
    () =>
      kind
        ? claimReturn({
            state: 'svc_donate',
            owner: [kind === 'product' ? 'svc_sku' : 'svc_event', key],
          })
        : null,
    [kind, key],
  );

  useEffect(() => {
    if (!store) return;
    if (!store.seed) void store.load();
    const timers =
      returned?.kind === 'success'
        ? SUMMARY_RETRIES_MS.map((ms) => setTimeout(() => void store.refreshSummary(), ms))
        : [];
    return () => {
      timers.forEach(clearTimeout);
      store.dispose();
    };
  }, [store]);
  // A signed-in visitor on the hosted site donates as themselves; elsewhere nobody is signed in.
  useEffect(() => loadSession(api, config), [api, config]);

  const error = store?.error.value;
  useEffect(() => {
    if (error)
      emit('error', {
        action: 'load',
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
  }, [error]);

  const community = storeSignal($community).value;
  const session = storeSignal($session).value;

  // A page-author mistake (no sku or event), not a visitor's problem: the fallback link is the way on.
  if (!store)
    return (
      <div class="donate">
        <slot />
      </div>
    );

  if (store.status.value === 'loading' || !isSettled(community) || session === undefined) {
    // As tall as the form usually is, or the button itself, so the page does not move when it arrives.
    return attrs.mode === 'button' ? (
      <div class="donate compact" aria-busy="true">
        <button type="button" class="primary" part="button" disabled>
          Donate
        </button>
      </div>
    ) : (
      <div class="donate loading" aria-busy="true">
        <p class="status" part="status" role="status">
          Loading…
        </p>
      </div>
    );
  }

  const target = store.target.value;
  if (store.status.value === 'error' || !target) {
    return (
      <div class="donate">
        <div class="error" part="error" role="alert">
          <span>
            {error?.status === 404 ? "This isn't taking donations here." : "We couldn't load the donation form."}
          </span>
          {error?.status !== 404 && (
            <button type="button" class="secondary" part="retry" onClick={() => void store.load()}>
              Try again
            </button>
          )}
          <slot />
        </div>
      </div>
    );
  }

  // Donations switched off: nothing to offer a visitor, so nothing is shown (see docs/widgets.md).
  const donation = target.config;
  if (!donation?.enabled) return null;

  const summary = store.summary.value;
  const raised =
    summary && summary.count > 0
      ? `${formatCount(summary.count, locale)} ${summary.count === 1 ? 'supporter' : 'supporters'} raised ${formatAmount(summary.total, summary.currency ?? target.currency, locale)}`
      : '';
  const body = (
    <>
      <p class="summary" part="summary" aria-live="polite">
        <bdi>{raised}</bdi>
      </p>
      <DonateForm
        key={`${kind}:${key}`}
        kind={kind!}
        targetKey={key}
        donation={donation}
        currency={target.currency}
        config={config}
        locale={locale}
        donor={config.hosted ? session : null}
        emit={emit}
      />
    </>
  );
  const notice = returned && (
    <Notice
      text={
        returned.kind === 'success'
          ? 'Thank you! Your payment is being confirmed; your gift will show here once it is.'
          : 'Donation cancelled: nothing was charged.'
      }
    />
  );

  if (attrs.mode === 'button') {
    return (
      <div class="donate compact">
        {notice}
        <Popover
          label="Donate"
          triggerClass="primary"
          triggerPart="button"
          panelPart="panel"
          dialog={donation.label?.trim() || `Donate to ${target.name}`}
        >
          {body}
        </Popover>
      </div>
    );
  }
  return (
    <div class="donate">
      {notice}
      {body}
    </div>
  );
}
