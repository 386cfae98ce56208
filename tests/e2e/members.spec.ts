// <svc-members> on the demo page (a customer's site at 127.0.0.1, the publishable key, the API on
// localhost): the seeded demo community's directory, compared with what the API answers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import type { Member } from '../../contract/resources.ts';
import {
  API_ORIGIN,
  COMMUNITY,
  DEMO_URL,
  HOSTED_ORIGIN,
  axeViolations,
  items,
  openCustomerPage,
  publishableKey,
  recordProblems,
  snippet,
  svc,
} from './support.ts';

const PAGE_SIZE = 6;

const widget = (page: Page) => page.locator('svc-members').first();
const memberNames = (w: Locator) => w.locator('[part~="name"]');
const loadMore = (w: Locator) => w.getByRole('button', { name: 'Load more members' });

/** The whole directory straight from the API, as the widget should show it, and its total. */
async function apiMembers(
  request: APIRequestContext,
  community = COMMUNITY,
): Promise<{ members: Member[]; total: number }> {
  const res = await request.get(`${API_ORIGIN}/v1/communities/${community}/members`, {
    params: { limit: '100' },
    headers: { 'X-API-Key': await publishableKey(request, community) },
  });
  expect(res.status()).toBe(200);
  return { members: (await res.json()) as Member[], total: Number(res.headers()['x-total-count']) };
}

const initialsOf = (name: string) => {
  const words = name.trim().split(/\s+/);
  return [words[0], words.length > 1 ? words[words.length - 1] : '']
    .map((w) => Array.from(w)[0] ?? '')
    .join('')
    .toUpperCase();
};

test.use({ timezoneId: 'UTC', locale: 'en-US' });

test('renders the first page of the seeded directory: names, @usertags, bios, joined dates, initials', async ({
  page,
  request,
}) => {
  const { members, total } = await apiMembers(request);
  expect(total).toBeGreaterThan(2 * PAGE_SIZE);
  await page.goto(DEMO_URL);
  const w = widget(page);
  const first = members.slice(0, PAGE_SIZE);
  await expect(memberNames(w)).toHaveText(first.map((m) => m.name));
  await expect(w.getByRole('list', { name: 'Members' }).getByRole('listitem')).toHaveCount(PAGE_SIZE);

  const joined = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', timeZone: 'UTC' });
  for (const [i, m] of first.entries()) {
    const card = items(w).nth(i);
    await expect(card.locator('[part~="usertag"]')).toHaveText(`@${m.usertag}`);
    if (m.bio) await expect(card.locator('[part~="bio"]')).toHaveText(m.bio);
    else await expect(card.locator('[part~="bio"]')).toHaveCount(0);
    await expect(card.locator('time')).toHaveAttribute('datetime', m.joinedAt);
    await expect(card.locator('time')).toHaveText(joined.format(new Date(m.joinedAt)));
    // No demo member has a picture: every avatar is the initials, hidden from screen readers.
    const avatar = card.locator('[part~="avatar"]');
    await expect(avatar).toHaveText(initialsOf(m.name));
    await expect(avatar).toHaveAttribute('aria-hidden', 'true');
  }
  await expect(w.getByRole('status')).toHaveText(`${PAGE_SIZE} of ${total} members shown`);
});

test('each card links to /members/<usertag> on the community site', async ({ page, request }) => {
  const { members } = await apiMembers(request);
  await page.goto(DEMO_URL);
  const links = memberNames(widget(page));
  await expect(links).toHaveCount(PAGE_SIZE);
  for (const [i, m] of members.slice(0, PAGE_SIZE).entries()) {
    await expect(links.nth(i)).toHaveAttribute('href', `${HOSTED_ORIGIN}/members/${m.usertag}`);
  }
});

test('"Load more" appends the next page by offset, focuses the first new member, and ends on the last page', async ({
  page,
  request,
}) => {
  const { members, total } = await apiMembers(request);
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(items(w)).toHaveCount(PAGE_SIZE);

  const next = page.waitForRequest(
    (r) => r.url().startsWith(`${API_ORIGIN}/v1/communities/demo/members?`) && r.url().includes('offset='),
  );
  await loadMore(w).click();
  const url = new URL((await next).url());
  expect(url.searchParams.get('offset')).toBe(String(PAGE_SIZE));
  expect(url.searchParams.get('limit')).toBe(String(PAGE_SIZE));
  await expect(memberNames(w)).toHaveText(members.slice(0, 2 * PAGE_SIZE).map((m) => m.name));
  await expect(memberNames(w).nth(PAGE_SIZE)).toBeFocused();

  // Click through to the last page: the button goes once every member is loaded.
  for (let loaded = 2 * PAGE_SIZE; loaded < total;) {
    await loadMore(w).click();
    loaded = Math.min(loaded + PAGE_SIZE, total);
    await expect(items(w)).toHaveCount(loaded);
  }
  await expect(loadMore(w)).toHaveCount(0);
  await expect(memberNames(w)).toHaveText(members.map((m) => m.name));
  await expect(w.getByRole('status')).toHaveText(`${total} of ${total} members shown`);
});

