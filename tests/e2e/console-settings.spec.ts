// The console's settings page in Chromium (docs/leader-console.md, "Pages" -> "Settings"): a
// leader changes the brand colour and both the hosted site and a widget embedded on a customer's
// page follow; a leader adds an embed origin and a widget on that origin starts booking; the page
// saves with JavaScript off; the live preview follows the draft; the page and the preview are
// axe-clean. Each test has a community of its own (importConsoleCommunity).
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { importConsoleCommunity, signedInContext, type ConsoleCommunity } from './console-support.ts';
import { PAGE_ORIGIN, axeViolations, openCustomerPage, publishableKey, snippet, uniqueEmail } from './support.ts';

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** The background of the header's "Sign in" button: the primary button, in the brand colour. */
const signInBackground = (page: Page) =>
  page.locator('svc-header [part~="sign-in"]').evaluate((el) => getComputedStyle(el).backgroundColor);

/** A page in a fresh context: nothing cached from an earlier look (the community object has max-age 60). */
async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

/** A customer's page on PAGE_ORIGIN embedding the community's widgets with its publishable key. */
async function customerPage(browser: Browser, name: string, community: ConsoleCommunity, key: string, body: string) {
  const page = await freshPage(browser);
  await openCustomerPage(page, name, `${body}${snippet(key, community.tag)}`);
  return page;
}

test.use({ locale: 'en-US', timezoneId: 'UTC' });
// Several browser contexts and a fresh community each, on a machine shared with other runs.
test.setTimeout(120_000);

test('a leader changes the brand colour: the preview, the hosted site and an embedded widget follow', async ({
  browser,
  request,
}) => {
  const before = '#aa0000';
  const after = '#0055ff';
  const club = await importConsoleCommunity('cstheme', {
    embedOrigins: [PAGE_ORIGIN],
    themeConfig: { brandColor: before },
  });
  const key = await publishableKey(request, club.tag);

  const embedBefore = await customerPage(browser, 'theme-before', club, key, '<svc-header></svc-header>');
  await expect(embedBefore.locator('svc-header [part~="sign-in"]')).toBeVisible();
  expect(await signInBackground(embedBefore)).toBe(rgb(before));
  await embedBefore.context().close();

  const leader = await signedInContext(browser, club, club.founder);
  const page = await leader.newPage();
  await page.goto(`${club.origin}/admin/settings`);
  const theme = page.locator('#settings-theme');
  const brand = theme.getByLabel('Brand', { exact: true });
  await expect(brand).toHaveValue(before);
  await brand.fill(after);

  // The live preview (the island re-posts the draft as the leader types): the sample's primary
  // button and the server-rendered header in the draft colour, before anything is saved.
  const preview = page.frameLocator('iframe[name="settings-preview"]');
  await expect(preview.locator('.sample .primary')).toHaveCSS('background-color', rgb(after));
  await expect(preview.locator('svc-header [part~="user"]')).toBeVisible();

  await theme.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(`${club.origin}/admin/settings?done=theme`);
  await expect(page.getByRole('status').filter({ hasText: 'Theme saved.' })).toBeVisible();
  await expect(page.locator('#settings-theme').getByLabel('Brand', { exact: true })).toHaveValue(after);

  // The hosted site, for an anonymous visitor.
  const hosted = await freshPage(browser);
  await hosted.goto(`${club.origin}/`);
  await expect(hosted.locator('svc-header [part~="sign-in"]')).toBeVisible();
  expect(await signInBackground(hosted)).toBe(rgb(after));
  await hosted.context().close();

  // The widget embedded on the customer's page.
  const embedAfter = await customerPage(browser, 'theme-after', club, key, '<svc-header></svc-header>');
  await expect(embedAfter.locator('svc-header [part~="sign-in"]')).toBeVisible();
  expect(await signInBackground(embedAfter)).toBe(rgb(after));
  await embedAfter.context().close();
  await leader.close();
});

