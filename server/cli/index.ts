// The admin command line, `svc`. Runs against the same configuration as the server
// (DATABASE_URL / SVC_DATA_DIR) and migrates the database before any command. Exit code 0 on
// success, 1 on any error (message on stderr; a stack trace only with SVC_DEBUG=1).
import { Command } from 'commander';
import { registerBroadcastCommands } from './broadcasts.ts';
import { sayConsoleExists } from './console-moved.ts';
import { registerCommunityCommands } from './communities.ts';
import { registerImportCommands } from './import.ts';
import { registerKeyCommands } from './keys.ts';
import { registerMailCommands } from './mail.ts';
import { registerPaymentsCommands } from './payments.ts';
import { reportError } from './runtime.ts';
import { registerSmsCommands } from './sms.ts';
import { registerWebhookCommands } from './webhooks.ts';

function buildProgram(): Command {
  const program = new Command('svc')
    .description(
      "svc admin command line. Uses the server's configuration: DATABASE_URL, or SQLite under SVC_DATA_DIR (./data).",
    )
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: true });
  registerBroadcastCommands(program);
  registerCommunityCommands(program);
  registerImportCommands(program);
  registerKeyCommands(program);
  registerMailCommands(program);
  registerPaymentsCommands(program);
  registerSmsCommands(program);
  registerWebhookCommands(program);
  sayConsoleExists(program);
  return program;
}

async function main(argv: string[] = process.argv): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    return reportError(err);
  }
}

// exitCode, not exit(): lets stdout drain when it is a pipe.
process.exitCode = await main();
