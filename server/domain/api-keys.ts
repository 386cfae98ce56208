// API keys: `pk_live_` (one per community, READ_PUBLIC only, public by design) and `sk_live_`
// (scoped, shown once, stored as a sha256 hash). Keys carry 256 bits of randomness, so a fast
// hash is the right tool here; passwords are a different matter (scrypt, in the auth domain).
import crypto from 'node:crypto';
import { SCOPES, type Scope } from '../../contract/enums.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import { reusableQuery } from '../db/reusable-query.ts';

export const PUBLISHABLE_PREFIX = 'pk_live_';
export const SECRET_PREFIX = 'sk_live_';

export interface ApiKeyIdentity {
  id: string;
  communityId: string;
  communityTag: string;
  kind: 'publishable' | 'secret';
  scopes: Scope[];
}

export const hashKey = (key: string): string => crypto.createHash('sha256').update(key).digest('hex');
const randomToken = (bytes: number): string => crypto.randomBytes(bytes).toString('base64url');
const displayPrefix = (key: string): string => key.slice(0, 14);

/** A key's scopes as stored, capped for publishable keys whatever the row says. */
function effectiveScopes(kind: 'publishable' | 'secret', stored: string): Scope[] {
  if (kind === 'publishable') return ['READ_PUBLIC'];
  return parseJson<string[]>(stored, []).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}

/**
 * What a request needs of the key's community besides its id and tag: read in the same query as
 * the key, so a keyed read that needs it (the events audience) costs no second lookup. Only ever
 * as fresh as that query: a key served from the key cache comes without it (see `lookup`).
 */
export interface KeyCommunity {
  visibility: 'PUBLIC' | 'MEMBERS_ONLY';
  page_settings: string | null;
}

/** A presented key as looked up: who it is, and its community when the database was read just now. */
export interface KeyLookup {
  identity: ApiKeyIdentity;
  /** Null when the identity came from the key cache: the community was not read with it. */
  community: KeyCommunity | null;
}

// Compiled once (server/db/reusable-query.ts): every keyed request starts with this query.
const keyByHash = reusableQuery((db, hash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select([
      'api_keys.id',
      'api_keys.community_id',
      'api_keys.kind',
      'api_keys.scopes',
      'communities.tag',
      'communities.visibility',
      'communities.page_settings',
    ])
    .where('api_keys.key_hash', '=', hash)
    .where('api_keys.revoked_at', 'is', null),
);

/** Looks a presented key up, with its community's KeyCommunity fields. Revoked and unknown keys are both `null`. */
export async function lookUpApiKey(db: Db, presented: string, hash = hashKey(presented)): Promise<KeyLookup | null> {
  if (!presented.startsWith(PUBLISHABLE_PREFIX) && !presented.startsWith(SECRET_PREFIX)) return null;
  const [row] = await keyByHash(db, hash);
  if (!row) return null;
  return {
    identity: {
      id: row.id,
      communityId: row.community_id,
      communityTag: row.tag,
      kind: row.kind,
      scopes: effectiveScopes(row.kind, row.scopes),
    },
    community: { visibility: row.visibility, page_settings: row.page_settings },
  };
}

/** Looks a presented key up. Revoked and unknown keys are both `null`. */
export async function findApiKey(db: Db, presented: string): Promise<ApiKeyIdentity | null> {
  return (await lookUpApiKey(db, presented))?.identity ?? null;
}

/** A secret key's last use is written at most this often per key and process (docs/leader-console.md). */
export const LAST_USE_EVERY_MS = 60_000;

/**
 * Keeps `api_keys.last_used_at` to the minute without slowing the requests that use a key: a use
 * is remembered in memory, at most one write per key per `everyMs` is queued, and the writes run
 * after the current request's work (setImmediate), one at a time, never awaited by a request. A
 * failed write is dropped: the next use a minute later writes again. The `<` condition keeps a
 * slower process from moving the time backwards.
 */
export function lastUseRecorder(db: Db, everyMs = LAST_USE_EVERY_MS, maxEntries = 10_000) {
  const written = new Map<string, number>();
  const due = new Map<string, string>();
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();
  const writeDue = async () => {
    scheduled = false;
    const batch = [...due];
    due.clear();
    for (const [id, at] of batch) {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute()
        .catch(() => undefined);
    }
  };
  return {
    touch(keyId: string, now = Date.now()): void {
      const last = written.get(keyId);
      if (last !== undefined && now - last < everyMs) return;
      written.delete(keyId);
      if (written.size >= maxEntries) written.delete(written.keys().next().value!);
      written.set(keyId, now);
      due.set(keyId, new Date(now).toISOString());
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        writing = writing.then(writeDue);
      });
    },
    /** Resolves once every use recorded so far is written (tests, shutdown). */
    async settled(): Promise<void> {
      while (scheduled || due.size > 0) await new Promise((r) => setImmediate(r));
      await writing;
    },
  };
}

/**
 * `findApiKey` behind a short-lived in-process cache: every authenticated request starts with
 * this lookup. A revocation in this process (the leader console) is honoured at once (`forget`);
 * one made by the CLI or another instance at once where it is announced through Redis
 * (`forgetCommunity`, server/http/community-changes.ts), else within `ttlMs` (SVC_KEY_CACHE_MS,
 * default 5 s).
 * Unknown keys are not cached, so the map only ever holds real keys. Each secret key's use is
 * handed to `lastUseRecorder`, a map lookup on the hot path.
 */
