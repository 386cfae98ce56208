// The proxy's upstream cache (docs/chrome-proxy.md, "Caching"). Upstream pages are fetched without
// any visitor credential, so one entry serves every visitor; the chrome, which depends on the
// visitor, is applied after it. What is kept is the page already rewritten (./rewrite.ts), so a hit
// costs the chrome and a copy, not a parse. Freshness and revalidation follow RFC 9111 as a shared
// cache (http-cache-semantics): `private` and `no-store` are never kept, `max-age`, `s-maxage`,
// `Expires` and `no-cache` are honoured, and a stale entry with an `ETag` or `Last-Modified` is
// revalidated with a conditional request. The memory cap is SVC_PROXY_CACHE_MB, counted in bytes
// of the kept text; the least recently used entries go first.
import CachePolicy from 'http-cache-semantics';
import { LRUCache } from 'lru-cache';
import type { PreparedPage } from './rewrite.ts';

/** What an upstream answer became, as kept. */
export type CachedAnswer =
  /** A 200 HTML page, rewritten and cut where the chrome goes. */
  | { kind: 'page'; page: PreparedPage; headers: Record<string, string> }
  /** A real 404: the built-in page answers, without asking the upstream again while it is fresh. */
  | { kind: 'not-found' };

export interface CacheEntry {
  policy: CachePolicy;
  answer: CachedAnswer;
}

/** The request as the cache judges it: the upstream URL and the headers sent there. */
export interface CacheRequest {
  url: string;
  /** The entry's key: the upstream URL and everything else the kept page depends on. */
  key: string;
  headers: Record<string, string>;
}

export type CacheLookup =
  | { kind: 'miss' }
  /** Usable as it is. */
  | { kind: 'fresh'; entry: CacheEntry }
  /** Usable only if the upstream says so: send these conditional headers. */
  | { kind: 'stale'; entry: CacheEntry; headers: Record<string, string> };

type PolicyHeaders = Record<string, string | string[] | undefined>;

const NOT_FOUND_SIZE = 256;

export class UpstreamCache {
  private readonly entries: LRUCache<string, CacheEntry> | null;

  constructor(maxBytes: number) {
    this.entries =
      maxBytes > 0
        ? new LRUCache<string, CacheEntry>({
            maxSize: maxBytes,
            // A page bigger than the whole cache is simply not kept (lru-cache refuses it).
            sizeCalculation: (entry) =>
              entry.answer.kind === 'page' ? Math.max(1, entry.answer.page.byteLength) : NOT_FOUND_SIZE,
          })
        : null;
  }

  get enabled(): boolean {
    return this.entries !== null;
  }

  lookup(request: CacheRequest): CacheLookup {
    const entry = this.entries?.get(request.key);
    if (!entry) return { kind: 'miss' };
    const asked = asPolicyRequest(request);
    if (entry.policy.satisfiesWithoutRevalidation(asked)) return { kind: 'fresh', entry };
    const headers = entry.policy.revalidationHeaders(asked);
    // Without a validator a stale entry is useless: the upstream answers in full either way.
    if (!('if-none-match' in headers) && !('if-modified-since' in headers)) return { kind: 'miss' };
    return { kind: 'stale', entry, headers: stringHeaders(headers) };
  }

  /**
   * Keeps an answer if RFC 9111 lets a shared cache keep it. Returns the policy either way, for
   * the caller's own use (the anonymous page cache must not outlive the upstream's freshness).
   */
  store(
    request: CacheRequest,
    response: { status: number; headers: PolicyHeaders },
    answer: CachedAnswer,
  ): CachePolicy {
    const policy = new CachePolicy(asPolicyRequest(request), { status: response.status, headers: response.headers });
    // `Vary: *` can never match again; `storable()` alone would keep it.
    if (this.entries && policy.storable() && !variesOnEverything(response.headers)) {
      this.entries.set(request.key, { policy, answer });
    }
    return policy;
  }

  /**
   * The upstream answered a conditional request: a 304 refreshes the entry (and it is served),
   * anything else means the kept body is no longer the page (the caller stores the new one).
   */
  revalidated(
    request: CacheRequest,
    entry: CacheEntry,
    response: { status: number; headers: PolicyHeaders },
  ): CacheEntry | null {
    const { policy, modified } = entry.policy.revalidatedPolicy(asPolicyRequest(request), {
      status: response.status,
      headers: response.headers,
    });
    if (modified) {
      this.entries?.delete(request.key);
      return null;
    }
    const refreshed = { policy, answer: entry.answer };
    if (policy.storable()) this.entries?.set(request.key, refreshed);
    else this.entries?.delete(request.key);
    return refreshed;
  }

  /** Bytes kept (for tests and the bench). */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  clear(): void {
    this.entries?.clear();
  }
}

const asPolicyRequest = (request: CacheRequest) => ({ url: request.url, method: 'GET', headers: request.headers });

function stringHeaders(headers: PolicyHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function variesOnEverything(headers: PolicyHeaders): boolean {
  const vary = headers.vary;
  const text = Array.isArray(vary) ? vary.join(',') : (vary ?? '');
  return text.split(',').some((name) => name.trim() === '*');
}
