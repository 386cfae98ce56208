// "This community's settings changed": how every process learns it at once. The process that made
// the change forgets its own caches (the CommunityCaches of server/domain/communities.ts: the site
// host lookup behind requestSiteTag and the hosted pages, the origin rule; the read cache of the API
// and of the hosted site's anonymous pages; the chrome proxy's anonymous chrome, kept per community
// row, goes with the row). With Redis (REDIS_URL) it also publishes the community's id on a channel
// every instance subscribes to, and each forgets the same on receipt. Without Redis, other processes
// see the change when their caches expire: COMMUNITY_CACHE_MS (5 s) and SVC_READ_CACHE_MS (1 s).
// Documented in docs/leader-console.md, "Settings".
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** The channel unless told otherwise; instances sharing a database must share it. */
export const COMMUNITY_CHANGES_CHANNEL = 'svc:community-settings-changed';

type Listener = (communityId: string) => void;

export class CommunityChanges {
  readonly #listeners = new Set<Listener>();
  /** Who sent a message: a process ignores its own, having forgotten at once. */
  readonly #instance = crypto.randomUUID();
  #subscriber: Redis | null = null;

  constructor(
    private readonly redis: Redis | null = null,
    private readonly opts: { channel?: string; logger?: Logger } = {},
  ) {}

  get channel(): string {
    return this.opts.channel ?? COMMUNITY_CHANGES_CHANNEL;
  }

  /** Runs `fn` for every change announced here or, with Redis, by another process. */
  onChange(fn: Listener): void {
    this.#listeners.add(fn);
  }

  /**
   * The settings of `communityId` changed and the change has committed: forget here at once, then
   * tell the other processes. Publishing is best effort: if Redis is down they fall back to the TTLs.
   */
  announce(communityId: string): void {
    this.#notify(communityId);
    if (!this.redis) return;
    this.redis
      .publish(this.channel, JSON.stringify({ communityId, from: this.#instance }))
      .catch((err: unknown) =>
        this.opts.logger?.warn(
          { err: (err as Error).message, communityId },
          'could not publish a settings change; other processes see it when their caches expire',
        ),
      );
  }

  /** Subscribes to the other processes' announcements (a second connection: a subscriber does nothing else). */
  async start(): Promise<void> {
    if (!this.redis || this.#subscriber) return;
    const subscriber = this.redis.duplicate({ enableOfflineQueue: true });
    this.#subscriber = subscriber;
    subscriber.on('error', (err: Error) =>
      this.opts.logger?.warn({ err: err.message }, 'settings-change subscriber: redis error'),
    );
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      let message: { communityId?: unknown; from?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return;
      }
      if (message.from === this.#instance || typeof message.communityId !== 'string') return;
      this.#notify(message.communityId);
    });
    try {
      await subscriber.subscribe(this.channel);
    } catch (err) {
      // Redis is not there yet: subscribe once it is (after that, ioredis resubscribes by itself
      // whenever it reconnects).
      subscriber.once('ready', () => {
        subscriber
          .subscribe(this.channel)
          .catch((e: unknown) =>
            this.opts.logger?.warn({ err: (e as Error).message }, 'settings-change subscription failed'),
          );
      });
      throw err;
    }
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  #notify(communityId: string): void {
    for (const fn of this.#listeners) {
      try {
        fn(communityId);
      } catch (err) {
        this.opts.logger?.warn({ err: (err as Error).message, communityId }, 'forgetting a community failed');
      }
    }
  }
}

/**
 * For a process that serves nothing (`svc community update`): announce one change to the servers
 * and disconnect. False when Redis could not be reached; the servers then follow within their TTLs.
 */
export async function announceToServers(
  redisUrl: string,
  communityId: string,
  channel = COMMUNITY_CHANGES_CHANNEL,
): Promise<boolean> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000 });
  redis.on('error', () => {
    /* reported by the result */
  });
  try {
    await redis.connect();
    await redis.publish(channel, JSON.stringify({ communityId, from: 'cli' }));
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
