import { describe, expect, it, vi } from 'vitest';
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
});
