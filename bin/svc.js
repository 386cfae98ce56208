#!/usr/bin/env node
// `svc` / `npx svc`: the admin command line. The sources are TypeScript, run through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/index.ts');
