// The hosted sign-in page's "Text me a code" on the community's hosted site (demo.localhost): a
// visitor signs in from a page's header, types the number, reads the code the server texted (the
// embedded default writes texts to `sms_outbox`, sealed, read here with `svc sms list`), types it,
// and comes back to that page signed in. And the header's bell opens the hosted /notifications page.
import { expect, test, type Page } from '@playwright/test';
import { HOSTED_ORIGIN, axeViolations, recordProblems, svc } from './support.ts';

/** A page of the hosted site (its header is server-rendered into each one). */
const HOSTED_PATH = '/events';
const HOSTED_URL = `${HOSTED_ORIGIN}${HOSTED_PATH}`;
// demo/fixture.json: Priya has a phone and no password; Maya a password.
const PRIYA = { phone: '+14155550142', typed: '+1 415 555 0142', name: 'Priya Raman' };
const MAYA = { email: 'maya@example.com', password: 'demo-password', name: 'Maya Okafor' };

const header = (page: Page) => page.locator('svc-header').first();

/** The code in the newest text to `phone` sent after `after`, read with the real CLI (texts are stored sealed). */
async function textedCode(phone: string, after: string): Promise<string> {
  let text: string | undefined;
  await expect
    .poll(async () => {
      const [newest] = JSON.parse(await svc('sms', 'list', '--to', phone, '--limit', '1', '--json')) as Array<{
        text: string;
        createdAt: string;
      }>;
      text = newest && newest.createdAt > after ? newest.text : undefined;
      return text;
    })
    .toBeTruthy();
  return /(\d{6})$/.exec(text!)![1];
}

/** Signs in through the API from the page, then tells the widgets (the documented host-page hook). */
async function signInFromPage(page: Page, who: { email: string; password: string }): Promise<void> {
  const status = await page.evaluate(async ({ email, password }) => {
    const res = await fetch('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    await res.text();
    if (res.ok) document.dispatchEvent(new CustomEvent('svc:session:changed'));
    return res.status;
  }, who);
  expect(status).toBe(200);
}

test('a visitor signs in with a code texted to their phone, and the header shows them', async ({ page }) => {
  const problems = recordProblems(page);
  await page.goto(HOSTED_URL);
  await header(page).locator('[part~="sign-in"]').click();
  await page.waitForURL(`${HOSTED_ORIGIN}/sign-in?next=${encodeURIComponent(HOSTED_PATH)}`);

  // Choosing "Text me a code" swaps the password form for one of the same height: nothing below moves.
  const method = page.getByRole('button', { name: 'Text me a code instead' });
  const methodAt = (await method.boundingBox())!.y;
  await method.click();
  const phone = page.getByLabel('Phone number, with country code');
  const code = page.getByLabel('Code from the text message');
  await expect(phone).toBeFocused();
  await expect(page.getByLabel('Password')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Use e-mail and password instead' })).toHaveCount(1);
  expect((await page.locator('#method').boundingBox())!.y).toBe(methodAt);
  await expect(code).toBeDisabled();

  expect(await axeViolations(page)).toEqual([]);

  const submit = page.locator('#sms-submit');
  const submitAt = (await submit.boundingBox())!.y;
  const sentAfter = new Date(Date.now() - 1000).toISOString();
  await phone.fill(PRIYA.typed);
  await page.getByRole('button', { name: 'Text me a code' }).click();
  await expect(page.getByRole('status')).toHaveText(/If an account has this number, we have texted it a 6-digit code/);
  await expect(code).toBeEnabled();
  await expect(code).toBeFocused();
  await expect(submit).toHaveText('Sign in');
  expect((await submit.boundingBox())!.y).toBe(submitAt);
  const texted = await textedCode(PRIYA.phone, sentAfter);

  // A wrong code is announced, and the field says so.
  await code.fill(texted === '000000' ? '111111' : '000000');
  await submit.click();
  await expect(page.getByRole('status')).toHaveText('Incorrect or expired code; ask for a new one');
  await expect(code).toHaveAttribute('aria-invalid', 'true');

  await code.fill(texted);
  await submit.click();
  await page.waitForURL(HOSTED_URL);
  const h = header(page);
  await expect(h.locator('[part~="user"]')).toContainText(PRIYA.name);
  await expect(h.locator('[part~="sign-in"]')).toHaveCount(0);
  // Priya is an ACCEPTED member: the member-only nav item is there.
  await expect(h.getByRole('link', { name: 'Members', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  // The one 401 is the wrong code above.
  expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
});

test('the bell opens /notifications: the list, unread marked, and "Mark all as read"', async ({ page, browser }) => {
  // A new visitor (signed up from the page), and Maya asks them to be friends: one notification.
  const usertag = `bell-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  await page.goto(HOSTED_URL);
  const signedUp = await page.evaluate(async (tag) => {
    const res = await fetch('/api/auth/sign-up', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: `${tag}@example.com`,
        password: 'demo-password',
        name: 'Bell Ringer',
        usertag: tag,
      }),
    });
    await res.text();
    return res.status;
  }, usertag);
  expect(signedUp).toBe(201);

  const maya = await browser.newContext();
  const mayaPage = await maya.newPage();
  await mayaPage.goto(HOSTED_URL);
  await signInFromPage(mayaPage, MAYA);
  const asked = await mayaPage.evaluate(
    async (tag) =>
      (
        await fetch('/api/users/me/friend-requests', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ usertag: tag }),
        })
      ).status,
    usertag,
  );
  expect(asked).toBe(201);
  await maya.close();

  const problems = recordProblems(page);
  await page.reload();
  const bell = header(page).locator('[part~="bell"]');
  await expect(bell).toHaveAttribute('aria-label', 'Notifications, 1 unread');
  await bell.click();
  await page.waitForURL(`${HOSTED_ORIGIN}/notifications`);
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  const items = page.locator('#list > li');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toHaveText(/^Unread: Maya Okafor \(@maya\) sent you a friend request\./);
  await expect(items.first()).toHaveClass('unread');

  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Mark all as read' }).click();
  await expect(page.getByRole('status')).toHaveText('All notifications are marked as read.');
  await expect(items.first()).not.toHaveClass('unread');
  await expect(items.first()).toHaveText(/^Maya Okafor \(@maya\) sent you a friend request\./);
  // The server agrees: the bell counts none now.
  await page.goto(HOSTED_URL);
  await expect(header(page).locator('[part~="bell"]')).toHaveAttribute('aria-label', 'Notifications');
  expect(problems).toEqual([]);
});

test('signed out, /notifications leads to sign-in and back', async ({ page }) => {
  await page.goto(`${HOSTED_ORIGIN}/notifications`);
  await page.waitForURL(`${HOSTED_ORIGIN}/sign-in?next=/notifications`);
  await expect(page.locator('body')).toHaveAttribute('data-next', '/notifications');
});