export function cachedKeyResolver(db: Db, ttlMs: number, maxEntries = 10_000) {
  // Keyed by the key's hash, so no secret key sits in memory longer than its request.
  const cache = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  // Counts what was forgotten: a lookup that read the key before a revocation committed, and
  // finishes after it was forgotten, must not cache what it read.
  let forgotten = 0;
  const lastUse = lastUseRecorder(db);
  const fresh = (hash: string) => {
    const hit = cache.get(hash);
    return hit && hit.expiresAt > Date.now() ? hit.identity : undefined;
  };
  const used = (identity: ApiKeyIdentity) => {
    if (identity.kind === 'secret') lastUse.touch(identity.id);
    return identity;
  };
  return {
    /**
     * The key and, when it was read from the database just now (not from the cache), its
     * community's KeyCommunity fields from the same query.
     */
    async lookup(presented: string): Promise<KeyLookup | null> {
      const hash = hashKey(presented);
      const hit = fresh(hash);
      if (hit) return { identity: used(hit), community: null };
      const before = forgotten;
      const found = await lookUpApiKey(db, presented, hash);
      cache.delete(hash);
      if (found && ttlMs > 0 && forgotten === before) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(hash, { identity: found.identity, expiresAt: Date.now() + ttlMs });
      }
      if (found) used(found.identity);
      return found;
    },
    async resolve(presented: string): Promise<ApiKeyIdentity | null> {
      return (await this.lookup(presented))?.identity ?? null;
    },
    /** Drops a revoked key from this process's cache, so its next request is refused. */
    forget(keyId: string): void {
      forgotten += 1;
      for (const [hash, entry] of cache) if (entry.identity.id === keyId) cache.delete(hash);
    },
    /**
     * Drops every key of a community: another process revoked one of them (or changed the
     * community), announced through CommunityChanges, and its id is not in the message.
     */
    forgetCommunity(communityId: string): void {
      forgotten += 1;
      for (const [hash, entry] of cache) if (entry.identity.communityId === communityId) cache.delete(hash);
    },
    /** Resolves once the last-use times recorded so far are written. */
    settled: () => lastUse.settled(),
  };
}
export type KeyResolver = ReturnType<typeof cachedKeyResolver>;

/** The community's publishable key, created on the first call. Concurrent first calls agree. */
export async function provisionPublishableKey(db: Db | Trx, communityId: string): Promise<string> {
  const current = async () =>
    (
      await db
        .selectFrom('api_keys')
        .select('publishable_key')
        .where('community_id', '=', communityId)
        .where('kind', '=', 'publishable')
        .executeTakeFirst()
    )?.publishable_key ?? null;
  const existing = await current();
  if (existing) return existing;
  const key = PUBLISHABLE_PREFIX + randomToken(24);
  // A concurrent first call may win the race; the unique index keeps one key and we return it.
  // `on conflict do nothing` (not catch-and-retry) keeps a surrounding PostgreSQL transaction usable.
  await db
    .insertInto('api_keys')
    .values({
      id: newId(),
      community_id: communityId,
      kind: 'publishable',
      key_hash: hashKey(key),
      key_prefix: displayPrefix(key),
      publishable_key: key,
      scopes: JSON.stringify(['READ_PUBLIC']),
      name: 'Publishable key',
      created_at: nowIso(),
      revoked_at: null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const kept = await current();
  if (!kept) throw new Error('publishable key vanished right after it was provisioned');
  return kept;
}

export interface CreatedSecretKey {
  id: string;
  /** The whole key. This is the only time it exists outside the caller's hands. */
  key: string;
  prefix: string;
  scopes: Scope[];
}

export async function createSecretKey(
  db: Db | Trx,
  communityId: string,
  scopes: Scope[],
  name: string | null = null,
): Promise<CreatedSecretKey> {
  if (scopes.length === 0) throw new Error('a secret key needs at least one scope');
  const key = SECRET_PREFIX + randomToken(32);
  const id = newId();
  const unique = [...new Set(scopes)];
  await db
    .insertInto('api_keys')
    .values({
      id,
      community_id: communityId,
      kind: 'secret',
      key_hash: hashKey(key),
      key_prefix: displayPrefix(key),
      publishable_key: null,
      scopes: JSON.stringify(unique),
      name,
      created_at: nowIso(),
      revoked_at: null,
    })
    .execute();
  return { id, key, prefix: displayPrefix(key), scopes: unique };
}

export interface ApiKeySummary {
  id: string;
  communityTag: string;
  kind: 'publishable' | 'secret';
  prefix: string;
  scopes: Scope[];
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** To the minute (LAST_USE_EVERY_MS); null when never used. */
  lastUsedAt: string | null;
}

/** Lists keys without their secrets (only the display prefix). */
export async function listApiKeys(db: Db | Trx, communityTag?: string): Promise<ApiKeySummary[]> {
  let q = db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select([
      'api_keys.id',
      'communities.tag',
      'api_keys.kind',
      'api_keys.key_prefix',
      'api_keys.scopes',
      'api_keys.name',
      'api_keys.created_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
    ])
    .orderBy('api_keys.created_at');
  if (communityTag) q = q.where('communities.tag', '=', communityTag);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    communityTag: r.tag,
    kind: r.kind,
    prefix: r.key_prefix,
    scopes: effectiveScopes(r.kind, r.scopes),
    name: r.name,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
  }));
}

/** Revokes a secret key by id. Returns false when there is no such live secret key. */
export async function revokeApiKey(db: Db | Trx, id: string): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('id', '=', id)
    .where('kind', '=', 'secret')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
