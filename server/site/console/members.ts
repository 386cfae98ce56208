// The console's members and the review queue (slice B): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function memberPages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
