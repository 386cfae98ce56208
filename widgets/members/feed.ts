// The list behind <svc-members>: pages of the member directory by offset (the API lists members
// in the order they joined, so a page boundary only moves when someone leaves), appended on
// "Load more". X-Total-Count says whether there is more.
import { batch, signal } from '../lib/signals.ts';
import type { Member } from '../../contract/resources.ts';
import { ApiError, type ApiClient } from '../lib/api.ts';

export const DEFAULT_LIMIT = 12;
export const MAX_LIMIT = 100;

export function parseLimit(attrs: Record<string, string | null>): number {
  const n = Number.parseInt(attrs.limit ?? '', 10);
  return Number.isFinite(n) ? Math.min(Math.max(n, 1), MAX_LIMIT) : DEFAULT_LIMIT;
}

export type FeedStatus = 'loading' | 'ready' | 'error';

/** The first page, as the server rendered it (the hosted `/members`): the widget starts from it. */
export interface MembersSeed {
  members: Member[];
  total: number;
}

export class MembersFeed {
  readonly items = signal<Member[]>([]);
  readonly status = signal<FeedStatus>('loading');
  readonly error = signal<ApiError | null>(null);
  /** Members in the directory, loaded or not. */
  readonly total = signal(0);
  readonly loadingMore = signal(false);
  readonly moreError = signal<ApiError | null>(null);
  private abort = new AbortController();
  private readonly path: string;

  constructor(
    private readonly api: ApiClient,
    community: string,
    readonly limit: number,
    seed?: MembersSeed,
  ) {
    this.path = `/v1/communities/${encodeURIComponent(community)}/members`;
    if (seed) {
      this.items.value = seed.members;
      this.total.value = seed.total;
      this.status.value = 'ready';
    }
  }

  get hasMore(): boolean {
    return this.items.value.length < this.total.value;
  }

  /** The first page; also the retry after an error. */
  async load(): Promise<void> {
    batch(() => {
      this.status.value = 'loading';
      this.error.value = null;
    });
    try {
      const page = await this.fetchPage(0);
      batch(() => {
        this.items.value = page.members;
        this.total.value = page.total;
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

  /** The next page, appended; resolves to the members that were added (none on failure). */
  async more(): Promise<Member[]> {
    if (!this.hasMore || this.loadingMore.value) return [];
    batch(() => {
      this.loadingMore.value = true;
      this.moreError.value = null;
    });
    try {
      const page = await this.fetchPage(this.items.value.length);
      // Offset pages shift when the directory changes between clicks: a member added with an
      // earlier join date repeats the last one shown, so repeats are dropped.
      const known = new Set(this.items.value.map((m) => m.userId));
      const added = page.members.filter((m) => !known.has(m.userId));
      batch(() => {
        this.items.value = [...this.items.value, ...added];
        // An empty page means the directory shrank under us: stop offering more.
        this.total.value = page.members.length === 0 ? this.items.value.length : page.total;
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

  private async fetchPage(offset: number): Promise<{ members: Member[]; total: number }> {
    const { data, headers } = await this.api.get<Member[]>(this.path, {
      query: { limit: this.limit, offset: offset || undefined },
      signal: this.abort.signal,
    });
    const members = Array.isArray(data) ? data : [];
    const total = Number.parseInt(headers.get('X-Total-Count') ?? '', 10);
    return { members, total: Number.isFinite(total) ? total : offset + members.length };
  }
}

function toApiError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : 'Unexpected error', 0);
}
