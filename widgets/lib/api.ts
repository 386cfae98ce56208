// The one way widgets talk to the platform. Cross-origin embeds authenticate with the publishable
// key and never send cookies (the API answers `Access-Control-Allow-Origin: *`, which browsers
// refuse to combine with credentials). On the hosted apex the same paths are called relatively
// so the visitor's sign-in cookie rides along, with no key: there the community's public /v1
// reads answer keyless (docs/decisions/0027-own-site-reads-need-no-key.md).
import type { EmbedConfig } from './contract.ts';

export class ApiError extends Error {
  constructor(
    message: string,
    /** HTTP status; 0 when the request never got an answer (offline, CORS, aborted). */
    readonly status: number,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface GetOptions {
  query?: Query;
  /** Send the publishable key. Off for routes that take none, which also spares a CORS preflight. */
  auth?: boolean;
  signal?: AbortSignal;
  /** Revalidate with the server instead of taking the browser's cached answer (after sign-in/out). */
  fresh?: boolean;
}

export interface ApiResponse<T> {
  data: T;
  headers: Headers;
}

export interface ApiClient {
  get<T>(path: string, options?: GetOptions): Promise<ApiResponse<T>>;
  /** Absolute URL of a platform path, e.g. for images the API returns as relative paths. */
  resolve(path: string): string;
}

export function toQueryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    // `false` is dropped rather than sent: the API treats a missing flag as false, and not
    // sending it keeps cache keys stable.
    if (value === undefined || value === null || value === false) continue;
    params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

async function readError(res: Response): Promise<ApiError> {
  let body: { error?: unknown; code?: unknown; requestId?: unknown } = {};
  try {
    body = await res.json();
  } catch {
    // Not our envelope (a proxy's HTML error page, say): fall back to the status line.
  }
  return new ApiError(
    typeof body.error === 'string' ? body.error : res.statusText || `HTTP ${res.status}`,
    res.status,
    typeof body.code === 'string' ? body.code : undefined,
    typeof body.requestId === 'string' ? body.requestId : (res.headers.get('X-Request-Id') ?? undefined),
  );
}

/**
 * Identical reads share one request: one in flight, or answered less than this long ago, is what
 * a second caller gets (the RSVP and donate widgets of one event both read it). The server's
 * own read cache keeps answers as long (docs/api.md, "Caching"), so nothing older is shown.
 */
const SHARE_MS = 1000;

/** `answer`, or the caller's abort: one caller leaving does not cancel what others wait for. */
const abortable = <T>(answer: Promise<T>, signal: AbortSignal | undefined): Promise<T> =>
  signal
    ? new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        // Removed once settled: a long-lived signal does not collect a listener per read.
        signal.addEventListener('abort', onAbort);
        answer.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
      })
    : answer;

export function createApiClient(config: EmbedConfig, fetchImpl: typeof fetch = (...a) => fetch(...a)): ApiClient {
  const base = config.hosted ? '' : config.api;
  const shared = new Map<string, Promise<ApiResponse<any>>>();
  const send = async <T>(url: string, key: string | null, fresh?: boolean, signal?: AbortSignal) => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (key) headers['X-API-Key'] = key;
    let res: Response;
    try {
      res = await fetchImpl(url, {
        headers,
        credentials: config.hosted ? 'same-origin' : 'omit',
        signal,
        cache: fresh ? 'no-cache' : undefined,
      });
    } catch (cause) {
      if (signal?.aborted) throw cause;
      throw new ApiError('Network error', 0);
    }
    if (!res.ok) throw await readError(res);
    return { data: (await res.json()) as T, headers: res.headers };
  };
  return {
    resolve: (path) => new URL(path, config.hosted ? location.origin : config.api).href,
    get<T>(path: string, options: GetOptions = {}): Promise<ApiResponse<T>> {
      const url = base + path + toQueryString(options.query);
      const key = options.auth !== false ? config.key : null;
      const id = `${key} ${url}`;
      // A fresh read goes to the server on its own, and what was shared is stale from now on.
      if (options.fresh) {
        shared.delete(id);
        return send<T>(url, key, true, options.signal);
      }
      let answer = shared.get(id);
      if (!answer) {
        shared.set(id, (answer = send<T>(url, key)));
        // Failures are not shared, so "Try again" asks again.
        answer.then(
          () => setTimeout(() => shared.get(id) === answer && shared.delete(id), SHARE_MS),
          () => shared.get(id) === answer && shared.delete(id),
        );
      }
      return abortable(answer, options.signal);
    },
  };
}
