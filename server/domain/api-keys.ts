// API keys: `pk_live_` (one per community, READ_PUBLIC only, public by design) and `sk_live_`
// (scoped, shown once, stored as a sha256 hash). Keys carry 256 bits of randomness, so a fast
// hash is the right tool here; passwords are a different matter (scrypt, in the auth domain).
import crypto from 'node:crypto';
import { SCOPES, type Scope } from '../../contract/enums.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';

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

/** Looks a presented key up. Revoked and unknown keys are both `null`. */
export async function findApiKey(db: Db, presented: string): Promise<ApiKeyIdentity | null> {
  if (!presented.startsWith(PUBLISHABLE_PREFIX) && !presented.startsWith(SECRET_PREFIX)) return null;
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('communities', 'communities.id', 'api_keys.community_id')
    .select(['api_keys.id', 'api_keys.community_id', 'api_keys.kind', 'api_keys.scopes', 'communities.tag'])
    .where('api_keys.key_hash', '=', hashKey(presented))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    communityId: row.community_id,
    communityTag: row.tag,
    kind: row.kind,
    scopes: effectiveScopes(row.kind, row.scopes),
  };
}

/**
 * `findApiKey` behind a short-lived in-process cache: every authenticated request starts with
 * this lookup. A revocation (made by the CLI, or another instance) is honoured within `ttlMs`
 * (SVC_KEY_CACHE_MS, default 5 s).
 * Unknown keys are not cached, so the map only ever holds real keys.
 */
export function cachedKeyResolver(db: Db, ttlMs: number, maxEntries = 10_000) {
  // Keyed by the key's hash, so no secret key sits in memory longer than its request.
  const cache = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  const fresh = (hash: string) => {
    const hit = cache.get(hash);
    return hit && hit.expiresAt > Date.now() ? hit.identity : undefined;
  };
  return {
    async resolve(presented: string): Promise<ApiKeyIdentity | null> {
      const hash = hashKey(presented);
      const hit = fresh(hash);
      if (hit) return hit;
      const identity = await findApiKey(db, presented);
      cache.delete(hash);
      if (identity && ttlMs > 0) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(hash, { identity, expiresAt: Date.now() + ttlMs });
      }
      return identity;
    },
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
}

/** Lists keys without their secrets (only the display prefix). */
export async function listApiKeys(db: Db, communityTag?: string): Promise<ApiKeySummary[]> {
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
  }));
}

/** Revokes a secret key by id. Returns false when there is no such live secret key. */
export async function revokeApiKey(db: Db, id: string): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('id', '=', id)
    .where('kind', '=', 'secret')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
