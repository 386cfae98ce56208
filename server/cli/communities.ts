// `svc community update <tag> <file.json>`: change an existing community's settings (the import
// never does). Prints what changes, field by field, before it is written; `--dry-run` stops there.
import type { Command } from 'commander';
import {
  updateCommunitySettings,
  type SettingsChange,
  type SettingsUpdateResult,
} from '../domain/community-settings.ts';
import { readFixtureFile } from '../domain/import.ts';
import { announceToServers } from '../http/community-changes.ts';
import { CliError, note, out, printJson, withDatabase, type JsonOption } from './runtime.ts';
import { sayWhatMoved } from './console-moved.ts';

type Row = [path: string, what: string];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v));

/** Page settings by page key, so a change reads `pageSettings.EVENTS.visibility`, not two whole arrays. */
function byPageKey(value: unknown): unknown {
  if (!Array.isArray(value) || !value.every((p) => isPlainObject(p) && typeof p.pageKey === 'string')) return value;
  return Object.fromEntries(
    (value as Array<Record<string, unknown>>).map(({ pageKey, ...rest }) => [pageKey as string, rest]),
  );
}

/** One row per leaf that differs: objects are walked key by key, anything else compared whole. */
function leafRows(path: string, before: unknown, after: unknown): Row[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => leafRows(`${path}.${k}`, before[k], after[k]));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [[path, `${shown(before)} -> ${shown(after)}`]];
}

/** A set of strings (domains, embed origins) reads best as what is added and what is removed. */
function setRow(field: string, before: unknown, after: unknown): Row {
  const was = new Set(Array.isArray(before) ? (before as string[]) : []);
  const now = new Set(after as string[]);
  const added = [...now].filter((v) => !was.has(v)).map((v) => `+ ${v}`);
  const removed = [...was].filter((v) => !now.has(v)).map((v) => `- ${v}`);
  return [field, [...added, ...removed].join(', ')];
}

function changeRows(change: SettingsChange): Row[] {
  const { field, before, after } = change;
  if (field === 'domains' || field === 'embedOrigins') return [setRow(field, before, after)];
  if (field === 'pageSettings') return leafRows(field, byPageKey(before), byPageKey(after));
  return leafRows(field, before, after);
}

function printResult(result: SettingsUpdateResult, dryRun: boolean): void {
  const n = result.changes.length;
  if (n === 0) {
    out(`Community ${result.tag}: nothing to change.`);
    return;
  }
  const count = n === 1 ? '1 setting' : `${n} settings`;
  out(
    dryRun
      ? `Community ${result.tag}: ${count} would change (dry run, nothing written):`
      : `Updated community ${result.tag}: ${count} changed:`,
  );
  const rows = result.changes.flatMap(changeRows);
  const width = Math.max(...rows.map(([path]) => path.length));
  for (const [path, what] of rows) out(`  ${path.padEnd(width)}  ${what}`);
}

export function registerCommunityCommands(program: Command): void {
  const community = program
    .command('community')
    .description('Manage communities: change the settings of an existing one.');
  sayWhatMoved(community, 'community');

  community
    .command('update')
    .description(
      "Change a community's settings from a JSON file: any of visibility, accessibility, domains, landingUrl, " +
        'embedOrigins, pageSettings, storefrontConfig, themeConfig, as in the import file (see docs/cli.md). ' +
        'Prints what changes, then applies it in one transaction.',
    )
    .argument('<tag>', "the community's tag")
    .argument('<file>', 'path to the settings JSON file')
    .option('--dry-run', 'validate and print what would change; write nothing')
    .option('--json', 'print the result as JSON: {tag, dryRun, applied, changes: [{field, before, after}]}')
    .action(async (tag: string, file: string, opts: JsonOption & { dryRun?: boolean }) => {
      const input = await readFixtureFile(file, 'settings file');
      const dryRun = opts.dryRun === true;
      const { result, redisUrl } = await withDatabase(async (db, ctx) => ({
        result: await updateCommunitySettings(db, tag, input, { dryRun, source: file }),
        redisUrl: ctx.config.redisUrl,
      }));
      if (!result) throw new CliError(`community "${tag}" not found`);
      // With REDIS_URL the servers forget their caches of the community at once, as for a change
      // made in the leader console; otherwise they follow within COMMUNITY_CACHE_MS.
      if (result.applied && redisUrl && !(await announceToServers(redisUrl, result.communityId)))
        note('warning: Redis could not be reached; servers see the change within 5 s');
      if (opts.json) printJson({ tag: result.tag, dryRun, applied: result.applied, changes: result.changes });
      else printResult(result, dryRun);
    });
}
