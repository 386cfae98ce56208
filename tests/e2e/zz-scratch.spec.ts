import { expect, test } from '@playwright/test';
import { HOSTED_ORIGIN } from './support.ts';

test('scratch', async ({ page }) => {
  let release!: () => void;
  const arrived = new Promise<void>((r) => (release = r));
  await page.route(/\/widgets\/rsvp-[^/]+\.js$/, async (route) => { await arrived; await route.continue(); });
  await page.goto(`${HOSTED_ORIGIN}/events/big-summit-day`, { waitUntil: 'domcontentloaded' });
  const w = page.locator('svc-rsvp').first();
  const radio = w.getByRole('radio', { name: /^Free RSVP\b/ });
  await radio.check();
  console.log('checked before', await radio.isChecked(), 'name field', await w.getByLabel('Your name').count());
  release();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  console.log('checked after', await radio.isChecked(), 'name field', await w.getByLabel('Your name').count());
  console.log(await w.locator('form').first().evaluate((f) => f.outerHTML.slice(0, 1500)));
});
