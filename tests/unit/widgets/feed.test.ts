import { describe, expect, it, vi } from 'vitest';
import type { Event } from '../../../contract/resources.ts';
import { ApiError, type ApiClient, type GetOptions } from '../../../widgets/lib/api.ts';
import { EventsFeed, parseQuery, queryParams } from '../../../widgets/events/feed.ts';
import { event } from './fixtures.ts';

/** An API that serves `pages` in order, each with the cursor to the next one. */
function pagedApi(pages: Event[][]) {
  const calls: { path: string; options?: GetOptions }[] = [];
  const api: ApiClient = {
    resolve: (p) => p,
    async get<T>(path: string, options?: GetOptions) {
      calls.push({ path, options });
      const cursor = options?.query?.cursor;
      const index = cursor ? Number(String(cursor).slice(1)) : 0;
      const headers = new Headers(index + 1 < pages.length ? { 'X-Next-Cursor': `p${index + 1}` } : {});
      return { data: pages[index] as T, headers };
    },
  };
  return { api, calls };
}

/** A client around a mock `get` (generic methods do not survive vi.fn's typing). */
const clientWith = (get: ReturnType<typeof vi.fn<ApiClient['get']>>): ApiClient => ({
  get: get as ApiClient['get'],
  resolve: (p) => p,
});

describe('parseQuery', () => {
  it('defaults to 10 upcoming events', () => {
    expect(parseQuery({})).toEqual({ limit: 10, featured: false, past: false });
  });

  it('clamps limit to 1..100 and ignores nonsense', () => {
    expect(parseQuery({ limit: '500' }).limit).toBe(100);
    expect(parseQuery({ limit: '0' }).limit).toBe(1);
    expect(parseQuery({ limit: 'six' }).limit).toBe(10);
  });

  it('treats featured and past as HTML boolean attributes', () => {
    expect(parseQuery({ featured: '', past: 'false' })).toMatchObject({ featured: true, past: true });
  });
});

describe('queryParams', () => {
  it('asks for upcoming events unless past is set', () => {
    expect(queryParams({ limit: 6, featured: false, past: false })).toMatchObject({
      limit: 6,
      upcoming: true,
      past: false,
    });
    expect(queryParams({ limit: 6, featured: false, past: true })).toMatchObject({ upcoming: false, past: true });
  });

  it('pages by cursor only, never by offset', () => {
    const params = queryParams({ limit: 6, featured: true, past: false }, 'abc');
    expect(params).toMatchObject({ cursor: 'abc', featured: true });
    expect(params).not.toHaveProperty('offset');
  });
});

describe('EventsFeed', () => {
  const page1 = [event({ name: 'A' }), event({ name: 'B' })];
  const page2 = [event({ name: 'C' })];

  it('loads the first page and remembers the next cursor', async () => {
    const { api, calls } = pagedApi([page1, page2]);
    const feed = new EventsFeed(api, 'demo', { limit: 2, featured: false, past: false });
    expect(feed.state.get().status).toBe('loading');
    await feed.load();
    expect(feed.state.get().status).toBe('ready');
    expect(feed.state.get().items.map((e) => e.name)).toEqual(['A', 'B']);
    expect(feed.state.get().nextCursor).toBe('p1');
    expect(calls[0].path).toBe('/v1/communities/demo/events');
  });

  it('changes its state in one step, so a render never sees a half-made page', async () => {
    const { api } = pagedApi([page1, page2]);
    const feed = new EventsFeed(api, 'demo', { limit: 2, featured: false, past: false });
    const seen: string[] = [];
    feed.state.listen((s) => seen.push(`${s.status}:${s.items.length}:${s.nextCursor}:${s.loadingMore}`));
    await feed.load();
    await feed.more();
    expect(seen).toEqual(['loading:0:null:false', 'ready:2:p1:false', 'ready:2:p1:true', 'ready:3:null:false']);
  });

  it('appends the next page via the cursor and stops at the last page', async () => {
    const { api, calls } = pagedApi([page1, page2]);
    const feed = new EventsFeed(api, 'demo', { limit: 2, featured: false, past: false });
    await feed.load();
    const added = await feed.more();
    expect(added.map((e) => e.name)).toEqual(['C']);
    expect(feed.state.get().items.map((e) => e.name)).toEqual(['A', 'B', 'C']);
    expect(calls[1].options?.query).toMatchObject({ cursor: 'p1', limit: 2 });
    expect(feed.state.get().nextCursor).toBeNull();
    expect(await feed.more()).toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it('does not repeat an event the next page also contains', async () => {
    const { api } = pagedApi([page1, [page1[1], ...page2]]);
    const feed = new EventsFeed(api, 'demo', { limit: 2, featured: false, past: false });
    await feed.load();
    await feed.more();
    expect(feed.state.get().items.map((e) => e.name)).toEqual(['A', 'B', 'C']);
  });

  it('shows an error and recovers on retry', async () => {
    const get = vi
      .fn<ApiClient['get']>()
      .mockRejectedValueOnce(new ApiError('Invalid API key', 401, 'INVALID_API_KEY'))
      .mockResolvedValueOnce({ data: page1 as never, headers: new Headers() });
    const feed = new EventsFeed(clientWith(get), 'demo', { limit: 2, featured: false, past: false });
    await feed.load();
    expect(feed.state.get().status).toBe('error');
    expect(feed.state.get().error).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    await feed.load();
    expect(feed.state.get().status).toBe('ready');
    expect(feed.state.get().error).toBeNull();
  });

  it('keeps what it has when loading more fails', async () => {
    const get = vi
      .fn<ApiClient['get']>()
      .mockResolvedValueOnce({ data: page1 as never, headers: new Headers({ 'X-Next-Cursor': 'p1' }) })
      .mockRejectedValueOnce(new ApiError('Network error', 0));
    const feed = new EventsFeed(clientWith(get), 'demo', { limit: 2, featured: false, past: false });
    await feed.load();
    expect(await feed.more()).toEqual([]);
    expect(feed.state.get().items).toHaveLength(2);
    expect(feed.state.get().moreError?.status).toBe(0);
    expect(feed.state.get().nextCursor).toBe('p1');
    expect(feed.state.get().loadingMore).toBe(false);
  });

  it('ignores an answer that arrives after it was disposed', async () => {
    let release!: () => void;
    const get = vi.fn<ApiClient['get']>(
      (_path, options) =>
        new Promise((_resolve, reject) => {
          release = () => reject(options?.signal?.reason ?? new Error('aborted'));
        }),
    );
    const feed = new EventsFeed(clientWith(get), 'demo', { limit: 2, featured: false, past: false });
    const loading = feed.load();
    feed.dispose();
    release();
    await loading;
    expect(get.mock.calls[0][1]?.signal?.aborted).toBe(true);
    expect(feed.state.get().status).toBe('loading');
    expect(feed.state.get().error).toBeNull();
  });
});
