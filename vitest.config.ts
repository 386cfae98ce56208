import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node' } },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['tests/api/**/*.test.ts'],
          environment: 'node',
          // Hosted pages render the widgets from their build: made first when missing or stale.
          globalSetup: ['tests/api/support/widget-build.ts'],
          // One worker on CI's 2 cores (vitest's default is cores - 1), so isolation bought nothing
          // but a fresh import of the whole server, Kysely and the widget SSR build for each of 80+
          // files. Every file builds its own app and database (tests/api/support/harness.ts), so
          // sharing the module cache is safe; the whole suite passes this way on SQLite and on
          // PostgreSQL with Redis.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
