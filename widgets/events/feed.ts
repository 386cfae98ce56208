// The list behind <svc-events>: one page at a time from the events API, following the opaque
// cursor the API hands out in `X-Next-Cursor` (never an offset, so "Load more" neither skips
// nor repeats events when the list changes between clicks).
import { batch, signal } from '../lib/signals.ts';
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

export class EventsFeed {
  readonly items = signal<Event[]>([]);
  readonly status = signal<FeedStatus>('loading');
  readonly error = signal<ApiError | null>(null);
  readonly nextCursor = signal<string | null>(null);
  readonly loadingMore = signal(false);
  readonly moreError = signal<ApiError | null>(null);
  private abort = new AbortController();
  private readonly path: string;

  constructor(
    private readonly api: ApiClient,
    community: string,
    readonly query: EventsQuery,
  ) {
    this.path = `/v1/communities/${encodeURIComponent(community)}/events`;
  }

  /** The first page; also the retry after an error. */
  async load(): Promise<void> {
    batch(() => {
      this.status.value = 'loading';
      this.error.value = null;
    });
    try {
      const page = await this.fetchPage(null);
      batch(() => {
        this.items.value = page.events;
        this.nextCursor.value = page.next;
        this.status.value = 'ready';
      });
    } catch (e) {
      if (this.abort.signal.aborted) return;
      batch(() => {
        this.error.value = toApiError(e);
        this.status.value = 'error';
      });
    }
  }

  /** The next page, appended; resolves to the events that were added (none on failure). */
  async more(): Promise<Event[]> {
    const cursor = this.nextCursor.value;
    if (!cursor || this.loadingMore.value) return [];
    batch(() => {
      this.loadingMore.value = true;
      this.moreError.value = null;
    });
    try {
      const page = await this.fetchPage(cursor);
      const known = new Set(this.items.value.map((e) => e.id));
      const added = page.events.filter((e) => !known.has(e.id));
      batch(() => {
        this.items.value = [...this.items.value, ...added];
        this.nextCursor.value = page.next;
      });
      return added;
    } catch (e) {
      if (!this.abort.signal.aborted) this.moreError.value = toApiError(e);
      return [];
    } finally {
      this.loadingMore.value = false;
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
