// The leader console's frame in Chromium (docs/leader-console.md, "Pages"): a founder opens it on
// their community's site with JavaScript on and off; an anonymous visitor is sent to sign in and
// comes back; a member is refused; the pages are axe clean.
import { expect, test } from '@playwright/test';
import { axeViolations } from './support.ts';
import { importConsoleCommunity, LEADER_PASSWORD, signedInContext, type ConsoleCommunity } from './console-support.ts';

let club: ConsoleCommunity;
const member = { email: '', password: LEADER_PASSWORD };

test.beforeAll(async () => {
  const prefix = 'frame';
  club = await importConsoleCommunity(prefix, {
    users: [
      { email: `${prefix}-m@example.com`, name: 'Mo Member', usertag: `${prefix}-m-user`, password: LEADER_PASSWORD },
    ],
    memberships: [{ usertag: `${prefix}-m-user`, status: 'ACCEPTED', role: 'member' }],
  });
  member.email = `${prefix}-m@example.com`;
});

for (const javaScript of [true, false]) {
  test(`a founder opens the audit log with JavaScript ${javaScript ? 'on' : 'off'}, in the site's chrome`, async ({
    browser,
  }) => {
    const context = await signedInContext(browser, club, club.founder, { javaScript });
    const page = await context.newPage();
    const res = await page.goto(`${club.origin}/admin/audit-log`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
    const nav = page.getByRole('navigation', { name: 'Console' });
    await expect(nav.getByRole('link', { name: 'Audit log' })).toHaveAttribute('aria-current', 'page');
    await expect(page.locator('svc-header')).toBeVisible();
    // axe runs in the page: only where JavaScript does.
    if (javaScript) expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
}

test('an anonymous visitor is sent to sign in and comes back to the console', async ({ page }) => {
  const res = await page.goto(`${club.origin}/admin/audit-log`);
  expect(res?.status()).toBe(403);
  await page.locator('main a[href^="/sign-in?next="]').first().click();
  await page.getByLabel('E-mail').fill(club.founder.email);
  await page.getByLabel('Password').fill(club.founder.password);
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page).toHaveURL(`${club.origin}/admin/audit-log`);
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
});

test('a member is refused and sees nothing of the console', async ({ browser }) => {
  const context = await signedInContext(browser, club, member);
  const page = await context.newPage();
  const res = await page.goto(`${club.origin}/admin/audit-log`);
  expect(res?.status()).toBe(403);
  await expect(page.getByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Console' })).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
});
