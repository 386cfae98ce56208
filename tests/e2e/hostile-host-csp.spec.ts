// Issue 20, the strict-CSP hostility of the hostile-host page (tests/e2e/hostile-host.ts): a
// customer page that admits the platform's scripts, connections and images and nothing else, no
// inline styles at all, and Trusted Types required for every script sink. All seven widgets must
// render and work there without a single violation: they style themselves through adopted
// stylesheets and CSSOM, and never hand a string to a script sink.
import { expect, test } from '@playwright/test';
import { openHostileHost } from './hostile-host.ts';
import { items, recordProblems } from './support.ts';

test.use({ locale: 'en-US', timezoneId: 'UTC' });

test('under a strict CSP with Trusted Types every widget renders and opens, with no violation', async ({ page }) => {
  // Before any script of the page: every violation, reported or enforced.
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`),
    );
  });
  const problems = recordProblems(page);
  await openHostileHost(
    page,
    'strict-csp',
    [
      '<svc-header></svc-header>',
      '<svc-events limit="2"></svc-events>',
      '<svc-members limit="2"></svc-members>',
      '<svc-rsvp event="big-summit-day"></svc-rsvp>',
      '<svc-donate event="big-summit-day" mode="button"></svc-donate>',
      '<svc-apply></svc-apply>',
      '<svc-footer></svc-footer>',
    ].join(''),
    { strictCsp: true },
  );
  // The policy is really in force: the page's own inline style is refused, and Trusted Types
  // refuse a plain string in a script sink.
  expect(
    await page.evaluate(() => {
      try {
        document.createElement('div').innerHTML = '<b>x</b>';
        return 'accepted';
      } catch {
        return 'refused';
      }
    }),
  ).toBe('refused');

  await expect(items(page.locator('svc-events'))).toHaveCount(2);
  await expect(page.locator('svc-members [part~="name"]').first()).toBeVisible();
  await expect(page.locator('svc-rsvp').getByRole('group', { name: 'Tickets for Big Summit Day' })).toBeVisible();
  await expect(page.locator('svc-apply').getByRole('group', { name: 'Choose a membership' })).toBeVisible();
  await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();

  // The lazily loaded parts come in under the same policy: the header's dropdown (floating-ui)
  // and the donate popover.
  const header = page.locator('svc-header');
  await header.getByRole('button', { name: 'About' }).click();
  await expect(header.locator('[part~="dropdown"]')).toBeVisible();
  const donate = page.locator('svc-donate');
  await donate.getByRole('button', { name: 'Donate', exact: true }).click();
  await expect(donate.getByRole('dialog')).toBeVisible();

  await page.waitForLoadState('networkidle');
  // The test's own innerHTML probe above is the one refusal expected.
  const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  expect(violations.filter((v) => !v.startsWith('require-trusted-types-for'))).toEqual([]);
  expect(violations).toHaveLength(1);
  expect(problems.filter((p) => !p.includes('TrustedHTML'))).toEqual([]);
});
