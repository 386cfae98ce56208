// A short-lived cache of public read responses, per community. Widgets on many customer pages
// ask for the same few lists; a cache measured in a second turns that load into one query per
// second per distinct request, while keeping data fresh:
// - a write in this process calls `invalidate(communityId)` and the next read is fresh;
// - writes in another instance are seen within the TTL (SVC_READ_CACHE_MS, default 1 s).
// Entries are serialized bodies (the API's JSON, the hosted site's anonymous HTML pages), so a hit
// skips the queries and the rendering.
export interface CachedResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** The body gzipped, where the producer keeps one (the hosted site's pages): compressed once, sent many times. */
  gzip?: Buffer;
}

interface Entry extends CachedResponse {
  expiresAt: number;
  generation: number;
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(scope: string, key: string): CachedResponse | undefined {
    if (!this.enabled) return undefined;
    const id = `${scope}\u0000${key}`;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now() || entry.generation !== (this.generations.get(scope) ?? 0)) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** The community's current generation: take it before reading, hand it to `set`. */
  generation(scope: string): number {
    return this.generations.get(scope) ?? 0;
  }

  /**
   * Stores an answer computed from data read at `generation`. If the community was invalidated
   * since (a write landed while the answer was being computed), the answer is stale: not stored.
   */
  set(
    scope: string,
    key: string,
    value: CachedResponse,
    generation = this.generation(scope),
    /** Shorter than the cache's own TTL where the answer itself goes stale sooner (a proxied page). */
    ttlMs = this.ttlMs,
  ): void {
    if (!this.enabled || generation !== this.generation(scope)) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: dropping the first entry drops the oldest.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(`${scope}\u0000${key}`, {
      ...value,
      expiresAt: Date.now() + Math.min(this.ttlMs, ttlMs),
      generation,
    });
  }

  /** Every cached read of this community is stale from now on. Call it after a write commits. */
  invalidate(scope: string): void {
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
  }
}
