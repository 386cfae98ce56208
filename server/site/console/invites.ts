// The console's invite links (slice B): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function invitePages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