test('the filter box narrows the loaded members by name, @usertag or bio, and says how many match', async ({
  page,
  request,
}) => {
  const { members, total } = await apiMembers(request);
  const loaded = members.slice(0, PAGE_SIZE);
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(items(w)).toHaveCount(PAGE_SIZE);
  const filter = w.getByLabel('Filter members');

  // By a word of a bio ("Trail runner", "trail crew", "trail cookies"...), case-insensitively.
  const byBio = loaded.filter((m) => `${m.name} @${m.usertag} ${m.bio ?? ''}`.toLowerCase().includes('trail'));
  expect(byBio.length).toBeGreaterThan(0);
  expect(byBio.length).toBeLessThan(loaded.length);
  await filter.fill('TRAIL');
  await expect(memberNames(w)).toHaveText(byBio.map((m) => m.name));
  await expect(w.getByRole('status')).toHaveText(
    `${byBio.length} matching ${byBio.length === 1 ? 'member' : 'members'} (${PAGE_SIZE} of ${total} loaded)`,
  );

  // By @usertag.
  await filter.fill(`@${loaded[2].usertag}`);
  await expect(memberNames(w)).toHaveText([loaded[2].name]);

  // Nothing loaded matches: an empty list and a message, never an error.
  await filter.fill('zzzz');
  await expect(items(w)).toHaveCount(0);
  await expect(w.getByRole('status')).toHaveText(`No loaded members match “zzzz” (${PAGE_SIZE} of ${total} loaded)`);

  // Members loaded later are filtered too.
  const later = members.slice(PAGE_SIZE, 2 * PAGE_SIZE).find((m) => m.bio)!;
  const word = later
    .bio!.split(/\s+/)
    .find((x) => x.length > 5)!
    .replace(/[^\p{L}]/gu, '');
  await filter.fill(word);
  await loadMore(w).click();
  const expected = members
    .slice(0, 2 * PAGE_SIZE)
    .filter((m) => `${m.name} @${m.usertag} ${m.bio ?? ''}`.toLowerCase().includes(word.toLowerCase()));
  await expect(memberNames(w)).toHaveText(expected.map((m) => m.name));

  await filter.fill('');
  await expect(items(w)).toHaveCount(2 * PAGE_SIZE);
});

test('everything is reachable and usable from the keyboard', async ({ page }) => {
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(items(w)).toHaveCount(PAGE_SIZE);
  const filter = w.getByLabel('Filter members');
  await filter.focus();
  await page.keyboard.type('o');
  const shown = await memberNames(w).count();
  expect(shown).toBeGreaterThan(0);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await expect(items(w)).toHaveCount(PAGE_SIZE);
  // Tab walks the cards' links in order, then reaches "Load more".
  for (let i = 0; i < PAGE_SIZE; i++) {
    await page.keyboard.press('Tab');
    await expect(memberNames(w).nth(i)).toBeFocused();
  }
  await page.keyboard.press('Tab');
  await expect(loadMore(w)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(items(w)).toHaveCount(2 * PAGE_SIZE);
  await expect(memberNames(w).nth(PAGE_SIZE)).toBeFocused();
});

test('the demo page with the member directory has no axe violations, filtered or not', async ({ page }) => {
  const problems = recordProblems(page);
  await page.goto(DEMO_URL);
  const w = widget(page);
  await expect(items(w)).toHaveCount(PAGE_SIZE);
  // The whole page: the directory must not break the page's own landmarks and headings either.
  const scan = async () => expect(await axeViolations(page)).toEqual([]);
  await scan();
  await w.getByLabel('Filter members').fill('zzzz');
  await expect(items(w)).toHaveCount(0);
  await scan();
  await page.waitForLoadState('networkidle');
  expect(problems).toEqual([]);
});

test('a picture that fails to load falls back to the initials; one that loads is shown', async ({ page, request }) => {
  // A community of its own, imported through the real CLI into the e2e server's database, so
  // the demo directory other specs read stays as seeded.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-members-e2e-'));
  const file = path.join(dir, 'avatars.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      communities: [
        {
          tag: 'avatars',
          name: 'Avatar Club',
          visibility: 'PUBLIC',
          accessibility: 'OPEN',
          founder: 'pic-founder',
          users: [
            {
              email: 'pic-founder@example.com',
              name: 'Paula Pictured',
              usertag: 'pic-founder',
              profileImage: 'https://avatars.example/paula.png',
            },
            {
              email: 'pic-broken@example.com',
              name: 'Bram Broken',
              usertag: 'pic-broken',
              profileImage: 'https://avatars.example/missing.png',
            },
          ],
          memberships: [
            { usertag: 'pic-founder', status: 'ACCEPTED', role: 'founder', createdAt: '-10d', acceptedAt: '-10d' },
            { usertag: 'pic-broken', status: 'ACCEPTED', createdAt: '-5d', acceptedAt: '-5d' },
          ],
        },
      ],
    }),
  );
  await svc('import', file);
  fs.rmSync(dir, { recursive: true, force: true });

  // The picture host: one image answers, the other is a 404.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  await page.route('https://avatars.example/**', (route) =>
    route.request().url().endsWith('/paula.png')
      ? route.fulfill({ contentType: 'image/png', body: png })
      : route.fulfill({ status: 404, body: 'not found' }),
  );

  const key = await publishableKey(request, 'avatars');
  await openCustomerPage(page, 'members-avatars', `<svc-members></svc-members>${snippet(key, 'avatars')}`);
  const w = widget(page);
  await expect(memberNames(w)).toHaveText(['Paula Pictured', 'Bram Broken']);
  const shown = items(w).nth(0).locator('img[part~="avatar"]');
  await expect(shown).toHaveAttribute('src', 'https://avatars.example/paula.png');
  await expect(shown).toHaveAttribute('alt', '');
  expect(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(items(w).nth(1).locator('img')).toHaveCount(0);
  await expect(items(w).nth(1).locator('[part~="initials"]')).toHaveText('BB');
  await expect(items(w).nth(1).locator('a')).toHaveAttribute('href', /\/members\/pic-broken$/);
});
