// The console's integrations in Chromium (docs/leader-console.md, "Pages", "Integrations"): a
// leader makes a secret key, reads it off the page it is shown on once, uses it on /v1 and revokes
// it through the confirmation dialog; registers a webhook receiver (a real HTTP server this spec
// runs on 127.0.0.1), watches a delivery fail in the console, replays it and sees the new attempt
// succeed, the receiver holding a correctly signed body; and with JavaScript off makes and revokes
// a key by the confirmation page. axe (run with JavaScript on) finds nothing on any of these
// pages, the secret-shown-once pages and the dialog included.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { expect, test, type Page } from '@playwright/test';
import { importConsoleCommunity, signedInContext } from './console-support.ts';
import { API_ORIGIN, axeViolations } from './support.ts';

// Several axe scans and a delivery round trip per test, on a machine shared with other runs.
test.describe.configure({ timeout: 120_000 });

/** Creates a key on the integrations page (which must be open) and answers the secret shown. */
async function createKey(page: Page, name: string, scopes: string[]): Promise<string> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  for (const box of await page.locator('input[name="scopes"]:not([disabled])').all()) {
    const value = (await box.getAttribute('value'))!;
    if (scopes.includes(value)) await box.check();
    else await box.uncheck();
  }
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your new secret key');
  await expect(page.getByText('This is the only time it is shown: copy it now.')).toBeVisible();
  return (await page.locator('#new-secret').textContent())!.trim();
}

