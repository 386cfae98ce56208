// The console's overview and broadcasts in Chromium (docs/leader-console.md, "Pages"): the counts
// and charts of `/admin`; composing with the live preview following the typing, a test send that
// reaches the outbox, scheduling and cancelling; the same with JavaScript off; every page axe-clean.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { importConsoleCommunity, signedInContext, type ConsoleCommunity } from './console-support.ts';
import { axeViolations, svc } from './support.ts';

const DAY = 24 * 60 * 60 * 1000;

interface Mail {
  to: string;
  subject: string;
  text: string;
}
const outbox = async (to: string) => JSON.parse(await svc('mail', 'list', '--to', to, '--json')) as Mail[];

// Each test walks several pages and runs axe on most of them.
test.setTimeout(90_000);

let club: ConsoleCommunity;

test.beforeAll(async () => {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  const members = ['ana', 'ben'].map((who) => ({
    email: `${who}-${run}@example.com`,
    name: `${who} Member`,
    usertag: `${who}${run}`,
  }));
  club = await importConsoleCommunity('cbc', {
    features: ['broadcasts'],
    users: members,
    memberships: members.map((m) => ({ usertag: m.usertag, status: 'ACCEPTED' })),
    events: [
      {
        slug: 'summer-fair',
        name: 'Summer <fair>',
        startDate: new Date(Date.now() + 3 * DAY).toISOString(),
        format: 'in_person',
      },
    ],
  });
});

/**
 * Axe on a compose page with its preview frame left out (the frame is a document of its own, with
 * a banner and a main of its own; it is scanned on its own by previewAxe).
 */
async function axeOutsideFrame(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).exclude('iframe[name="broadcast-preview"]').analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Axe on the preview document of the draft on the page, opened as the page itself, then back. */
async function previewAxe(page: Page): Promise<string[]> {
  const compose = page.url();
  await page.locator('[data-preview-button]').evaluate((b) => b.setAttribute('formtarget', '_self'));
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByText(/^Would reach/)).toBeVisible();
  const found = await axeViolations(page);
  await page.goto(compose);
  return found;
}

/** The value of a stat on the overview, by its label. */
const stat = (page: Page, label: string) => page.locator('.stats li', { hasText: label }).locator('.value');
const previewFrame = (page: Page) => page.frameLocator('iframe[name="broadcast-preview"]');
/** A datetime-local value (UTC) some hours ahead. */
const hoursAhead = (h: number) => new Date(Date.now() + h * 60 * 60 * 1000).toISOString().slice(0, 16);

test('the overview shows the counts, the next event and two charts with their tables', async ({ browser }) => {
  const context = await signedInContext(browser, club, club.founder);
  const page = await context.newPage();
  await page.goto(`${club.origin}/admin`);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(stat(page, 'members')).toHaveText('3');
  await expect(stat(page, 'upcoming events')).toHaveText('1');
  await expect(stat(page, 'pending requests')).toHaveText('0');
  const event = page.getByRole('link', { name: 'Summer <fair>' });
  await expect(event).toHaveAttribute('href', '/events/summer-fair/manage');
  await expect(page.getByRole('img', { name: 'Donations by day' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'RSVPs by day' })).toBeVisible();
  await expect(page.locator('svg.chart rect')).toHaveCount(60);
  await page.getByText('RSVPs by day as a table').click();
  await expect(page.getByRole('table').last().locator('tbody tr')).toHaveCount(30);
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
});

