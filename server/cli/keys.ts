// `svc key create | list | revoke`: secret API keys. A secret is printed once, at creation; lists
// show only the display prefix.
import type { Command } from 'commander';
import { SCOPES, type Scope } from '../../contract/enums.ts';
import { createSecretKey, listApiKeys, revokeApiKey, type ApiKeySummary } from '../domain/api-keys.ts';
import { announceToServers } from '../http/community-changes.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import type { Db } from '../db/index.ts';
import { CliError, note, out, printJson, table, withDatabase, type JsonOption } from './runtime.ts';
import { sayWhatMoved } from './console-moved.ts';

function parseScopes(value: string): Scope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  if (scopes.length === 0) throw new CliError('--scopes needs at least one scope');
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new CliError(`unknown scope ${unknown.join(', ')} (valid: ${SCOPES.join(', ')})`);
  return [...new Set(scopes)] as Scope[];
}

async function communityId(db: Db, tag: string): Promise<string> {
  const row = await findCommunityByTag(db, tag);
  if (!row) throw new CliError(`community "${tag}" not found`);
  return row.id;
}

const status = (k: ApiKeySummary) => (k.revokedAt ? `revoked ${k.revokedAt}` : 'live');

export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('Manage API keys: create, list and revoke secret keys.');
  sayWhatMoved(key, 'key');

  key
    .command('create')
    .description('Create a secret (sk_live_) key. The key is printed once and stored only as a hash.')
    .requiredOption('--community <tag>', 'community tag')
    .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}`)
    .option('--name <name>', 'a label to recognise the key by')
    .option('--json', 'print the result as JSON')
    .action(async (opts: JsonOption & { community: string; scopes: string; name?: string }) => {
      const scopes = parseScopes(opts.scopes);
      const created = await withDatabase(async (db) =>
        createSecretKey(db, await communityId(db, opts.community), scopes, opts.name ?? null),
      );
      if (opts.json) {
        printJson({
          id: created.id,
          communityTag: opts.community,
          name: opts.name ?? null,
          key: created.key,
          prefix: created.prefix,
          scopes: created.scopes,
        });
      } else {
        out(`Created secret key ${created.id} for community ${opts.community}`);
        if (opts.name) out(`  name:    ${opts.name}`);
        out(`  scopes:  ${created.scopes.join(', ')}`);
        out(`  key:     ${created.key}`);
      }
      note('warning: this key is shown only once and cannot be recovered. Store it now.');
    });

  key
    .command('list')
    .description('List API keys (publishable and secret) with their prefixes; never the secrets.')
    .option('--community <tag>', 'only the keys of this community')
    .option('--json', 'print the keys as JSON')
    .action(async (opts: JsonOption & { community?: string }) => {
      const keys = await withDatabase(async (db) => {
        if (opts.community) await communityId(db, opts.community);
        return listApiKeys(db, opts.community);
      });
      if (opts.json) {
        printJson(keys);
        return;
      }
      if (keys.length === 0) {
        out('No API keys.');
        return;
      }
      out(
        table(
          ['ID', 'COMMUNITY', 'KIND', 'PREFIX', 'NAME', 'SCOPES', 'CREATED', 'STATUS'],
          keys.map((k) => [
            k.id,
            k.communityTag,
            k.kind,
            `${k.prefix}…`,
            k.name ?? '-',
            k.scopes.join(','),
            k.createdAt,
            status(k),
          ]),
        ),
      );
    });

  key
    .command('revoke')
    .description('Revoke a secret key by id (see `svc key list`). Revoking a revoked key is a no-op.')
    .argument('<id>', 'the key id')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts: JsonOption) => {
      const result = await withDatabase(async (db, ctx) => {
        const before = (await listApiKeys(db)).find((k) => k.id === id);
        if (!before) throw new CliError(`no API key with id ${id}`);
        if (before.kind === 'publishable')
          throw new CliError('publishable keys cannot be revoked: they are public by design and READ_PUBLIC only');
        const revokedNow = await revokeApiKey(db, id);
        const after = (await listApiKeys(db, before.communityTag)).find((k) => k.id === id) as ApiKeySummary;
        const { community_id: communityId } = await db
          .selectFrom('api_keys')
          .select('community_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return {
          key: after,
          alreadyRevoked: !revokedNow,
          communityId,
          redisUrl: ctx.config.redisUrl,
          keyCacheMs: ctx.config.keyCacheMs,
        };
      });
      // With REDIS_URL every server forgets the community's cached keys at once, as for a
      // revocation in the leader console; otherwise a server trusts its copy for SVC_KEY_CACHE_MS.
      if (!result.alreadyRevoked && result.redisUrl && !(await announceToServers(result.redisUrl, result.communityId)))
        note(
          `warning: Redis could not be reached; servers stop accepting the key within SVC_KEY_CACHE_MS (${result.keyCacheMs} ms)`,
        );
      if (opts.json) {
        printJson({
          id,
          communityTag: result.key.communityTag,
          prefix: result.key.prefix,
          revokedAt: result.key.revokedAt,
          alreadyRevoked: result.alreadyRevoked,
        });
      } else if (result.alreadyRevoked) {
        out(`Key ${id} (${result.key.prefix}…) was already revoked at ${result.key.revokedAt}.`);
      } else {
        out(`Revoked key ${id} (${result.key.prefix}…) of community ${result.key.communityTag}.`);
      }
    });
}