test('a leader adds an embed origin, and a widget on that origin starts booking', async ({ browser, request }) => {
  const club = await importConsoleCommunity('csembed', {
    events: [
      {
        slug: 'open-evening',
        name: 'Open Evening',
        startDate: '+5d@18:00',
        endDate: '+5d@20:00',
        format: 'in_person',
        tiers: [{ name: 'Free entry', priceCents: 0, currency: 'USD', capacity: 50 }],
      },
    ],
  });
  const key = await publishableKey(request, club.tag);
  const book = async (name: string) => {
    const page = await customerPage(browser, name, club, key, '<svc-rsvp event="open-evening"></svc-rsvp>');
    const w = page.locator('svc-rsvp');
    await w.getByRole('radio', { name: /^Free entry/ }).check();
    await w.getByLabel('Your name').fill('Ana Lima');
    await w.getByLabel('E-mail').fill(uniqueEmail('embed'));
    // The action itself (not its preflight), answered: its status says whether it was taken.
    const answered = page.waitForResponse((r) => r.url().includes('/api/actions/') && r.request().method() === 'POST');
    await w.getByRole('button', { name: 'RSVP' }).click();
    return { page, w, status: answered.then((r) => r.status()) };
  };

  // Not listed: the page reads the event (reads are public), but the booking is refused, readably
  // (403 ORIGIN_NOT_ALLOWED with CORS headers), and the widget says why.
  const refused = await book('embed-before');
  expect(await refused.status).toBe(403);
  await expect(refused.w.getByRole('alert')).toContainText("This site isn't set up for this yet");
  await expect(refused.w.locator('[part~="confirmation"]')).toHaveCount(0);
  await refused.page.context().close();

  const leader = await signedInContext(browser, club, club.founder);
  const page = await leader.newPage();
  await page.goto(`${club.origin}/admin/settings`);
  const site = page.locator('#settings-site');
  await site.getByLabel('Embed origins').fill(`${PAGE_ORIGIN}\n`);
  await site.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(`${club.origin}/admin/settings?done=site`);
  await expect(page.locator('#settings-site').getByLabel('Embed origins')).toHaveValue(PAGE_ORIGIN);
  await leader.close();

  const booked = await book('embed-after');
  expect(await booked.status).toBe(200);
  await expect(booked.w.locator('[part~="confirmation"]')).toContainText("You're going!");
  await booked.page.context().close();
});

test('with JavaScript off the settings page saves, shows a refusal next to its field, and previews by its button', async ({
  browser,
}) => {
  const club = await importConsoleCommunity('csnojs');
  const leader = await signedInContext(browser, club, club.founder, { javaScript: false });
  const page = await leader.newPage();
  await page.goto(`${club.origin}/admin/settings`);

  // A refused value: the page comes back with the error next to the field and the value kept.
  const site = page.locator('#settings-site');
  await site.getByLabel('Domains').fill('not a host!');
  await site.getByRole('button', { name: 'Save' }).click();
  const domains = page.locator('#settings-site').getByLabel('Domains');
  await expect(domains).toHaveValue('not a host!');
  await expect(domains).toHaveAttribute('aria-invalid', 'true');
  await expect(domains).toHaveAccessibleDescription(/"not a host!": must be a hostname/);

  // Saving a change.
  await page.goto(`${club.origin}/admin/settings`);
  const header = page.locator('#settings-header');
  await header.getByLabel('Name shown').fill('Nojs Hikers');
  await header.getByLabel('Style', { exact: true }).selectOption('transparent');
  await header.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(`${club.origin}/admin/settings?done=header`);
  await expect(page.getByText('Header saved.')).toBeVisible();
  await expect(page.locator('#settings-header').getByLabel('Name shown')).toHaveValue('Nojs Hikers');

  // The Preview button posts the draft into the frame, and saves nothing.
  await page.locator('#settings-header').getByLabel('Name shown').fill('Draft Hikers');
  await page.locator('#settings-header').getByRole('button', { name: 'Preview' }).click();
  const preview = page.frameLocator('iframe[name="settings-preview"]');
  await expect(preview.locator('svc-header [part~="name"]')).toHaveText('Draft Hikers');
  await page.goto(`${club.origin}/admin/settings`);
  await expect(page.locator('#settings-header').getByLabel('Name shown')).toHaveValue('Nojs Hikers');
  await leader.close();
});

/**
 * The settings page's violations, its preview frame left out: the frame is a page of its own (the
 * site's header, main and footer), which axe would otherwise count as a second banner and main of
 * this page; it is scanned on its own below.
 */
async function settingsViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).exclude('iframe[name="settings-preview"]').analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

test('the settings page and its preview have no axe violations', async ({ browser }) => {
  const club = await importConsoleCommunity('csaxe', { themeConfig: { brandColor: '#2f6b4f' } });
  const leader = await signedInContext(browser, club, club.founder);
  const page = await leader.newPage();
  await page.goto(`${club.origin}/admin/settings`);
  await expect(page.frameLocator('iframe[name="settings-preview"]').locator('.sample')).toBeVisible();
  expect(await settingsViolations(page)).toEqual([]);

  // With refusals shown next to their fields.
  await page.locator('#settings-theme').getByLabel('Body font').fill('x'.repeat(201));
  await page.locator('#settings-theme').getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#settings-theme').getByLabel('Body font')).toHaveAttribute('aria-invalid', 'true');
  expect(await settingsViolations(page)).toEqual([]);

  await page.goto(`${club.origin}/admin/settings/preview`);
  await expect(page.locator('.sample')).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await leader.close();
});
