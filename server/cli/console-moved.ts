// What moved to the leader console (docs/leader-console.md): a community's founder and admins now
// change its settings, keys, webhooks and invite links themselves on their own site, at `/admin`.
// The CLI keeps these commands for the operator (bootstrapping, support, scripts), and its help
// says where a leader does the same, so nobody is sent to the operator for what they can do.
import type { Command } from 'commander';

/** The console page that does what a command group does, by group name. */
export const CONSOLE_PAGE_OF = {
  community: '/admin/settings',
  key: '/admin/integrations',
  webhook: '/admin/integrations',
  broadcasts: '/admin/broadcasts',
} as const;

export function sayWhatMoved(group: Command, name: keyof typeof CONSOLE_PAGE_OF): void {
  group.addHelpText(
    'after',
    `\nFor the operator. A community's founder and admins do this themselves in the leader console, on\n` +
      `their own site at https://<community site>${CONSOLE_PAGE_OF[name]} (docs/leader-console.md).`,
  );
}

/** For `svc --help`: the console, once. */
export function sayConsoleExists(program: Command): void {
  program.addHelpText(
    'after',
    '\nCommunity leaders run their own community (settings, keys, webhooks, members, invites, broadcasts)\n' +
      'in the leader console at https://<community site>/admin; these commands are for the operator.',
  );
}
