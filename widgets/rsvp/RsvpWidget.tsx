import { useEffect, useMemo } from 'preact/hooks';
import { $community, isSettled } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { storeSignal } from '../lib/store-signal.ts';
import { Booking } from './Booking.tsx';
import { RsvpStore } from './store.ts';

export function RsvpWidget({ api, config, attrs, locale, emit }: WidgetProps) {
  const slug = (attrs.event ?? '').trim();
  const store = useMemo(() => new RsvpStore(api, config.community, slug), [api, config.community, slug]);
  useEffect(() => {
    if (slug) void store.load();
    return () => store.dispose();
  }, [store]);

  const error = store.error.value;
  useEffect(() => {
    // The host page may want the request id for a support ticket; the visitor gets plain words.
    if (error) emit('error', { action: 'load', status: error.status, code: error.code, requestId: error.requestId, message: error.message });
  }, [error]);

  const community = storeSignal($community).value;
  const status = store.status.value;
  const event = store.event.value;

  // A page-author mistake, not a visitor's problem: the fallback link is the way on.
  if (!slug) return <div class="rsvp"><slot /></div>;

  // Waiting for the community too: it carries the theme, and an unthemed flash would follow.
  if (status === 'loading' || !isSettled(community)) {
    return (
      <div class="rsvp" aria-busy="true">
        <p class="status" part="status" role="status">Loading tickets…</p>
      </div>
    );
  }

  if (status === 'error' || !event) {
    const missing = error?.status === 404;
    return (
      <div class="rsvp">
        <div class="error" part="error" role="alert">
          <span>{missing ? "This event isn't open for booking here." : "We couldn't load tickets right now."}</span>
          {!missing && <button type="button" class="secondary" part="retry" onClick={() => void store.load()}>Try again</button>}
          {/* The customer's fallback link, if they wrote one, is the way on from here. */}
          <slot />
        </div>
      </div>
    );
  }

  // Keyed by event, so another `event` attribute starts a fresh booking.
  return <Booking key={slug} store={store} event={event} config={config} locale={locale} emit={emit} />;
}
