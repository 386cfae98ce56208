// The admin command line, `svc`. Runs against the same configuration as the server
// (DATABASE_URL / SVC_DATA_DIR) and migrates the database before any command. Exit code 0 on
// success, 1 on any error (message on stderr; a stack trace only with SVC_DEBUG=1).
//
// A command group's module is loaded only when that group runs: each brings its own part of the
// server (payments, mail, webhooks, the importer), and loading every one of them took most of the
// CLI's start-up, which an operator's script and the CLI tests pay on every run. `svc --help`, an
// unknown command and anything that is not a known group's name load them all, so help and
// "unknown command" read as before.
import { Command } from 'commander';
import { sayConsoleExists } from './console-moved.ts';

type Register = (program: Command) => void;

/** Each top-level command, and how to load the module that registers it. */
const GROUPS: Record<string, () => Promise<Register>> = {
  broadcasts: async () => (await import('./broadcasts.ts')).registerBroadcastCommands,
  community: async () => (await import('./communities.ts')).registerCommunityCommands,
  import: async () => (await import('./import.ts')).registerImportCommands,
  seed: async () => (await import('./import.ts')).registerImportCommands,
  key: async () => (await import('./keys.ts')).registerKeyCommands,
  mail: async () => (await import('./mail.ts')).registerMailCommands,
  maintenance: async () => (await import('./maintenance.ts')).registerMaintenanceCommands,
  payments: async () => (await import('./payments.ts')).registerPaymentsCommands,
  sms: async () => (await import('./sms.ts')).registerSmsCommands,
  webhook: async () => (await import('./webhooks.ts')).registerWebhookCommands,
};

/** The group `argv` runs, when its first argument names one; null means all of them. */
function groupOf(argv: string[]): string | null {
  const first = argv[2];
  return first !== undefined && Object.hasOwn(GROUPS, first) ? first : null;
}

async function buildProgram(argv: string[]): Promise<Command> {
  const program = new Command('svc')
    .description(
      "svc admin command line. Uses the server's configuration: DATABASE_URL, or SQLite under SVC_DATA_DIR (./data).",
    )
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: true });
  const group = groupOf(argv);
  const loaders = group ? [GROUPS[group]] : Object.values(GROUPS);
  // import.ts registers both `import` and `seed`: once.
  for (const register of new Set(await Promise.all(loaders.map((load) => load())))) register(program);
  sayConsoleExists(program);
  return program;
}

async function main(argv: string[] = process.argv): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return 0;
  } catch (err) {
    const { reportError } = await import('./runtime.ts');
    return reportError(err);
  }
}

// exitCode, not exit(): lets stdout drain when it is a pipe.
process.exitCode = await main();