test('compose: the preview follows the typing, a test reaches the outbox, and the list counts sends', async ({
  browser,
}) => {
  const context = await signedInContext(browser, club, club.founder);
  const page = await context.newPage();
  await page.goto(`${club.origin}/admin/broadcasts`);
  await expect(page.locator('#allowance')).toContainText('5 of 5 sends left');
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('link', { name: 'New broadcast' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New broadcast' })).toBeVisible();
  const subject = `Fair news ${Date.now()}`;
  await page.getByLabel('Subject').fill(`${subject} for {{name}}`);
  await page.getByLabel('Body (HTML)').fill('<p>Dear {{name}}, see you at the <strong>fair</strong>.</p>');
  // No button pressed: the island previews a moment after the typing stops.
  await expect(previewFrame(page).getByText(`${subject} for Fran Founder`)).toBeVisible();
  await expect(previewFrame(page).getByText('Dear Fran Founder, see you at the')).toBeVisible();
  await page.getByLabel('Body (HTML)').fill('<p>Changed: bring a friend.</p>');
  await expect(previewFrame(page).getByText('Changed: bring a friend.')).toBeVisible();
  expect(await axeOutsideFrame(page)).toEqual([]);

  await page.getByRole('button', { name: 'Send a test to me' }).click();
  await expect(page.getByRole('status')).toContainText('A test copy is on its way');
  await expect(page.locator('td', { hasText: 'Test to' })).toContainText(club.founder.email);
  expect(await axeViolations(page)).toEqual([]);
  await expect
    .poll(async () => (await outbox(club.founder.email)).map((m) => m.subject), { timeout: 15_000 })
    .toContainEqual(expect.stringContaining(subject));
  const [mail] = (await outbox(club.founder.email)).filter((m) => m.subject.includes(subject));
  expect(mail.subject).toContain('[TEST]');
  expect(mail.text).toContain('Changed: bring a friend.');
  // A test never counts toward the limit.
  await page.goto(`${club.origin}/admin/broadcasts`);
  await expect(page.locator('#allowance')).toContainText('5 of 5 sends left');
  await expect(page.getByRole('link', { name: `${subject} for {{name}}` })).toBeVisible();
  // The preview document itself, opened as a page.
  await page.goto(`${club.origin}/admin/broadcasts/new`);
  await page.getByLabel('Subject').fill('Axe {{name}}');
  await page.getByLabel('Body (HTML)').fill('<p>Checked <a href="https://example.com/">alone</a>.</p>');
  expect(await previewAxe(page)).toEqual([]);
  await context.close();
});

test('schedule, then cancel through the confirmation dialog', async ({ browser }) => {
  const context = await signedInContext(browser, club, club.founder);
  const page = await context.newPage();
  await page.goto(`${club.origin}/admin/broadcasts/new`);
  await page.getByLabel('Subject').fill('Scheduled with JS');
  await page.getByLabel('Plain-text part (optional)').fill('Later on.');
  // Schedule without a time: refused, the error next to the field.
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#error-sendAt')).toContainText('Choose when to send it');
  await expect(page.getByLabel('Send at (UTC)')).toHaveAttribute('aria-invalid', 'true');
  // The island previews the re-shown draft at once; axe runs once the frame has settled.
  await expect(previewFrame(page).getByText('Subject: Scheduled with JS')).toBeVisible();
  expect(await axeOutsideFrame(page)).toEqual([]);
  await page.getByLabel('Send at (UTC)').fill(hoursAhead(5));
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.getByRole('status')).toContainText('Scheduled.');
  await expect(page.getByRole('row', { name: /State/ })).toContainText('SCHEDULED');
  expect(await axeViolations(page)).toEqual([]);
  const detail = page.url();
  // The page a post without confirmation answers (the no-JavaScript path), checked here with axe.
  await page.locator('form[data-confirm]').evaluate((form) => form.removeAttribute('data-confirm'));
  await page.getByRole('button', { name: 'Cancel this broadcast' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Are you sure?' })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.goto(detail);
  await expect(page.getByRole('row', { name: /State/ })).toContainText('SCHEDULED');
  await page.getByRole('button', { name: 'Cancel this broadcast' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Cancel “Scheduled with JS”?');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('Cancelled');
  await expect(page.getByRole('row', { name: /State/ })).toContainText('CANCELLED');
  await expect(page.getByRole('button', { name: 'Cancel this broadcast' })).toHaveCount(0);
  await context.close();
});

test('with JavaScript off: preview by the button, schedule, and cancel by the confirmation page', async ({
  browser,
}) => {
  // No axe here: axe-core runs in the page and cannot where JavaScript is off. The same pages (the
  // refused form, the confirmation page) are checked with JavaScript on in the test above.
  const context = await signedInContext(browser, club, club.founder, { javaScript: false });
  const page = await context.newPage();
  await page.goto(`${club.origin}/admin/broadcasts/new`);
  await page.getByLabel('Subject').fill('Without scripts');
  await page.getByLabel('Body (HTML)').fill('<p>Plain <em>forms</em> only.</p>');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(previewFrame(page).getByText('Plain forms only.')).toBeVisible();
  await expect(previewFrame(page).getByText('Would reach 3 people now.')).toBeVisible();
  // A refused schedule keeps what was typed, with the error next to the field.
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('#error-sendAt')).toContainText('Choose when to send it');
  await expect(page.getByLabel('Subject')).toHaveValue('Without scripts');
  await page.getByLabel('Send at (UTC)').fill(hoursAhead(30));
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.getByRole('status')).toContainText('Scheduled.');
  await page.getByRole('button', { name: 'Cancel this broadcast' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Are you sure?' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel the broadcast' }).click();
  await expect(page.getByRole('row', { name: /State/ })).toContainText('CANCELLED');
  await context.close();
});
