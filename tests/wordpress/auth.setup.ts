// Runs in the `setup` project: each role signs in once through the real login form, and its
// cookies are saved for the specs (support.ts's signedIn), instead of a login per test.
import { test } from '@playwright/test';
import { authFile, logIn } from './support.ts';

for (const role of ['administrator', 'editor', 'author'] as const) {
  test(`the ${role} signs in`, async ({ browser }) => {
    const context = await logIn(browser, role);
    await context.storageState({ path: authFile(role) });
    await context.close();
  });
}
