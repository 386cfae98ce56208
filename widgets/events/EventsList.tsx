import { Component, createRef } from 'preact';
import type { Event } from '../../contract/resources.ts';
import type { ApiError } from '../lib/api.ts';
import { $community, isSettled, siteOrigin } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { plainClick } from '../lib/host-events.ts';
import { EventCard } from './EventCard.tsx';
import { EventsFeed, parseQuery } from './feed.ts';

export interface SelectDetail {
  slug: string;
  id: string;
}

/**
 * The link-template filler (widgets/lib/link-template.ts, a chunk of its own), imported the first
 * time a list has an `event-href`: most pages have none, and the default links need none of its
 * code, so it stays out of what every page with <svc-events> downloads (docs/widgets.md, "Byte
 * budgets"). Until it is in, a list whose cards have not been shown yet stays in its loading
 * state, so no card offers the default link first. If it cannot load, the default links stand,
 * as for a template in error.
 */
let fillTemplate: typeof import('../lib/link-template.ts').fillTemplate | undefined;
let linkTemplate: Promise<unknown> | undefined;

/**
 * A class component with nanostores subscriptions rather than hooks and signals: then neither
 * preact/hooks nor @preact/signals is in the runtime chunk that every page with <svc-events>
 * downloads (vite.config.ts, RUNTIME_MODULE); the widgets that use them get them in `shared`.
 */
export class EventsList extends Component<WidgetProps> {
  /** The feed the current attributes ask for: a new one (a new first page) when they change. */
  private feed: EventsFeed | null = null;
  /** The feed whose store this component listens to and whose first page it asked for. */
  private started: { feed: EventsFeed; stop(): void } | null = null;
  private stopCommunity = (): void => {};
  private reported: ApiError | null = null;
  /** Set by "Load more": the index of the first new event, focused once the page is in. */
  private focusIndex: number | null = null;
  private list = createRef<HTMLUListElement>();
  /** Cards were on screen: a template that arrives later re-renders them in place. */
  private shown = false;

  private feedFor({ api, config, attrs }: WidgetProps): EventsFeed {
    const query = parseQuery(attrs);
    const f = this.feed;
    if (
      f?.api !== api ||
      f.community !== config.community ||
      f.query.limit !== query.limit ||
      f.query.featured !== query.featured ||
      f.query.past !== query.past
    )
      this.feed = new EventsFeed(api, config.community, query);
    return this.feed!;
  }

  override componentDidMount(): void {
    this.stopCommunity = $community.listen(() => this.forceUpdate());
    this.afterRender();
  }

  override componentDidUpdate(): void {
    this.afterRender();
  }

  override componentWillUnmount(): void {
    this.stopCommunity();
    this.started?.stop();
  }

  /** What follows a render: start a new feed, tell the host page about a new error, move focus. */
  private afterRender(): void {
    const feed = this.feed!;
    if (this.props.attrs['event-href'] && !fillTemplate)
      void (linkTemplate ??= import('../lib/link-template.ts').then(
        (m) => (fillTemplate = m.fillTemplate),
        () => (fillTemplate = () => null),
      )).then(() => this.forceUpdate());
    if (this.started?.feed !== feed) {
      this.started?.stop();
      const stopListening = feed.state.listen(() => this.forceUpdate());
      this.started = {
        feed,
        stop: () => {
          stopListening();
          feed.dispose();
        },
      };
      void feed.load();
    }
    const { error, loadingMore } = feed.state.get();
    if (error && error !== this.reported) {
      // The host page may want the request id for a support ticket; the visitor gets plain words.
      this.props.emit('error', {
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
    }
    this.reported = error;
    // After "Load more", focus moves to the first new event instead of staying on a button
    // that may just have disappeared (last page) and losing the visitor's place.
    const index = this.focusIndex;
    if (index === null || loadingMore) return;
    this.focusIndex = null;
    this.list.current?.children[index]?.querySelector('a')?.focus();
  }

  override render(props: WidgetProps) {
    const { api, config, attrs, locale, emit } = props;
    const feed = this.feedFor(props);
    const { status, items, nextCursor, loadingMore, moreError } = feed.state.get();
    const community = $community.get();

    // Waiting for the community too: it carries the theme and the site the links point to, and
    // rendering before it arrives would flash unthemed cards with provisional links.
    if (status === 'loading' || !isSettled(community) || (attrs['event-href'] && !fillTemplate && !this.shown)) {
      // The list at its final size from the first render (`limit` cards and the "Load more" row),
      // so nothing on the page moves when the events arrive (docs/widgets.md, "Layout shift").
      return (
        <div aria-busy="true">
          <p class="visually-hidden" part="status" role="status">
            Loading events…
          </p>
          <ul class="list" aria-hidden="true">
            {Array.from({ length: feed.query.limit }, (_, i) => (
              <li key={i} class="item">
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
        <div>
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

    if (items.length === 0) {
      return (
        <div>
          <p class="status" part="empty">
            {feed.query.past ? 'No past events' : 'No upcoming events'}
          </p>
        </div>
      );
    }

    const site = siteOrigin(config, community.status === 'ready' ? community.community : null, location.origin);
    const onSelect = (event: Event, click: MouseEvent) => {
      // Modified clicks open a tab: the visitor is not choosing the event on this page.
      if (!plainClick(click)) return;
      const detail: SelectDetail = { slug: event.slug, id: event.id };
      if (!emit('select', detail, true)) click.preventDefault();
    };
    this.shown = true;
    const loadMore = () => {
      this.focusIndex = items.length;
      void feed.more();
    };

    return (
      <div aria-busy={loadingMore ? 'true' : undefined}>
        <ul class="list" part="list" ref={this.list}>
          {items.map((event) => (
            <EventCard
              key={event.id}
              event={event}
              href={
                fillTemplate?.('event-href', attrs['event-href'], { slug: event.slug, id: event.id }) ??
                `${site}/events/${encodeURIComponent(event.slug)}`
              }
              locale={locale}
              api={api}
              onSelect={onSelect}
            />
          ))}
        </ul>
        {nextCursor && (
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
}
