import { describe, expect, it, vi } from 'vitest';
import type { Community } from '../../../contract/resources.ts';
import { ApiError, type ApiClient } from '../../../widgets/lib/api.ts';
import { siteOrigin } from '../../../widgets/lib/community.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';

const embed: EmbedConfig = {
  community: 'demo',
  key: 'pk_live_abc',
  api: 'http://localhost:3000',
  hosted: false,
  site: null,
};
const community = (domains: string[]) => ({ domains }) as Community;

describe('siteOrigin (where event links go)', () => {
  it('prefers an explicit data-site', () => {
    expect(
      siteOrigin({ ...embed, site: 'https://hike.acme.example/' }, community(['x.example']), 'https://page.example'),
    ).toBe('https://hike.acme.example');
  });

  it('is the page itself on the hosted apex', () => {
    expect(siteOrigin({ ...embed, hosted: true }, community(['x.example']), 'https://hikers.example')).toBe(
      'https://hikers.example',
    );
  });

  it("uses the community's custom domain over https", () => {
    expect(siteOrigin(embed, community(['hikers.example', 'www.hikers.example']), 'https://blog.example')).toBe(
      'https://hikers.example',
    );
  });

  it('keeps the development scheme and port for .localhost domains', () => {
    expect(siteOrigin(embed, community(['demo.localhost']), 'http://127.0.0.1:3000')).toBe(
      'http://demo.localhost:3000',
    );
  });

  it('falls back to <tag>.<platform host> without a domain or community', () => {
    expect(siteOrigin(embed, community([]), 'http://127.0.0.1:3000')).toBe('http://demo.localhost:3000');
    expect(siteOrigin({ ...embed, api: 'https://svc.example' }, null, 'https://blog.example')).toBe(
      'https://demo.svc.example',
    );
  });
});

describe('loadCommunity', () => {
  const answer = (label: string) => ({ communityTag: 'demo', storefrontConfig: { nav: [{ href: '/x', label }] } });
  const flush = () => new Promise((r) => setTimeout(r, 0));
  async function fresh() {
    vi.resetModules();
    return import('../../../widgets/lib/community.ts');
  }

  it('fetches once per page, without the key', async () => {
    const { $community, loadCommunity } = await fresh();
    const get = vi.fn(async () => ({ data: answer('A'), headers: new Headers() }));
    const api = { get, resolve: (p: string) => p } as unknown as ApiClient;
    loadCommunity(api, 'demo');
    loadCommunity(api, 'demo');
    await flush();
    expect(get).toHaveBeenCalledTimes(1);
    expect(get.mock.calls[0]).toEqual(['/api/communities/demo', { auth: false, fresh: false }]);
    expect($community.get()).toMatchObject({ status: 'ready', community: answer('A') });
  });

  it('reloads fresh for a new viewer, keeping the current object on screen until the answer arrives', async () => {
    const { $community, loadCommunity } = await fresh();
    let label = 'anonymous';
    const get = vi.fn(async () => ({ data: answer(label), headers: new Headers() }));
    const api = { get, resolve: (p: string) => p } as unknown as ApiClient;
    loadCommunity(api, 'demo');
    await flush();
    label = 'member';
    loadCommunity(api, 'demo', true);
    expect($community.get().status).toBe('ready');
    await flush();
    expect(get.mock.calls[1]).toEqual(['/api/communities/demo', { auth: false, fresh: true }]);
    expect($community.get()).toMatchObject({ community: answer('member') });
  });

  it('lets only the newest request answer, and keeps the object when a reload fails', async () => {
    const { $community, loadCommunity } = await fresh();
    const releases: ((v: unknown) => void)[] = [];
    const get = vi.fn(
      () =>
        new Promise((resolve, reject) =>
          releases.push((v) => (v instanceof Error ? reject(v) : resolve({ data: v, headers: new Headers() }))),
        ),
    );
    const api = { get, resolve: (p: string) => p } as unknown as ApiClient;
    loadCommunity(api, 'demo');
    releases[0](answer('first'));
    await flush();
    loadCommunity(api, 'demo', true); // signed in
    loadCommunity(api, 'demo', true); // and out again, before the first reload answered
    releases[2](answer('latest'));
    await flush();
    releases[1](answer('stale'));
    await flush();
    expect($community.get()).toMatchObject({ community: answer('latest') });
    loadCommunity(api, 'demo', true);
    releases[3](new ApiError('Network error', 0));
    await flush();
    expect($community.get()).toMatchObject({ status: 'ready', community: answer('latest') });
  });
});
