// Runs before the other WordPress specs (the `setup` project): the community they show is
// imported, and the Administrator configures the plugin on Settings → svc, as a site owner would,
// including a wrong key first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { API_ORIGIN, svc } from '../e2e/support.ts';
import { COMMUNITY, COMMUNITY_FIXTURE, logIn, publishableKey } from './support.ts';

test('the Administrator configures the plugin on Settings → svc; a wrong key is refused with a notice', async ({
  browser,
}) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wp-')), 'community.json');
  fs.writeFileSync(file, JSON.stringify(COMMUNITY_FIXTURE));
  await svc('import', file);
  const key = await publishableKey();

  const context = await logIn(browser, 'administrator');
  const page = await context.newPage();
  await page.goto('/wp-admin/options-general.php');
  // Through the admin menu, where a site owner finds it.
  await page.locator('#adminmenu').getByRole('link', { name: 'svc', exact: true }).click();
  await expect(page).toHaveURL(/options-general\.php\?page=svc/);

  const form = {
    platform: page.getByLabel('Platform URL'),
    community: page.getByLabel('Community tag'),
    key: page.getByLabel('Publishable key'),
    theme: page.getByLabel('Theme'),
  };
  await form.platform.fill(API_ORIGIN);
  await form.community.fill(COMMUNITY);
  await form.key.fill('pk_live_not-this-communitys-key');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  const error = page.locator('.notice-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText(/key/i);

  await page.getByLabel('Platform URL').fill(API_ORIGIN);
  await page.getByLabel('Community tag').fill(COMMUNITY);
  await page.getByLabel('Publishable key').fill(key);
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.locator('.notice-error')).toHaveCount(0);
  await expect(page.locator('.notice-success, .updated').first()).toBeVisible();

  await page.reload();
  await expect(form.platform).toHaveValue(API_ORIGIN);
  await expect(form.community).toHaveValue(COMMUNITY);
  await expect(form.key).toHaveValue(key);
  await expect(form.theme).toHaveValue('auto');
  await context.close();
});
