// The console's members, review queue and invite links in Chromium (docs/leader-console.md,
// "Pages"): a request made on the site's /apply is approved in the queue and its applicant then
// opens a members-only page; a link made on the invites page lets a new person sign up and join in
// a fresh browser; a kick asks on its own page with JavaScript off and in a dialog with it on.
// Each spec imports a community of its own (console-support.ts).
import { expect, test, type Browser, type Page } from '@playwright/test';
import { importConsoleCommunity, signedInContext, type ConsoleCommunity } from './console-support.ts';
import { axeViolations, uniqueEmail } from './support.ts';

const PASSWORD = 'member-password-1';

/** A new account signed up on the community's site; its cookies in a context with JavaScript as asked. */
async function signedUpContext(browser: Browser, community: ConsoleCommunity, name: string, javaScript: boolean) {
  const email = uniqueEmail('cm');
  const signingUp = await browser.newContext();
  const page = await signingUp.newPage();
  await page.goto(`${community.origin}/sign-in`);
  const status = await page.evaluate(
    async (body) => {
      const res = await fetch('/api/auth/sign-up', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      return res.status;
    },
    { email, password: PASSWORD, name },
  );
  expect(status).toBe(201);
  const storageState = await signingUp.storageState();
  await signingUp.close();
  return { email, context: await browser.newContext({ javaScriptEnabled: javaScript, storageState }) };
}

const row = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(name) }) });

test('a request made on /apply is approved in the queue, and its applicant opens a members-only page', async ({
  browser,
}) => {
  // Four browser contexts, two axe scans: more than the default 30 s on a busy machine.
  test.slow();
  const community = await importConsoleCommunity('cmreq', {
    accessibility: 'APPLICATION',
    pageSettings: [{ pageKey: 'MEMBERS', visibility: 'MEMBERS_ONLY' }],
    segments: [
      {
        name: 'Crew',
        color: '#336699',
        currency: 'USD',
        autoApprove: false,
        form: [{ id: 'why', type: 'short_text', label: 'Why join?', required: true }],
      },
    ],
  });
  const applicantName = `Avery ${Math.random().toString(36).slice(2, 7).replace(/\d/g, 'q')}`;
  const applicant = await signedUpContext(browser, community, applicantName, false);
  const visitor = await applicant.context.newPage();
  // Not a member yet: the members-only page is closed to them.
  await visitor.goto(`${community.origin}/members`);
  await expect(visitor.getByRole('heading', { level: 1, name: 'Members only' })).toBeVisible();

  await visitor.goto(`${community.origin}/apply`);
  const crew = visitor.locator('section', { has: visitor.getByRole('heading', { name: 'Crew' }) });
  await crew.getByLabel(/^Why join\?/).fill('I fix bikes');
  await crew.getByRole('button', { name: 'Apply: Crew' }).click();
  await expect(visitor).toHaveURL(/\/apply\?applied=pending$/);

  const leader = await signedInContext(browser, community, community.founder);
  const admin = await leader.newPage();
  await admin.goto(`${community.origin}/admin/members/requests`);
  const request = admin.getByRole('article', { name: new RegExp(applicantName) });
  await expect(request).toContainText('Why join?');
  await expect(request).toContainText('I fix bikes');
  await expect(request).toContainText('segment Crew');
  expect(await axeViolations(admin)).toEqual([]);
  await request.getByRole('button', { name: 'Approve' }).click();
  await expect(admin).toHaveURL(/\/admin\/members\/requests\?done=approved$/);
  await expect(admin.getByRole('status')).toContainText('The request was approved');
  await expect(admin.getByRole('article', { name: new RegExp(applicantName) })).toHaveCount(0);

  await admin.goto(`${community.origin}/admin/members?q=${encodeURIComponent(applicant.email)}`);
  await expect(row(admin, applicantName)).toContainText('ACCEPTED');
  expect(await axeViolations(admin)).toEqual([]);

  await visitor.goto(`${community.origin}/members`);
  await expect(visitor.getByRole('heading', { level: 1, name: 'Members only' })).toHaveCount(0);
  await expect(visitor.getByText(applicantName).first()).toBeVisible();
  await leader.close();
  await applicant.context.close();
});