test('a leader creates a secret key, uses it on /v1, and revokes it through the dialog', async ({
  browser,
  request,
}) => {
  const admin = { email: `cikey-a-${Date.now()}@example.com`, password: 'admin-password' };
  const usertag = `cikeya${Date.now().toString(36)}`;
  const community = await importConsoleCommunity('cikey', {
    users: [{ email: admin.email, name: 'Ada Admin', usertag, password: admin.password }],
    memberships: [{ usertag, status: 'ACCEPTED', role: 'admin' }],
  });
  // An admin sees the scopes only the founder may give disabled, with the reason.
  const adminContext = await signedInContext(browser, community, admin);
  const adminPage = await adminContext.newPage();
  await adminPage.goto(`${community.origin}/admin/integrations`);
  await expect(adminPage.getByRole('checkbox', { name: /WRITE_MEMBERS/ })).toBeDisabled();
  await expect(adminPage.getByRole('checkbox', { name: /^ADMIN/ })).toBeDisabled();
  await expect(adminPage.getByRole('checkbox', { name: /WRITE_SALES/ })).toBeEnabled();
  expect(await axeViolations(adminPage)).toEqual([]);
  await adminContext.close();

  const context = await signedInContext(browser, community, community.founder);
  const page = await context.newPage();
  await page.goto(`${community.origin}/admin/integrations`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Integrations');
  await expect(page.getByRole('checkbox', { name: /WRITE_MEMBERS/ })).toBeEnabled();
  expect(await axeViolations(page)).toEqual([]);

  const secret = await createKey(page, 'Shop sync', ['READ_PUBLIC']);
  expect(secret).toMatch(/^sk_live_/);
  // The console's module adds a copy button beside it.
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  const events = `${API_ORIGIN}/v1/communities/${community.tag}/events`;
  expect((await request.get(events, { headers: { 'X-API-Key': secret } })).status()).toBe(200);

  await page.getByRole('link', { name: /back to integrations/ }).click();
  const row = page.getByRole('row', { name: /Shop sync/ });
  await expect(row).toContainText(secret.slice(0, 12));
  await expect(row).toContainText('Active');
  // The list shows the key by its prefix only.
  expect(await page.content()).not.toContain(secret);
  // Cancelled (by its button, or by Escape): nothing revoked, and focus back on the button that asked.
  const revoke = row.getByRole('button', { name: 'Revoke' });
  const dialog = page.getByRole('dialog');
  await revoke.click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(revoke).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(revoke).toBeFocused();
  await expect(row).toContainText('Active');
  // Confirmed, but the post led nowhere (a 204 here; a stopped navigation, a page brought back by
  // Back): the page is still there, and the next press asks again.
  const held = page.waitForRequest((r) => r.url().endsWith('/revoke'));
  await page.route('**/revoke', (route) => route.fulfill({ status: 204 }), { times: 1 });
  await revoke.click();
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  expect((await held).postData()).toContain('confirmed=yes');
  await expect(dialog).toHaveCount(0);
  await revoke.click();
  await expect(dialog).toContainText('Revoke the key');
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('The key was revoked');
  await expect(page.getByRole('row', { name: /Shop sync/ })).toContainText('Revoked');
  expect(await axeViolations(page)).toEqual([]);
  expect((await request.get(events, { headers: { 'X-API-Key': secret } })).status()).toBe(401);
  await context.close();
});

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

test('a leader replays a failed delivery to their receiver and sees it succeed', async ({ browser, request }) => {
  // The receiver: 500 to the first delivery, 200 to everything after.
  const received: Received[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (received.length === 1) res.writeHead(500, { 'Content-Type': 'text/plain' }).end('not ready');
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  try {
    const community = await importConsoleCommunity('cihook');
    const context = await signedInContext(browser, community, community.founder);
    const page = await context.newPage();
    await page.goto(`${community.origin}/admin/integrations`);
    // A key that publishes articles, to cause the event the receiver subscribes to.
    const key = await createKey(page, 'Publisher', ['ADMIN']);
    await page.goto(`${community.origin}/admin/integrations`);

    // No event chosen: refused, the reason under the events and the URL kept.
    await page.getByLabel('URL', { exact: true }).fill(receiverUrl);
    await page.getByLabel('Every event').uncheck();
    await page.getByRole('button', { name: 'Add receiver' }).click();
    await expect(page.getByRole('group', { name: 'Events' })).toContainText('must list at least one event');
    await expect(page.getByLabel('URL', { exact: true })).toHaveValue(receiverUrl);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('article.published').check();
    await page.getByRole('button', { name: 'Add receiver' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your new webhook receiver');
    const signingSecret = (await page.locator('#new-secret').textContent())!.trim();
    expect(signingSecret).toMatch(/^whsec_/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: /to the receiver's page/ }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhook receiver');
    expect(await page.content()).not.toContain(signingSecret);

    const base = `${API_ORIGIN}/v1/communities/${community.tag}/articles`;
    const headers = { 'X-API-Key': key };
    const draft = await request.post(base, {
      headers,
      data: { title: 'Hello receivers', bannerUrl: 'https://images.example/banner.png' },
    });
    expect(draft.status()).toBe(201);
    const { id } = (await draft.json()) as { id: string };
    expect((await request.post(`${base}/${id}/publish`, { headers })).status()).toBe(200);

    // The first attempt fails (500) and the delivery waits for its retry, as the console shows.
    const row = page.getByRole('row', { name: /article\.published/ });
    await expect(async () => {
      await page.reload();
      await expect(row).toContainText('Failed, retrying', { timeout: 500 });
    }).toPass({ timeout: 15_000 });
    await expect(row).toContainText('500');
    expect(await axeViolations(page)).toEqual([]);

    await row.getByRole('link').first().click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Delivery');
    await expect(page.getByRole('row', { name: /not ready/ })).toContainText('500');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Replay delivery' }).click();
    await expect(page.getByRole('status')).toContainText('The delivery was queued again');
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole('row', { name: /thanks/ })).toContainText('200', { timeout: 500 });
    }).toPass({ timeout: 15_000 });
    await expect(page.getByText('Delivered', { exact: true })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    // The receiver got the same delivery twice, the second signed with the secret shown once.
    expect(received).toHaveLength(2);
    expect(received[1].headers['svc-delivery-id']).toBe(received[0].headers['svc-delivery-id']);
    const event = new Stripe('sk_test_not_used_for_network').webhooks.constructEvent(
      received[1].body,
      received[1].headers['svc-signature'] as string,
      signingSecret,
    ) as unknown as { event: string; communityTag: string; data: { title: string } };
    expect(event).toMatchObject({ event: 'article.published', communityTag: community.tag });
    expect(event.data.title).toBe('Hello receivers');
    await context.close();
  } finally {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  }
});

test('with JavaScript off, a leader creates a key and revokes it through the confirmation page', async ({
  browser,
  request,
}) => {
  const community = await importConsoleCommunity('cinojs');
  const context = await signedInContext(browser, community, community.founder, { javaScript: false });
  const page = await context.newPage();
  await page.goto(`${community.origin}/admin/integrations`);
  const secret = await createKey(page, 'No script', ['READ_PUBLIC', 'WRITE_SALES']);
  await expect(page.getByRole('button', { name: 'Copy' })).toHaveCount(0);
  const events = `${API_ORIGIN}/v1/communities/${community.tag}/events`;
  expect((await request.get(events, { headers: { 'X-API-Key': secret } })).status()).toBe(200);

  await page.goto(`${community.origin}/admin/integrations`);
  await page
    .getByRole('row', { name: /No script/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  // No dialog without JavaScript: the post answers a page that asks, and nothing is revoked yet.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Are you sure?');
  expect((await request.get(events, { headers: { 'X-API-Key': secret } })).status()).toBe(200);
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page).toHaveURL(/\/admin\/integrations\?done=key-revoked$/);
  await expect(page.getByRole('status')).toContainText('The key was revoked');
  expect((await request.get(events, { headers: { 'X-API-Key': secret } })).status()).toBe(401);
  await context.close();
});
