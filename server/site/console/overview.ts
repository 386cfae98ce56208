// The console's the overview (slice D): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function overviewPages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