test('a link made on the invites page lets a new person sign up and join in a fresh browser', async ({ browser }) => {
  test.slow();
  const community = await importConsoleCommunity('cminv', { accessibility: 'INVITE_ONLY' });
  const leader = await signedInContext(browser, community, community.founder);
  const admin = await leader.newPage();
  await admin.goto(`${community.origin}/admin/invites`);
  expect(await axeViolations(admin)).toEqual([]);
  await admin.getByLabel('Use limit').fill('2');
  await admin.getByLabel('Note').fill('For the spring newcomers');
  await admin.getByRole('button', { name: 'Create link' }).click();
  await expect(admin.getByRole('heading', { name: 'Your new invite link' })).toBeVisible();
  await expect(admin.getByText('Shown only once — copy it now.')).toBeVisible();
  const url = (await admin.locator('.secret').textContent())!.trim();
  expect(url).toMatch(new RegExp(`^${community.origin}/join/[A-Za-z0-9_-]{43}$`));
  expect(await axeViolations(admin)).toEqual([]);
  // A reload does not show it again: the list has its first characters only.
  await admin.goto(`${community.origin}/admin/invites`);
  await expect(admin.locator('.secret')).toHaveCount(0);
  const code = url.slice(url.lastIndexOf('/') + 1);
  await expect(admin.getByRole('row').filter({ hasText: 'For the spring newcomers' })).toContainText(
    `/join/${code.slice(0, 6)}…`,
  );

  const fresh = await browser.newContext();
  const newcomer = await fresh.newPage();
  await newcomer.goto(url);
  await newcomer.getByRole('link', { name: 'Create an account' }).click();
  const email = uniqueEmail('invited');
  const name = `Ines ${Math.random().toString(36).slice(2, 7).replace(/\d/g, 'q')}`;
  await newcomer.getByLabel('Name').fill(name);
  await newcomer.getByLabel('E-mail').fill(email);
  await newcomer.getByLabel('Password').fill(PASSWORD);
  await newcomer.getByRole('button', { name: 'Create account' }).click();
  await expect(newcomer).toHaveURL(url);
  await newcomer.getByRole('button', { name: /^Join / }).click();
  await expect(newcomer.getByRole('heading', { name: /^Welcome to / })).toBeVisible();

  await admin.goto(`${community.origin}/admin/members?q=${encodeURIComponent(email)}`);
  await expect(row(admin, name)).toContainText('ACCEPTED');
  await admin.goto(`${community.origin}/admin/invites`);
  await expect(admin.getByRole('row').filter({ hasText: 'For the spring newcomers' })).toContainText('1 / 2');
  await fresh.close();
  await leader.close();
});

test.describe('kick', () => {
  // Two contexts and axe on a busy machine can pass 30 s.
  test.describe.configure({ timeout: 90_000 });
  const members = [
    { name: 'Kim Nojs', usertag: 'kim-nojs' },
    { name: 'Kai Dialog', usertag: 'kai-dialog' },
    { name: 'Cleo Confirm', usertag: 'cleo-confirm' },
  ];
  let community: ConsoleCommunity;
  test.beforeAll(async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    community = await importConsoleCommunity('cmkick', {
      users: members.map((m) => ({
        email: `${m.usertag}-${suffix}@example.com`,
        name: m.name,
        usertag: `${m.usertag}-${suffix}`,
      })),
      memberships: members.map((m) => ({ usertag: `${m.usertag}-${suffix}`, status: 'ACCEPTED' })),
    });
  });

  test('with JavaScript off, a kick asks on its own page, then happens', async ({ browser }) => {
    const leader = await signedInContext(browser, community, community.founder, { javaScript: false });
    const page = await leader.newPage();
    // (axe needs JavaScript: the pages are scanned in the tests below, with it on.)
    await page.goto(`${community.origin}/admin/members`);
    const kim = row(page, 'Kim Nojs');
    // Kick and ban are folded in a <details>: it opens without JavaScript.
    await kim.getByText('Kick or ban').click();
    await kim.getByRole('textbox', { name: /^Reason to kick Kim Nojs/ }).fill('Asked to leave');
    await kim.getByRole('button', { name: 'Kick' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Are you sure?' })).toBeVisible();
    await expect(page.getByText('Kick Kim Nojs?')).toBeVisible();
    // Nothing happened yet.
    await page.goto(`${community.origin}/admin/members`);
    await expect(row(page, 'Kim Nojs')).toContainText('ACCEPTED');
    await row(page, 'Kim Nojs').getByText('Kick or ban').click();
    await row(page, 'Kim Nojs').getByRole('button', { name: 'Kick' }).click();
    await page.getByRole('button', { name: 'Kick' }).click();
    await expect(page).toHaveURL(/\/admin\/members\?done=kicked$/);
    await expect(page.getByRole('status')).toContainText('The member was removed.');
    await expect(row(page, 'Kim Nojs')).toContainText('REJECTED');
    await leader.close();
  });

  test('with JavaScript on, the dialog asks; cancel keeps the member, confirm kicks', async ({ browser }) => {
    const leader = await signedInContext(browser, community, community.founder);
    const page = await leader.newPage();
    await page.goto(`${community.origin}/admin/members`);
    const kai = row(page, 'Kai Dialog');
    await kai.getByText('Kick or ban').click();
    // Scanned with a row's kick and ban forms open.
    expect(await axeViolations(page)).toEqual([]);
    await kai.getByRole('button', { name: 'Kick' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Kick Kai Dialog?');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page).toHaveURL(`${community.origin}/admin/members`);
    await kai.getByRole('button', { name: 'Kick' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect(page).toHaveURL(/\/admin\/members\?done=kicked$/);
    await expect(row(page, 'Kai Dialog')).toContainText('REJECTED');
    await leader.close();
  });

  test('the confirmation page a post without JavaScript answers is axe clean, and its Cancel changes nothing', async ({
    browser,
  }) => {
    const leader = await signedInContext(browser, community, community.founder);
    const page = await leader.newPage();
    await page.goto(`${community.origin}/admin/members`);
    const cleo = row(page, 'Cleo Confirm');
    await cleo.getByText('Kick or ban').click();
    // The form as a browser without the console's module sends it: no dialog, no `confirmed`.
    await cleo.locator('form[action$="/ban"]').evaluate((form) => form.removeAttribute('data-confirm'));
    await cleo.getByRole('button', { name: 'Ban' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Are you sure?' })).toBeVisible();
    await expect(page.getByText('Ban Cleo Confirm?')).toBeVisible();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(`${community.origin}/admin/members`);
    await expect(row(page, 'Cleo Confirm')).toContainText('ACCEPTED');
    await leader.close();
  });
});
