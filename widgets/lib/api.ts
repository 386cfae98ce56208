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

export function createApiClient(config: EmbedConfig, fetchImpl: typeof fetch = (...a) => fetch(...a)): ApiClient {
  const base = config.hosted ? '' : config.api;
  return {
    resolve: (path) => new URL(path, config.hosted ? location.origin : config.api).href,
    async get<T>(path: string, options: GetOptions = {}): Promise<ApiResponse<T>> {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (options.auth !== false && config.key) headers['X-API-Key'] = config.key;
      let res: Response;
      try {
        res = await fetchImpl(base + path + toQueryString(options.query), {
          headers,
          credentials: config.hosted ? 'same-origin' : 'omit',
          signal: options.signal,
          cache: options.fresh ? 'no-cache' : undefined,
        });
      } catch (cause) {
        if (options.signal?.aborted) throw cause;
        throw new ApiError('Network error', 0);
      }
      if (!res.ok) throw await readError(res);
      return { data: (await res.json()) as T, headers: res.headers };
    },
  };
}
