#!/usr/bin/env node
// `svc` / `npx svc`: the admin command line. The sources are TypeScript, run through tsx's loader.
import { register } from 'tsx/esm/api';

// The dependencies every command loads are plain JavaScript and need no loader, so they are
// imported before tsx's is registered: through it, each of their files costs a round trip to the
// loader's thread, and kysely's 260 files and zod's 95 took about half of the CLI's start-up
// (1 s of 2.5 s CPU). Later imports of them find these same modules.
await Promise.all(['kysely', 'zod', 'uuid'].map((name) => import(name)));
register();
await import('../server/cli/index.ts');
