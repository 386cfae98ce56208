// Settings → svc refuses what is not a platform address or a field at all, before asking the
// platform: credentials in the URL (they would end up in every page's loader URL), an address
// without its http(s) scheme, a field posted as an array. Each is an error notice, the saved
// settings stay as settings.setup.ts left them, and PHP logs nothing.
import { expect, test, type Page } from '@playwright/test';
import { API_ORIGIN, E2E_PORT } from '../e2e/support.ts';
import { COMMUNITY, pluginLogLines, publishableKey, signedIn } from './support.ts';

async function save(page: Page, platform: string, key: string): Promise<void> {
  await page.goto('/wp-admin/options-general.php?page=svc');
  await page.getByLabel('Platform URL').fill(platform);
  await page.getByLabel('Community tag').fill(COMMUNITY);
  await page.getByLabel('Publishable key').fill(key);
  // The browser's own check of type="url" would stop "svc.example" before the server sees it;
  // the server's check is the subject here (a hand-made post skips the browser's).
  await page.locator('form[action="options.php"]').evaluate((form) => form.setAttribute('novalidate', ''));
}

test('Settings → svc refuses credentials, a scheme-less address and array fields, and keeps the saved settings', async ({
  browser,
}) => {
  const key = await publishableKey();
  const logBefore = pluginLogLines().length;
  const context = await signedIn(browser, 'administrator');
  const page = await context.newPage();

  for (const platform of [`http://wp:secret@localhost:${E2E_PORT}`, 'svc.example']) {
    await save(page, platform, key);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.locator('.notice-error')).toContainText('must be an http:// or https:// address');
    await expect(page.locator('.notice-success')).toHaveCount(0);
  }

  // A hand-made post: svc_settings[community][]=wp-club instead of a string.
  await save(page, API_ORIGIN, key);
  await page.getByLabel('Community tag').evaluate((input) => input.setAttribute('name', 'svc_settings[community][]'));
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.locator('.notice-error')).toContainText('Community tag');
  expect(pluginLogLines().slice(logBefore)).toEqual([]);

  await page.goto('/wp-admin/options-general.php?page=svc');
  await expect(page.getByLabel('Platform URL')).toHaveValue(API_ORIGIN);
  await expect(page.getByLabel('Community tag')).toHaveValue(COMMUNITY);
  await expect(page.getByLabel('Publishable key')).toHaveValue(key);
  await context.close();
});
