// theme="dark" on a widget (what the WordPress plugin's Theme setting writes): light text on a
// dark surface, readable (axe's contrast rules), where theme="light" or no attribute keeps the
// community's own colours; the page's --svc-* custom properties still win.
import { expect, test } from '@playwright/test';
import { axeViolations, items, openCustomerPage, publishableKey, recordProblems, snippet } from './support.ts';

const surface = (el: Element) => {
  const style = getComputedStyle(el);
  return { bg: style.backgroundColor, color: style.color };
};

test('theme="dark" draws every widget dark and readable; light and none keep the community’s colours', async ({
  page,
}) => {
  const problems = recordProblems(page);
  const key = await publishableKey(page.request);
  await openCustomerPage(
    page,
    'theme-dark',
    `<main style="background:#000;padding:1em">
      <h1 style="color:#fff">Dark page</h1>
      <svc-events id="dark" theme="dark" limit="2"></svc-events>
      <svc-rsvp theme="dark" event="new-member-welcome-walk"></svc-rsvp>
      <svc-donate theme="dark" sku="trail-fund"></svc-donate>
      <svc-apply theme="dark"></svc-apply>
      <svc-members theme="dark" limit="3"></svc-members>
      <svc-events id="light" theme="light" limit="1"></svc-events>
      <svc-events id="plain" limit="1"></svc-events>
      <svc-events id="page-wins" theme="dark" limit="1" style="--svc-bg-color:#102030"></svc-events>
    </main>${snippet(key)}`,
  );
  await expect(items(page.locator('#dark'))).toHaveCount(2);
  await expect(page.locator('svc-rsvp').getByRole('radio').first()).toBeVisible();
  await expect(page.locator('svc-donate [part~="chip"]').first()).toBeVisible();
  await expect(page.locator('svc-apply [part~="segment"]').first()).toBeVisible();
  await expect(items(page.locator('svc-members'))).toHaveCount(3);

  const card = (id: string) =>
    items(page.locator(`#${id}`))
      .first()
      .evaluate(surface);
  // demo/fixture.json's themeConfig: bgColor #fbfaf6, textColor #1d2a22.
  const community = { bg: 'rgb(251, 250, 246)', color: 'rgb(29, 42, 34)' };
  expect(await card('light')).toEqual(community);
  expect(await card('plain')).toEqual(community);
  expect(await card('dark')).toEqual({ bg: 'rgb(23, 25, 28)', color: 'rgb(233, 234, 236)' });
  expect((await card('page-wins')).bg).toBe('rgb(16, 32, 48)');

  // Readable: the form's messages too (an error on the RSVP form in the dark colour).
  await page.locator('svc-rsvp').getByRole('radio').first().check();
  await page.locator('svc-rsvp [part~="submit"]').click();
  await expect(page.locator('svc-rsvp [part~="field-error"]').first()).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
});
