// $session: who is signed in, shared by every widget on the page, so signing in or out in one
// widget updates all of them (and, through a BroadcastChannel, the site's other tabs).
//
// Only the hosted apex can know: its widgets call `/api/users/me` same-origin with the HttpOnly
// sign-in cookie. On a customer's site the widgets hold only the publishable key and never send
// cookies, so the session reads as signed out there and "Sign in" opens the community's hosted
// sign-in page, which returns to `next` afterwards (why the customer's page cannot learn the
// session: docs/widgets.md, "Why a customer's page never shows who is signed in").
import { atom } from 'nanostores';
import type { Me } from '../../contract/resources.ts';
import { ApiError, type ApiClient } from './api.ts';
import { loadCommunity } from './community.ts';
import type { EmbedConfig } from './contract.ts';
import { pageState } from './page-state.ts';

export type SessionUser = Pick<Me, 'id' | 'usertag' | 'name' | 'profileImage'>;

/**
 * The signed-in user, null when nobody is (or the page cannot know), undefined until known. A
 * server-rendered page says from the start (its state block), so its widgets hydrate with it.
 */
export const $session = atom<SessionUser | null | undefined>(pageState()?.session);

/** What the host page dispatches on `document` after signing the visitor in or out itself. */
export const SESSION_CHANGED = 'svc:session:changed';

let context: { api: ApiClient; config: EmbedConfig } | null = null;
let channel: BroadcastChannel | null = null;
let queue: Promise<void> = Promise.resolve();

function setUser(user: SessionUser | null): void {
  const before = $session.get();
  $session.set(user);
  // The community's nav is filtered by the server for the viewer: a new viewer needs a new copy.
  if (before !== undefined && before?.id !== user?.id && context)
    loadCommunity(context.api, context.config.community, true);
}

/**
 * Reads the session again (same-origin only). Reads run one after another, so a read asked for
 * after a sign-in never gets the answer of one that started before it. A failure other than 401
 * leaves a known user in place.
 */
export function refreshSession(): Promise<void> {
  if (!context?.config.hosted) return Promise.resolve();
  const { api } = context;
  return (queue = queue.then(() =>
    api.get<Me>('/api/users/me', { auth: false, fresh: true }).then(
      ({ data }) => setUser(data),
      (error: unknown) => {
        // 401: nobody is signed in. Anything else (offline, 5xx): we do not know, so a page that
        // knew nothing yet shows "Sign in", and a known user stays until proven otherwise.
        if ((error as ApiError | undefined)?.status === 401 || $session.get() === undefined) setUser(null);
      },
    ),
  ));
}

/** Tells the site's other tabs; they read the session again. */
function tellOtherTabs(): void {
  channel?.postMessage('changed');
}

/** Starts the session on first use; later calls are free. */
export function loadSession(api: ApiClient, config: EmbedConfig): void {
  if (context) return;
  context = { api, config };
  if (!config.hosted) {
    $session.set(null);
    return;
  }
  // A server-rendered page seeded $session from the very cookie this read would send (its state
  // block): asking again would only cost a request, and a 401 in the console for every visitor.
  if ($session.get() === undefined) void refreshSession();
  document.addEventListener(SESSION_CHANGED, () => void refreshSession().then(tellOtherTabs));
  if (typeof BroadcastChannel === 'function') {
    channel = new BroadcastChannel('svc:session');
    channel.onmessage = () => void refreshSession();
  }
}

/**
 * Signs out (`POST /api/auth/sign-out`, same-origin with the cookie) and clears the session
 * everywhere. A 401 means the session was already gone: that is signed out too.
 */
export async function signOut(fetchImpl: typeof fetch = (...a) => fetch(...a)): Promise<void> {
  let res: Response;
  try {
    res = await fetchImpl('/api/auth/sign-out', {
      method: 'POST',
      credentials: 'same-origin',
      // JSON, from the site's own page: what the server's CSRF checks ask of a cookie write.
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: '{}',
    });
  } catch {
    throw new ApiError('Network error', 0);
  }
  if (!res.ok && res.status !== 401) {
    const body = (await res.json().catch(() => ({}))) as { error?: string; code?: string; requestId?: string };
    throw new ApiError(body.error ?? `HTTP ${res.status}`, res.status, body.code, body.requestId);
  }
  setUser(null);
  tellOtherTabs();
}

/**
 * The hosted sign-in page, coming back to `here` afterwards: as a path when `here` is on the
 * site itself, else the whole URL, which the sign-in page follows when its origin is one of the
 * community's (an embed origin, for a customer's page; docs/sign-in.md).
 */
export function signInUrl(site: string, here: string): string {
  const url = new URL(here);
  const next = url.origin === site ? url.pathname + url.search + url.hash : url.href;
  return `${site}/sign-in?next=${encodeURIComponent(next)}`;
}
