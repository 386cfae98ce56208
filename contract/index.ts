// The wire format shared by server, widgets (types only) and tests.
export * from './enums.ts';
export * from './errors.ts';
export * from './common.ts';
export * from './resources.ts';
export * from './route.ts';
export { ROUTES } from './routes/index.ts';
