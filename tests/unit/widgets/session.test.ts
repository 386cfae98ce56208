// $session: loaded once per page, only on the hosted apex; sign-out and sign-in elsewhere on the
// page update it; a new viewer re-fetches the community (whose nav the server filters for them).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ApiClient, type GetOptions } from '../../../widgets/lib/api.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';

const embed: EmbedConfig = {
  community: 'demo',
  key: 'pk_live_abc',
  api: 'http://localhost:3000',
  hosted: false,
  site: null,
};
const hosted: EmbedConfig = { ...embed, key: null, api: 'http://demo.localhost:3000', hosted: true };
const maya = { id: 'u-maya', usertag: 'maya', name: 'Maya Okafor', profileImage: null };

/** A fresh copy of the page-wide modules for every test: their stores live as long as the page. */
async function freshModules() {
  vi.resetModules();
  const session = await import('../../../widgets/lib/session.ts');
  const community = await import('../../../widgets/lib/community.ts');
  return { ...session, ...community };
}

/** An API whose /api/users/me answers whatever `me` says at the time of the call. */
function fakeApi(state: { me: () => unknown }) {
  const calls: { path: string; options?: GetOptions }[] = [];
  const api: ApiClient = {
    resolve: (p) => p,
    async get<T>(path: string, options?: GetOptions) {
      calls.push({ path, options });
      if (path === '/api/users/me') {
        const me = state.me();
        if (me instanceof Error) throw me;
        return { data: me as T, headers: new Headers() };
      }
      return { data: { communityTag: 'demo', storefrontConfig: { nav: [] } } as T, headers: new Headers() };
    },
  };
  return { api, calls };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

/**
 * A document that dispatches events and may carry a server-rendered page's state block
 * (`#svc-state`, widgets/lib/page-state.ts).
 */
function stubDocument(state?: { session: unknown }) {
  const doc = Object.assign(new EventTarget(), {
    getElementById: (id: string) => (id === 'svc-state' && state ? { textContent: JSON.stringify(state) } : null),
  });
  vi.stubGlobal('document', doc);
}

beforeEach(() => {
  stubDocument();
  vi.stubGlobal('BroadcastChannel', undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('$session', () => {
  it('on a server-rendered hosted page starts from the seeded session, without reading it again', async () => {
    // The page's state block says nobody is signed in: $session starts from it.
    stubDocument({ session: null });
    const { $session, loadSession, SESSION_CHANGED } = await freshModules();
    const { api, calls } = fakeApi({ me: () => maya });
    expect($session.get()).toBeNull();
    loadSession(api, hosted);
    await flush();
    expect(calls).toEqual([]);
    expect($session.get()).toBeNull();
    // A sign-in on the page is still heard.
    document.dispatchEvent(new Event(SESSION_CHANGED));
    await flush();
    expect($session.get()).toEqual(maya);
  });

  it('on a customer site is signed out at once, without a request (the cookie is out of reach)', async () => {
    const { $session, loadSession } = await freshModules();
    const { api, calls } = fakeApi({ me: () => maya });
    loadSession(api, embed);
    expect($session.get()).toBeNull();
    await flush();
    expect(calls).toEqual([]);
  });

  it('on the hosted apex reads /api/users/me once per page, without the key', async () => {
    const { $session, loadSession } = await freshModules();
    const { api, calls } = fakeApi({ me: () => maya });
    loadSession(api, hosted);
    expect($session.get()).toBeUndefined();
    loadSession(api, hosted);
    await flush();
    expect($session.get()).toEqual(maya);
    expect(calls.filter((c) => c.path === '/api/users/me')).toHaveLength(1);
    expect(calls[0].options).toMatchObject({ auth: false });
  });

  it('reads a 401 as signed out, and any other failure on first load as signed out too', async () => {
    for (const error of [new ApiError('Sign in required', 401, 'SIGN_IN_REQUIRED'), new ApiError('Network error', 0)]) {
      const { $session, loadSession } = await freshModules();
      loadSession(fakeApi({ me: () => error }).api, hosted);
      await flush();
      expect($session.get()).toBeNull();
    }
  });

  it('updates on svc:session:changed and re-fetches the community for the new viewer', async () => {
    const { $session, $community, loadSession, loadCommunity, SESSION_CHANGED } = await freshModules();
    let me: unknown = new ApiError('Sign in required', 401);
    const { api, calls } = fakeApi({ me: () => me });
    loadCommunity(api, 'demo');
    loadSession(api, hosted);
    await flush();
    expect($session.get()).toBeNull();
    expect($community.get().status).toBe('ready');

    me = maya; // the host page signed the visitor in itself, then told the widgets
    document.dispatchEvent(new Event(SESSION_CHANGED));
    await flush();
    expect($session.get()).toEqual(maya);
    const communityCalls = calls.filter((c) => c.path === '/api/communities/demo');
    expect(communityCalls).toHaveLength(2);
    expect(communityCalls[1].options).toMatchObject({ fresh: true, auth: false });
    // No loading flash for the widgets already on screen while the new copy arrives.
    expect($community.get().status).toBe('ready');
  });

  it('signs out a known user when a later read answers 401 (signed out in another tab or expired)', async () => {
    const { $session, loadSession, refreshSession } = await freshModules();
    let me: unknown = maya;
    loadSession(fakeApi({ me: () => me }).api, hosted);
    await flush();
    me = new ApiError('Sign in required', 401, 'SIGN_IN_REQUIRED');
    await refreshSession();
    expect($session.get()).toBeNull();
  });

  it('keeps a known user when a later read fails for another reason than 401', async () => {
    const { $session, loadSession, refreshSession } = await freshModules();
    let me: unknown = maya;
    loadSession(fakeApi({ me: () => me }).api, hosted);
    await flush();
    me = new ApiError('Service unavailable', 503);
    await refreshSession();
    expect($session.get()).toEqual(maya);
  });

  it('tells the other tabs of the site, and listens to them', async () => {
    const posted: unknown[] = [];
    const channels: { onmessage: (() => void) | null }[] = [];
    vi.stubGlobal(
      'BroadcastChannel',
      class {
        onmessage: (() => void) | null = null;
        constructor(readonly name: string) {
          channels.push(this);
        }
        postMessage(m: unknown) {
          posted.push(m);
        }
      },
    );
    const { $session, loadSession, signOut } = await freshModules();
    let me: unknown = maya;
    loadSession(fakeApi({ me: () => me }).api, hosted);
    await flush();
    await signOut(vi.fn<typeof fetch>(async () => new Response(null, { status: 204 })));
    expect(posted).toEqual(['changed']);

    me = maya; // signed in again in another tab
    channels[0].onmessage!();
    await flush();
    expect($session.get()).toEqual(maya);
  });
});

describe('signOut', () => {
  async function signedIn() {
    const m = await freshModules();
    m.loadSession(fakeApi({ me: () => maya }).api, hosted);
    await flush();
    return m;
  }

  it('posts JSON same-origin with the cookie and clears the session', async () => {
    const { $session, signOut } = await signedIn();
    const f = vi.fn<typeof fetch>(async () => new Response(null, { status: 204 }));
    await signOut(f);
    const [url, init] = f.mock.calls[0];
    expect(url).toBe('/api/auth/sign-out');
    expect(init).toMatchObject({ method: 'POST', credentials: 'same-origin', body: '{}' });
    expect(init?.headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect($session.get()).toBeNull();
  });

  it('treats 401 (the session was already gone) as signed out', async () => {
    const { $session, signOut } = await signedIn();
    await signOut(vi.fn<typeof fetch>(async () => Response.json({ error: 'Sign in required' }, { status: 401 })));
    expect($session.get()).toBeNull();
  });

  it('keeps the user and reports the error when the server refuses or cannot be reached', async () => {
    const { $session, signOut } = await signedIn();
    const refused = vi.fn<typeof fetch>(async () =>
      Response.json({ error: 'Cross-site request', code: 'CROSS_SITE_REQUEST', requestId: 'req_1' }, { status: 403 }),
    );
    await expect(signOut(refused)).rejects.toMatchObject({
      status: 403,
      code: 'CROSS_SITE_REQUEST',
      requestId: 'req_1',
    });
    await expect(
      signOut(
        vi.fn<typeof fetch>(async () => {
          throw new TypeError('Failed to fetch');
        }),
      ),
    ).rejects.toMatchObject({ status: 0 });
    expect($session.get()).toEqual(maya);
  });
});

describe('signInUrl', () => {
  it('sends a visitor on a customer site to the hosted sign-in page with the whole URL to come back to', async () => {
    const { signInUrl } = await freshModules();
    expect(signInUrl('http://demo.localhost:3000', 'http://127.0.0.1:3000/demo/?x=1#events')).toBe(
      'http://demo.localhost:3000/sign-in?next=http%3A%2F%2F127.0.0.1%3A3000%2Fdemo%2F%3Fx%3D1%23events',
    );
  });

  it('uses a path on the site itself (the sign-in page follows same-site paths only)', async () => {
    const { signInUrl } = await freshModules();
    expect(signInUrl('https://hikers.example', 'https://hikers.example/events/ridge-walk?tab=1')).toBe(
      'https://hikers.example/sign-in?next=%2Fevents%2Fridge-walk%3Ftab%3D1',
    );
  });
});
