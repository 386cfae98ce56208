import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { Event } from '../../contract/resources.ts';
import { $community, isSettled, siteOrigin } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { storeSignal } from '../lib/store-signal.ts';
import { EventCard } from './EventCard.tsx';
import { EventsFeed, parseQuery } from './feed.ts';

export interface SelectDetail {
  slug: string;
  id: string;
}

export function EventsList({ api, config, attrs, locale, emit }: WidgetProps) {
  const query = parseQuery(attrs);
  const feed = useMemo(
    () => new EventsFeed(api, config.community, query),
    [api, config.community, query.limit, query.featured, query.past],
  );
  useEffect(() => {
    void feed.load();
    return () => feed.dispose();
  }, [feed]);

  const error = feed.error.value;
  useEffect(() => {
    // The host page may want the request id for a support ticket; the visitor gets plain words.
    if (error)
      emit('error', { status: error.status, code: error.code, requestId: error.requestId, message: error.message });
  }, [error]);

  const listRef = useRef<HTMLUListElement>(null);
  const focusIndex = useRef<number | null>(null);
  useEffect(() => {
    // After "Load more", focus moves to the first new event instead of staying on a button
    // that may just have disappeared (last page) and losing the visitor's place.
    const index = focusIndex.current;
    if (index === null || feed.loadingMore.value) return;
    focusIndex.current = null;
    listRef.current?.children[index]?.querySelector('a')?.focus();
  });

  const community = storeSignal($community).value;
  const status = feed.status.value;

  // Waiting for the community too: it carries the theme and the site the links point to, and
  // rendering before it arrives would flash unthemed cards with provisional links.
  if (status === 'loading' || !isSettled(community)) {
    // The list at its final size from the first render (`limit` cards and the "Load more" row),
    // so nothing on the page moves when the events arrive (docs/widgets.md, "Layout shift").
    return (
      <div class="events" aria-busy="true">
        <p class="visually-hidden" part="status" role="status">
          Loading events…
        </p>
        <ul class="list" aria-hidden="true">
          {Array.from({ length: query.limit }, (_, i) => (
            <li key={i} class="item skeleton">
              <div class="banner" />
              <div class="body" />
            </li>
          ))}
        </ul>
        <div class="more-row" aria-hidden="true">
          <button type="button" class="primary ghost" tabIndex={-1}>
            Load more events
          </button>
        </div>
      </div>
    );
  }

  if (status === 'error') {
    return (
      <div class="events">
        <div class="error" part="error" role="alert">
          <span>We couldn't load events right now.</span>
          <button type="button" class="secondary" part="retry" onClick={() => void feed.load()}>
            Try again
          </button>
          {/* The customer's fallback link, if they wrote one, is the way on from here. */}
          <slot />
        </div>
      </div>
    );
  }

  const items = feed.items.value;
  if (items.length === 0) {
    return (
      <div class="events">
        <p class="status" part="empty">
          {query.past ? 'No past events' : 'No upcoming events'}
        </p>
      </div>
    );
  }

  const site = siteOrigin(config, community.status === 'ready' ? community.community : null, location.origin);
  const onSelect = (event: Event, click: MouseEvent) => {
    // Modified clicks open a tab: the visitor is not choosing the event on this page.
    if (
      click.defaultPrevented ||
      click.button !== 0 ||
      click.metaKey ||
      click.ctrlKey ||
      click.shiftKey ||
      click.altKey
    )
      return;
    const detail: SelectDetail = { slug: event.slug, id: event.id };
    if (!emit('select', detail, true)) click.preventDefault();
  };
  const loadMore = () => {
    focusIndex.current = items.length;
    void feed.more();
  };
  const moreError = feed.moreError.value;
  const loadingMore = feed.loadingMore.value;

  return (
    <div class="events" aria-busy={loadingMore ? 'true' : undefined}>
      <ul class="list" part="list" ref={listRef}>
        {items.map((event) => (
          <EventCard
            key={event.id}
            event={event}
            href={`${site}/events/${encodeURIComponent(event.slug)}`}
            locale={locale}
            api={api}
            onSelect={onSelect}
          />
        ))}
      </ul>
      {feed.nextCursor.value && (
        <div class="more-row">
          <button
            type="button"
            class="primary more"
            part="more"
            aria-busy={loadingMore ? 'true' : undefined}
            onClick={() => {
              if (!loadingMore) loadMore();
            }}
          >
            Load more events
          </button>
          {moreError && (
            <span class="more-error" part="error" role="alert">
              Couldn't load more events. Please try again.
            </span>
          )}
        </div>
      )}
    </div>
  );
}
