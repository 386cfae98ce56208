import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createApiClient, toQueryString } from '../../../widgets/lib/api.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';

const embed: EmbedConfig = {
  community: 'demo',
  key: 'pk_live_abc',
  api: 'https://svc.example',
  hosted: false,
  site: null,
};
const hosted: EmbedConfig = { ...embed, key: null, hosted: true };

function fakeFetch(response: Response) {
  return vi.fn<typeof fetch>(async () => response);
}

describe('api client', () => {
  it('calls the API origin with the publishable key and never with cookies', async () => {
    const f = fakeFetch(Response.json([{ id: 1 }], { headers: { 'X-Next-Cursor': 'c1' } }));
    const res = await createApiClient(embed, f).get('/v1/communities/demo/events', {
      query: { limit: 5, upcoming: true, past: false },
    });
    const [url, init] = f.mock.calls[0];
    expect(url).toBe('https://svc.example/v1/communities/demo/events?limit=5&upcoming=true');
    expect(init?.credentials).toBe('omit');
    expect(init?.headers).toMatchObject({ 'X-API-Key': 'pk_live_abc' });
    expect(res.data).toEqual([{ id: 1 }]);
    expect(res.headers.get('X-Next-Cursor')).toBe('c1');
  });

  it('leaves the key off routes that take none', async () => {
    const f = fakeFetch(Response.json({}));
    await createApiClient(embed, f).get('/api/communities/demo', { auth: false });
    expect(f.mock.calls[0][1]?.headers).not.toHaveProperty('X-API-Key');
  });

  it('uses same-origin relative paths with cookies on the hosted apex', async () => {
    const f = fakeFetch(Response.json([]));
    await createApiClient(hosted, f).get('/v1/communities/demo/events');
    const [url, init] = f.mock.calls[0];
    expect(url).toBe('/v1/communities/demo/events');
    expect(init?.credentials).toBe('same-origin');
    expect(init?.headers).not.toHaveProperty('X-API-Key');
  });

  it('turns the error envelope into an ApiError', async () => {
    const f = fakeFetch(
      Response.json({ error: 'Invalid API key', code: 'INVALID_API_KEY', requestId: 'req_1' }, { status: 401 }),
    );
    const error = await createApiClient(embed, f)
      .get('/v1/x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      message: 'Invalid API key',
      status: 401,
      code: 'INVALID_API_KEY',
      requestId: 'req_1',
    });
  });

  it('survives an error body that is not JSON', async () => {
    const f = fakeFetch(
      new Response('<h1>Bad gateway</h1>', {
        status: 502,
        statusText: 'Bad Gateway',
        headers: { 'X-Request-Id': 'req_2' },
      }),
    );
    await expect(createApiClient(embed, f).get('/v1/x')).rejects.toMatchObject({
      status: 502,
      message: 'Bad Gateway',
      requestId: 'req_2',
    });
  });

  it('reports a request that got no answer as status 0', async () => {
    const f = vi.fn<typeof fetch>(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(createApiClient(embed, f).get('/v1/x')).rejects.toMatchObject({ status: 0, message: 'Network error' });
  });

  it('drops absent and false query values', () => {
    expect(toQueryString({ a: 1, b: undefined, c: null, d: false, e: true, cursor: 'x y' })).toBe(
      '?a=1&e=true&cursor=x+y',
    );
    expect(toQueryString({})).toBe('');
  });

  describe('identical reads share one request', () => {
    /** A fetch whose every call answers anew, after `gate` resolves; counts the calls. */
    function countingFetch() {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let calls = 0;
      const f = vi.fn<typeof fetch>(async () => {
        const call = ++calls;
        await gate;
        return Response.json({ calls: call });
      });
      return { f, release };
    }
    afterEach(() => {
      vi.useRealTimers();
    });

    it('two reads of one URL with the same key in flight: one request, both answered', async () => {
      const { f, release } = countingFetch();
      const api = createApiClient(embed, f);
      const both = Promise.all([
        api.get('/v1/communities/demo/events/walk'),
        api.get('/v1/communities/demo/events/walk'),
      ]);
      release();
      const [a, b] = await both;
      expect(f).toHaveBeenCalledTimes(1);
      expect(a.data).toEqual({ calls: 1 });
      expect(b.data).toEqual({ calls: 1 });
    });

    it('another URL, query or key (none) is another request; a fresh read always goes out', async () => {
      const { f, release } = countingFetch();
      const api = createApiClient(embed, f);
      release();
      await Promise.all([
        api.get('/v1/x'),
        api.get('/v1/y'),
        api.get('/v1/x', { query: { limit: 2 } }),
        api.get('/v1/x', { auth: false }),
        api.get('/v1/x', { fresh: true }),
      ]);
      expect(f).toHaveBeenCalledTimes(5);
      expect(f.mock.calls.at(-1)?.[1]?.cache).toBe('no-cache');
    });

    it('an answer is shared for a second, then asked again', async () => {
      vi.useFakeTimers();
      const { f, release } = countingFetch();
      const api = createApiClient(embed, f);
      release();
      await api.get('/v1/x');
      await vi.advanceTimersByTimeAsync(900);
      expect((await api.get('/v1/x')).data).toEqual({ calls: 1 });
      await vi.advanceTimersByTimeAsync(200);
      expect((await api.get('/v1/x')).data).toEqual({ calls: 2 });
    });

    it('a failure is not shared: trying again asks the server again', async () => {
      let calls = 0;
      const f = vi.fn<typeof fetch>(async () =>
        ++calls === 1 ? Response.json({ error: 'Down', code: 'X' }, { status: 503 }) : Response.json({ ok: true }),
      );
      const api = createApiClient(embed, f);
      await expect(api.get('/v1/x')).rejects.toMatchObject({ status: 503 });
      expect((await api.get('/v1/x')).data).toEqual({ ok: true });
      expect(f).toHaveBeenCalledTimes(2);
    });

    it("one caller's abort rejects only that caller; the other still gets the answer", async () => {
      const { f, release } = countingFetch();
      const api = createApiClient(embed, f);
      const leaving = new AbortController();
      const first = api.get('/v1/x', { signal: leaving.signal });
      const second = api.get('/v1/x');
      leaving.abort();
      release();
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
      expect((await second).data).toEqual({ calls: 1 });
      expect(f).toHaveBeenCalledTimes(1);
    });

    it('a read that settles leaves no abort listener behind on a long-lived signal', async () => {
      const { f, release } = countingFetch();
      const api = createApiClient(embed, f);
      const page = new AbortController();
      const added = vi.spyOn(page.signal, 'addEventListener');
      const removed = vi.spyOn(page.signal, 'removeEventListener');
      release();
      await api.get('/v1/x', { signal: page.signal });
      await api.get('/v1/x', { signal: page.signal });
      const listeners = (spy: typeof added) => spy.mock.calls.filter(([type]) => type === 'abort').map(([, l]) => l);
      expect(listeners(added).length).toBeGreaterThanOrEqual(2);
      for (const listener of listeners(added)) expect(listeners(removed)).toContain(listener);
    });
  });
});
