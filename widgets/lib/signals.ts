// The only import of @preact/signals in the widgets (eslint.config.js enforces it): the signals
// modules are evaluated between descriptor-guard's start (its evaluation) and its end (below), so
// a page that polluted Object.prototype cannot break their property definitions. ES modules
// evaluate their imports in order, before their own body.
import { restoreDescriptors } from './descriptor-guard.ts';
import { batch, signal } from '@preact/signals';

restoreDescriptors();

export { batch, signal };
export type { ReadonlySignal, Signal } from '@preact/signals';
