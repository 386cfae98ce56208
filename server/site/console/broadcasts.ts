// The console's broadcasts (slice D): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function broadcastPages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
