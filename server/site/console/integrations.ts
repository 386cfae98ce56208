// The console's keys and webhooks (slice C): being built (docs/leader-console.md, "Pages").
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

export function integrationPages(_r: ConsoleRoutes, _deps: ConsoleDeps): void {}
