// The list behind <svc-events>: one page at a time from the events API, following the opaque
// cursor the API hands out in `X-Next-Cursor` (never an offset, so "Load more" neither skips
// nor repeats events when the list changes between clicks).
import { atom } from 'nanostores';
import type { Event } from '../../contract/resources.ts';
import { ApiError, type ApiClient, type Query } from '../lib/api.ts';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

export interface EventsQuery {
  limit: number;
  featured: boolean;
  past: boolean;
}

/** Boolean attributes follow HTML: present means true, whatever the value (even "false"). */
export function parseQuery(attrs: Record<string, string | null>): EventsQuery {
  const n = Number.parseInt(attrs.limit ?? '', 10);
  return {
    limit: Number.isFinite(n) ? Math.min(Math.max(n, 1), MAX_LIMIT) : DEFAULT_LIMIT,
    featured: attrs.featured != null,
    past: attrs.past != null,
  };
}

export function queryParams(query: EventsQuery, cursor?: string | null): Query {
  return {
    limit: query.limit,
    // Upcoming only, unless the page asked for the archive (which the API sorts newest first).
    upcoming: !query.past,
    past: query.past,
    featured: query.featured,
    cursor,
  };
}

export type FeedStatus = 'loading' | 'ready' | 'error';

/** Everything <svc-events> renders from, in one store: each change is one `set`, one render. */
export interface FeedState {
  items: Event[];
  status: FeedStatus;
  error: ApiError | null;
  nextCursor: string | null;
  loadingMore: boolean;
  moreError: ApiError | null;
}

export class EventsFeed {
  // A nanostores store, not signals: <svc-events> renders without @preact/signals (vite.config.ts).
  readonly state = atom<FeedState>({
    items: [],
    status: 'loading',
    error: null,
    nextCursor: null,
    loadingMore: false,
    moreError: null,
  });
  private abort = new AbortController();
  private readonly path: string;

  constructor(
    readonly api: ApiClient,
    readonly community: string,
    readonly query: EventsQuery,
  ) {
    this.path = `/v1/communities/${encodeURIComponent(community)}/events`;
  }

  private patch(change: Partial<FeedState>): void {
    this.state.set({ ...this.state.get(), ...change });
  }

  /** The first page; also the retry after an error. */
  async load(): Promise<void> {
    this.patch({ status: 'loading', error: null });
    try {
      const page = await this.fetchPage(null);
      this.patch({ items: page.events, nextCursor: page.next, status: 'ready' });
    } catch (e) {
      if (this.abort.signal.aborted) return;
      this.patch({ error: toApiError(e), status: 'error' });
    }
  }

  /** The next page, appended; resolves to the events that were added (none on failure). */
  async more(): Promise<Event[]> {
    const { nextCursor: cursor, loadingMore } = this.state.get();
    if (!cursor || loadingMore) return [];
    this.patch({ loadingMore: true, moreError: null });
    try {
      const page = await this.fetchPage(cursor);
      const { items } = this.state.get();
      const known = new Set(items.map((e) => e.id));
      const added = page.events.filter((e) => !known.has(e.id));
      this.patch({ items: [...items, ...added], nextCursor: page.next, loadingMore: false });
      return added;
    } catch (e) {
      this.patch(this.abort.signal.aborted ? { loadingMore: false } : { moreError: toApiError(e), loadingMore: false });
      return [];
    }
  }

  dispose(): void {
    this.abort.abort();
  }

  private async fetchPage(cursor: string | null): Promise<{ events: Event[]; next: string | null }> {
    const { data, headers } = await this.api.get<Event[]>(this.path, {
      query: queryParams(this.query, cursor),
      signal: this.abort.signal,
    });
    return { events: Array.isArray(data) ? data : [], next: headers.get('X-Next-Cursor') || null };
  }
}

function toApiError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : 'Unexpected error', 0);
}
