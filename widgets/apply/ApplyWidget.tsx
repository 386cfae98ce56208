import { useId, useMemo, useRef, useState } from 'preact/hooks';
import type { Segment } from '../../contract/resources.ts';
import { $community, isSettled } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { LoadFailed, Loading, Notice, useStoreLoad } from '../lib/forms/shell.tsx';
import { storeSignal } from '../lib/store-signal.ts';
import { Application } from './Application.tsx';
import { claimCheckoutReturn } from './checkout.ts';
import { SegmentPicker, SegmentSummary } from './SegmentPicker.tsx';
import { ApplyStore, type ApplySeed } from './store.ts';

export function ApplyWidget({ api, config, attrs, locale, emit, state }: WidgetProps) {
  const only = (attrs.segment ?? '').trim() || null;
  // The hosted `/apply` page's segments and forms (ApplySeed): hydrated from, not fetched.
  const store = useMemo(() => new ApplyStore(api, config.community, state as ApplySeed), [api, config.community]);
  const idBase = `svc-apply-${useId()}`;
  const [chosen, setChosen] = useState<string | null>(null);
  // Claimed on the first render with the segments (it takes the parameters out of the URL), then kept.
  const returnRef = useRef<ReturnType<typeof claimCheckoutReturn> | undefined>(undefined);
  useStoreLoad(store, emit, !store.seed);

  const communityState = storeSignal($community).value;
  const status = store.status.value;
  const segments = store.segments.value;

  // Waiting for the community too: it carries the theme, the name and the rules.
  if (status === 'loading' || !isSettled(communityState)) {
    return <Loading box="apply" text="Loading memberships…" />;
  }
  if (status === 'error')
    return (
      <LoadFailed box="apply" text="We couldn't load the memberships right now." retry={() => void store.load()} />
    );

  const community = communityState.status === 'ready' ? communityState.community : null;
  // An id, as the docs say; a name is forgiven (ids are made on import, names are what people see).
  const fixed = only
    ? (segments.find((s) => s.id === only) ?? segments.find((s) => s.name.toLowerCase() === only.toLowerCase()) ?? null)
    : null;
  if (returnRef.current === undefined) returnRef.current = claimCheckoutReturn(fixed?.id ?? null);
  const returned = returnRef.current;
  const notice =
    returned?.kind === 'success' ? (
      <Notice text="Payment received. Welcome! Your membership starts as soon as the payment is confirmed; we'll e-mail you." />
    ) : returned?.kind === 'cancelled' ? (
      <Notice text="Checkout cancelled: nothing was charged." />
    ) : null;

  if (community?.accessibility === 'INVITE_ONLY') {
    return (
      <div class="apply">
        {notice}
        <p class="status" part="empty">
          This community is invite-only: membership is by invitation.
        </p>
      </div>
    );
  }
  if (segments.length === 0) {
    return (
      <div class="apply">
        {notice}
        <p class="status" part="empty">
          This community isn't taking new members right now.
        </p>
        <slot />
      </div>
    );
  }

  if (only && !fixed) {
    return (
      <div class="apply">
        {notice}
        <div class="error" part="error" role="alert">
          <span>This membership isn't open for applications.</span>
          <slot />
        </div>
      </div>
    );
  }
  const segment: Segment | null = fixed ?? segments.find((s) => s.id === chosen) ?? null;
  const rules = community?.storefrontConfig.rules;
  const shownRules =
    rules && rules.version >= 1 && rules.text?.trim() ? { version: rules.version, text: rules.text } : null;

  return (
    <div class="apply">
      {notice}
      {fixed ? (
        <div class="segment chosen" part="segment" data-segment={fixed.id} style={{ '--_segment': fixed.color }}>
          <SegmentSummary segment={fixed} locale={locale} />
        </div>
      ) : (
        <SegmentPicker
          segments={segments}
          selected={chosen}
          name={`${idBase}-segment`}
          locale={locale}
          onSelect={(s) => setChosen(s.id)}
        />
      )}
      {segment && (
        // Keyed by segment: another choice starts a fresh form (its own fields and cycles).
        <Application
          key={segment.id}
          store={store}
          segment={segment}
          config={config}
          locale={locale}
          idBase={`${idBase}-${segment.id.slice(-6)}`}
          communityName={community?.name ?? 'the community'}
          rules={shownRules}
          source={attrs.source ?? null}
          emit={emit}
        />
      )}
    </div>
  );
}
