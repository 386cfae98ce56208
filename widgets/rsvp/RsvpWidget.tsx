import { useMemo } from 'preact/hooks';
import { $community, isSettled } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { LoadFailed, Loading, useStoreLoad } from '../lib/forms/shell.tsx';
import { storeSignal } from '../lib/store-signal.ts';
import { Booking } from './Booking.tsx';
import { RsvpStore, type RsvpSeed } from './store.ts';

export function RsvpWidget({ api, config, attrs, locale, emit, state }: WidgetProps) {
  const slug = (attrs.event ?? '').trim();
  // The server's state is for the event it rendered; another `event` attribute loads afresh.
  const seed = (state as RsvpSeed | undefined)?.event?.slug === slug ? (state as RsvpSeed) : undefined;
  const store = useMemo(() => new RsvpStore(api, config.community, slug, seed), [api, config.community, slug]);
  const error = useStoreLoad(store, emit, slug !== '' && !store.seed);

  const community = storeSignal($community).value;
  const status = store.status.value;
  const event = store.event.value;

  // A page-author mistake, not a visitor's problem: the fallback link is the way on.
  if (!slug)
    return (
      <div class="rsvp">
        <slot />
      </div>
    );

  // Waiting for the community too: it carries the theme, and an unthemed flash would follow.
  if (status === 'loading' || !isSettled(community)) {
    return <Loading box="rsvp" text="Loading tickets…" />;
  }

  if (status === 'error' || !event) {
    const missing = error?.status === 404;
    // The customer's fallback link, if they wrote one, is the way on from here.
    return (
      <LoadFailed
        box="rsvp"
        text={missing ? "This event isn't open for booking here." : "We couldn't load tickets right now."}
        retry={missing ? undefined : () => void store.load()}
      />
    );
  }

  // Keyed by event, so another `event` attribute starts a fresh booking.
  return <Booking key={slug} store={store} event={event} config={config} locale={locale} emit={emit} />;
}
