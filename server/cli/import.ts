// `svc import <file.json>` and `svc seed`: both import a fixture and print the same summary.
import type { Command } from 'commander';
import {
  COUNT_KINDS,
  FixtureError,
  importFixture,
  readFixtureFile,
  type Counts,
  type ImportResult,
} from '../domain/import.ts';
import { seedDemo, DEMO_FIXTURE_PATH } from '../domain/seed.ts';
import { systemLookup } from '../webhooks/ssrf.ts';
import { note, out, printJson, withDatabase, type JsonOption } from './runtime.ts';

const LABELS: Record<(typeof COUNT_KINDS)[number], [string, string]> = {
  communities: ['community', 'communities'],
  domains: ['domain', 'domains'],
  users: ['user', 'users'],
  memberships: ['membership', 'memberships'],
  events: ['event', 'events'],
  tiers: ['tier', 'tiers'],
  articles: ['article', 'articles'],
  products: ['product', 'products'],
  segments: ['segment', 'segments'],
  atlasCategories: ['atlas category', 'atlas categories'],
  atlasHotspots: ['atlas hotspot', 'atlas hotspots'],
  conversations: ['conversation', 'conversations'],
  apiKeys: ['API key', 'API keys'],
  webhooks: ['webhook endpoint', 'webhook endpoints'],
};

function describe(counts: Counts, field: 'created' | 'unchanged'): string {
  const parts = COUNT_KINDS.filter((k) => counts[k][field] > 0).map(
    (k) => `${counts[k][field]} ${LABELS[k][counts[k][field] === 1 ? 0 : 1]}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

const eventList = (events: string[]) => (events.includes('*') ? 'all events' : events.join(', '));

/** The human summary: what was created, what was already there, the keys and the webhook secrets. */
export function printImportResult(source: string, result: ImportResult): void {
  out(`Imported ${source}: ${result.created} created, ${result.unchanged} unchanged.`);
  for (const c of result.communities) {
    out();
    out(`Community ${c.tag}`);
    out(`  created:          ${describe(c.counts, 'created')}`);
    out(`  already present:  ${describe(c.counts, 'unchanged')}`);
    out(`  publishable key:  ${c.publishableKey}`);
    for (const k of c.secretKeys) {
      const label = `  secret key "${k.name}" (${k.scopes.join(', ')}):`;
      if (k.key) {
        out(`${label} ${k.key}`);
      } else {
        out(`${label} exists as ${k.prefix}… (id ${k.id}); its secret was shown when it was created`);
      }
    }
    for (const w of c.webhooks) {
      const label = `  webhook ${w.url} (${eventList(w.events)}):`;
      if (w.secret) {
        out(`${label} id ${w.id}, signing secret ${w.secret}`);
      } else {
        out(`${label} exists as ${w.id} (${w.status.toLowerCase()}); its secret was shown when it was registered`);
      }
    }
  }
}

/** On stderr in both output modes, so it never mixes into the JSON a script parses. */
function warnAboutNewSecrets(result: ImportResult): void {
  for (const c of result.communities) {
    for (const w of c.webhooks) {
      if (w.resolved === false) {
        note(
          `note: the host of ${w.url} (community ${c.tag}) does not resolve now; it is checked again at every delivery.`,
        );
      }
    }
  }
  const keys = result.communities.some((c) => c.secretKeys.some((k) => k.key !== null));
  const hooks = result.communities.some((c) => c.webhooks.some((w) => w.secret !== null));
  if (keys || hooks) {
    const what =
      keys && hooks
        ? 'secret keys and webhook signing secrets are'
        : keys
          ? 'secret keys are'
          : 'webhook signing secrets are';
    note(`warning: ${what} shown only once and cannot be recovered. Store them now.`);
  }
}

function print(source: string, result: ImportResult, opts: JsonOption): void {
  if (opts.json) printJson(result);
  else printImportResult(source, result);
  warnAboutNewSecrets(result);
}

export function registerImportCommands(program: Command): void {
  program
    .command('import')
    .description(
      'Import a fixture file: communities and everything in them, webhook receivers included (see docs/fixture.md). ' +
        'Re-importing changes nothing.',
    )
    .argument('<file>', 'path to the fixture JSON file')
    .option('--json', 'print the result as JSON, including the created keys and webhook signing secrets')
    .action(async (file: string, opts: JsonOption) => {
      const input = await readFixtureFile(file);
      const result = await withDatabase((db, ctx) =>
        importFixture(db, input, {
          baseUrl: ctx.config.publicUrl,
          // The secret box is loaded only when the file has webhooks to register.
          webhooks: {
            get secrets() {
              return ctx.secrets();
            },
            policy: { allowPrivate: ctx.config.webhooks.allowPrivate, lookup: systemLookup },
          },
        }),
      ).catch((err: unknown) => {
        // Name the file in the message: the issues' paths are relative to it.
        throw err instanceof FixtureError ? new FixtureError(err.issues, file) : err;
      });
      print(file, result, opts);
    });

  program
    .command('seed')
    .description('Import the demo communities from demo/fixture.json (idempotent).')
    .option('--json', 'print the result as JSON, including the created keys')
    .action(async (opts: JsonOption) => {
      const result = await withDatabase((db, ctx) => seedDemo(db, { baseUrl: ctx.config.publicUrl }));
      print(DEMO_FIXTURE_PATH, result, opts);
    });
}
