// The console's settings (issue 18, slice A): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function settingsPages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
