// What the WordPress specs share: the test site (integrations/wordpress/test-site/), its users,
// the community the plugin is configured with, and the steps an editor takes in wp-admin.
import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import path from 'node:path';
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { API_ORIGIN, recordProblems } from '../e2e/support.ts';

export const WP_PORT = Number(process.env.SVC_WP_PORT ?? 8100);
export const WP_ORIGIN = `http://127.0.0.1:${WP_PORT}`;
/** Where setup.sh put this site's wp-content, debug.log and the DISALLOW_UNFILTERED_HTML flag. */
export const SITE_DIR = process.env.SVC_WP_SITE_DIR ?? `/tmp/svc-wp-${WP_PORT}`;

interface WpUser {
  login: string;
  role: 'administrator' | 'editor' | 'author';
  password: string;
}
/** The users setup.sh creates, from the file it reads them from. */
export const USERS: WpUser[] = JSON.parse(
  fs.readFileSync(path.resolve('integrations/wordpress/test-site/users.json'), 'utf8'),
) as WpUser[];
export const user = (role: WpUser['role']) => USERS.find((u) => u.role === role)!;

/**
 * The community the plugin shows: imported by settings.setup.ts into the run's fresh data
 * directory (so the fixed tag is new every run), with the WordPress origin among its embed
 * origins so widget actions (the RSVP) are accepted from the site.
 */
export const COMMUNITY = 'wp-club';
export const EVENT = 'garden-picnic';
export const EVENT_NAME = 'Garden Picnic';
export const SKU = 'garden-fund';
export const SEGMENT = 'Friends of the garden';
export const COMMUNITY_NAME = 'Garden Club';
export const FOOTER_TITLE = 'Garden Club, since 1987';

export const COMMUNITY_FIXTURE = {
  communities: [
    {
      tag: COMMUNITY,
      name: COMMUNITY_NAME,
      visibility: 'PUBLIC',
      accessibility: 'OPEN',
      features: ['donations'],
      founder: 'wp-fran',
      embedOrigins: [WP_ORIGIN],
      users: [
        { email: 'wp-fran@example.com', name: 'Fran Founder', usertag: 'wp-fran', password: 'leader-password' },
        { email: 'wp-milo@example.com', name: 'Milo Member', usertag: 'wp-milo', password: 'member-password' },
      ],
      memberships: [{ usertag: 'wp-milo', status: 'ACCEPTED', role: 'member' }],
      events: [
        {
          slug: EVENT,
          name: EVENT_NAME,
          startDate: '+14d@16:00',
          endDate: '+14d@19:00',
          format: 'in_person',
          tiers: [{ name: 'Free RSVP', priceCents: 0, currency: 'USD', capacity: 100 }],
        },
      ],
      products: [
        {
          sku: SKU,
          name: 'Garden fund',
          priceCents: 0,
          currency: 'USD',
          donationConfig: { enabled: true, mode: 'fixed', amounts: [500, 1000, 2500], currency: 'USD' },
        },
      ],
      // <svc-footer> draws the community's footer; without one it has nothing to show.
      storefrontConfig: {
        footer: {
          title: FOOTER_TITLE,
          columns: [{ title: 'Visit', links: [{ label: 'Our events', href: '/events' }] }],
          copyright: '© Garden Club',
        },
      },
      segments: [{ name: SEGMENT, color: '#2f7d32', currency: 'USD', autoApprove: true }],
    },
  ],
};

/** The eight blocks, their titles in the inserter and the element each renders. */
export const BLOCKS = [
  { name: 'svc/events', title: 'svc Events', tag: 'svc-events' },
  { name: 'svc/rsvp', title: 'svc RSVP', tag: 'svc-rsvp' },
  { name: 'svc/donate', title: 'svc Donate', tag: 'svc-donate' },
  { name: 'svc/donate-button', title: 'svc Donate button', tag: 'svc-donate' },
  { name: 'svc/apply', title: 'svc Apply', tag: 'svc-apply' },
  { name: 'svc/members', title: 'svc Members', tag: 'svc-members' },
  { name: 'svc/header', title: 'svc Header', tag: 'svc-header' },
  { name: 'svc/footer', title: 'svc Footer', tag: 'svc-footer' },
] as const;

export async function publishableKey(): Promise<string> {
  const res = await fetch(`${API_ORIGIN}/v1/communities/${COMMUNITY}/publishable-key`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { publishableKey: string }).publishableKey;
}

/** Where auth.setup.ts keeps each role's signed-in cookies for the run (made afresh every run). */
export const authFile = (role: WpUser['role']) => path.resolve('test-results/e2e-wordpress-auth', `${role}.json`);

/** A context signed in to wp-admin as `role`, through the real login form. */
export async function logIn(browser: Browser, role: WpUser['role']): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const { login, password } = user(role);
  await page.goto('/wp-login.php');
  await page.getByLabel('Username or Email Address').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log In' }).click();
  await page.waitForURL(/\/wp-admin\//);
  await page.close();
  return context;
}

/**
 * A context signed in as `role` with the cookies auth.setup.ts saved after its real login, so a
 * spec does not go through the login form again (one login per role per run).
 */
export async function signedIn(browser: Browser, role: WpUser['role']): Promise<BrowserContext> {
  return browser.newContext({ storageState: authFile(role) });
}

type Wp = {
  wp: {
    data: {
      select: (store: string) => Record<string, (...args: unknown[]) => unknown>;
      dispatch: (store: string) => Record<string, (...args: unknown[]) => unknown>;
    };
  };
};

/** Opens the block editor on a post (new when `postId` is absent), ready for input. */
export async function openEditor(page: Page, postId?: number): Promise<void> {
  await page.goto(postId ? `/wp-admin/post.php?post=${postId}&action=edit` : '/wp-admin/post-new.php');
  await page.waitForFunction(() => {
    const { wp } = window as unknown as Partial<Wp>;
    return (
      !!wp?.data?.select('core/editor')?.getCurrentPostId?.() && !!document.querySelector('.block-editor-writing-flow')
    );
  });
  // The first-visit welcome guide is a modal over the editor; a new user sees it once.
  await page.evaluate(() => {
    const { wp } = window as unknown as Wp;
    if (wp.data.select('core/edit-post').isFeatureActive('welcomeGuide')) {
      wp.data.dispatch('core/edit-post').toggleFeature('welcomeGuide');
    }
  });
  await expect(page.locator('.edit-post-welcome-guide')).toHaveCount(0);
}

/**
 * Adds a block through the inserter's search, as a person would; the new block is selected.
 * `keepOpen` leaves the inserter open for the next block (closing it is only needed to reach the
 * block's settings), as a person adding several blocks in a row would.
 */
export async function insertBlock(page: Page, search: string, title: string, keepOpen = false): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Toggle block inserter' });
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  const searchBox = page.getByRole('searchbox', { name: /Search/ });
  await searchBox.fill(search);
  // The option's name starts with its icon: find it by the title text inside.
  await page
    .getByRole('listbox', { name: 'Blocks' })
    .getByRole('option')
    .filter({ has: page.getByText(title, { exact: true }) })
    .click();
  // Close the inserter so the block's settings are in view.
  if (!keepOpen && (await toggle.getAttribute('aria-pressed')) === 'true') await toggle.click();
}

/** The selected block's setting called `label` in the sidebar: a number, a select or a text field. */
export async function setBlockSetting(page: Page, label: string, value: string): Promise<void> {
  const toggle = page
    .getByRole('region', { name: 'Editor top bar' })
    .getByRole('button', { name: 'Settings', exact: true });
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  const settings = page.getByRole('region', { name: 'Editor settings' });
  const byRole = (role: 'spinbutton' | 'combobox' | 'textbox') =>
    settings.getByRole(role, { name: label, exact: true });
  const control = byRole('spinbutton').or(byRole('combobox')).or(byRole('textbox')).first();
  if ((await control.evaluate((el) => el.tagName)) === 'SELECT') await control.selectOption(value);
  else await control.fill(value);
}

export async function setTitle(page: Page, title: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Add title' }).fill(title);
}

/** Publish, through the pre-publish panel; returns the post's id and its public URL. */
export async function publish(page: Page): Promise<{ id: number; link: string }> {
  await page
    .getByRole('region', { name: 'Editor top bar' })
    .getByRole('button', { name: 'Publish', exact: true })
    .click();
  await page
    .getByRole('region', { name: 'Editor publish' })
    .getByRole('button', { name: 'Publish', exact: true })
    .click();
  return savedPost(page);
}

/** Update (an already published post). */
export async function update(page: Page): Promise<{ id: number; link: string }> {
  await page
    .getByRole('region', { name: 'Editor top bar' })
    .getByRole('button', { name: 'Update', exact: true })
    .click();
  return savedPost(page);
}

async function savedPost(page: Page): Promise<{ id: number; link: string }> {
  await page.waitForFunction(() => {
    const { wp } = window as unknown as Wp;
    const editor = wp.data.select('core/editor');
    return editor.isCurrentPostPublished() && !editor.isSavingPost() && !editor.isEditedPostDirty();
  });
  return page.evaluate(() => {
    const { wp } = window as unknown as Wp;
    const editor = wp.data.select('core/editor');
    return { id: editor.getCurrentPostId() as number, link: editor.getPermalink() as string };
  });
}

export interface BlockSummary {
  name: string;
  attributes: Record<string, unknown>;
}
/** The editor's top-level blocks as it parsed them from the saved post. */
export async function editorBlocks(page: Page): Promise<BlockSummary[]> {
  return page.evaluate(() => {
    const { wp } = window as unknown as Wp;
    const blocks = wp.data.select('core/block-editor').getBlocks() as BlockSummary[];
    return blocks.map((b) => ({ name: b.name, attributes: b.attributes }));
  });
}

/**
 * A REST call made by the signed-in page itself (wp.apiFetch carries the cookie and the nonce),
 * for the set-up steps that are not what a spec is about.
 */
export async function wpApi<T>(page: Page, path: string, method = 'GET', data?: unknown): Promise<T> {
  return page.evaluate(
    ({ path, method, data }) =>
      (window as unknown as { wp: { apiFetch: (o: unknown) => Promise<unknown> } }).wp.apiFetch({ path, method, data }),
    { path, method, data },
  ) as Promise<T>;
}

/** Lines of this site's PHP log that come from the plugin (WordPress 6.1's own PHP 8.2 deprecations are not ours). */
export function pluginLogLines(): string[] {
  const file = path.join(SITE_DIR, 'debug.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /plugins\/svc\/|integrations\/wordpress\/svc\//.test(l));
}

/** The svc-* elements of the page: each defined by the loader, and its shadow root drawn. */
export async function expectWidgetsRendered(page: Page, expected: Record<string, number>): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const counts: Record<string, number> = {};
          for (const el of document.querySelectorAll('*')) {
            if (!el.localName.startsWith('svc-')) continue;
            const drawn = el.matches(':defined') && (el.shadowRoot?.querySelectorAll('*').length ?? 0) > 0;
            const key = el.localName + (drawn ? '' : ' (not rendered)');
            counts[key] = (counts[key] ?? 0) + 1;
          }
          return counts;
        }),
      { timeout: 20_000 },
    )
    .toEqual(expected);
}

/** What each widget shows once it has read the community: proof it talked to the platform. */
export async function expectWidgetContent(page: Page, tags: Iterable<string>): Promise<void> {
  const first = (tag: string) => page.locator(tag).first();
  const checks: Record<string, () => Promise<void>> = {
    'svc-events': () => expect(first('svc-events').getByText(EVENT_NAME)).toBeVisible(),
    'svc-rsvp': () => expect(first('svc-rsvp').getByRole('radio', { name: /^Free RSVP/ })).toBeVisible(),
    'svc-donate': () => expect(first('svc-donate').getByRole('button').first()).toBeVisible(),
    'svc-apply': () => expect(first('svc-apply').getByText(SEGMENT).first()).toBeVisible(),
    'svc-members': () => expect(first('svc-members').getByText('Fran Founder')).toBeVisible(),
    'svc-header': () => expect(first('svc-header').getByText(COMMUNITY_NAME).first()).toBeVisible(),
    'svc-footer': () => expect(first('svc-footer').getByText(FOOTER_TITLE)).toBeVisible(),
  };
  for (const tag of new Set(tags)) await checks[tag]!();
}

/** The loader's script elements: the plugin enqueues exactly one, with the community and key. */
export async function loaderScripts(
  page: Page,
): Promise<{ src: string; community: string | null; key: string | null; async: boolean }[]> {
  return page.locator('script[src*="/widgets/loader.js"]').evaluateAll((els) =>
    (els as HTMLScriptElement[]).map((s) => ({
      src: s.src,
      community: s.getAttribute('data-community'),
      key: s.getAttribute('data-key'),
      async: s.async,
    })),
  );
}

/** A free RSVP from the WordPress page: the ticket's confirmation replaces the form. */
export async function rsvpFromPage(page: Page, email: string): Promise<void> {
  const w = page.locator('svc-rsvp').first();
  await w.getByRole('radio', { name: /^Free RSVP/ }).check();
  await w.getByLabel('Your name').fill('Wendy Press');
  await w.getByLabel('E-mail').fill(email);
  const sent = page.waitForResponse(
    (r) => r.url().endsWith(`/api/actions/${COMMUNITY}/events/${EVENT}/rsvp`) && r.request().method() === 'POST',
  );
  await w.getByRole('button', { name: 'RSVP' }).click();
  expect((await sent).ok()).toBe(true);
  await expect(w.locator('[part~="confirmation"]')).toContainText(`Also sent to your e-mail (${email})`);
}

/** Shortcodes of every widget, as an author would type them into a Shortcode block. */
export const SHORTCODES = [
  '[svc_events limit="2"]',
  `[svc_rsvp event="${EVENT}"]`,
  `[svc_donate sku="${SKU}"]`,
  `[svc_donate_button sku="${SKU}"]`,
  '[svc_apply]',
  '[svc_members limit="4"]',
  '[svc_header]',
  '[svc_footer]',
].join('\n');

/** What a page with every block and every shortcode once shows: two of each element (donate four). */
export const EVERY_WIDGET_TWICE = {
  'svc-events': 2,
  'svc-rsvp': 2,
  'svc-donate': 4,
  'svc-apply': 2,
  'svc-members': 2,
  'svc-header': 2,
  'svc-footer': 2,
};

/**
 * In the open editor: every svc block from the inserter (searching "svc"), their settings set in
 * the sidebar, then a Shortcode block with every shortcode; published. Returns the post.
 */
export async function composeEveryWidget(page: Page, title: string): Promise<{ id: number; link: string }> {
  await setTitle(page, title);
  const withSettings = new Set(['svc/events', 'svc/rsvp', 'svc/donate', 'svc/donate-button']);
  for (const block of BLOCKS) {
    await insertBlock(page, 'svc', block.title, !withSettings.has(block.name));
    if (block.name === 'svc/events') await setBlockSetting(page, 'Events per page', '3');
    if (block.name === 'svc/rsvp') await setBlockSetting(page, 'Event', EVENT);
    if (block.name === 'svc/donate' || block.name === 'svc/donate-button')
      await setBlockSetting(page, 'Product SKU', SKU);
  }
  await insertBlock(page, 'shortcode', 'Shortcode');
  await page.getByRole('textbox', { name: 'Shortcode text' }).fill(SHORTCODES);
  return publish(page);
}

/** Blocks (name, attributes) put into the open editor through its data store, as a script would. */
export async function insertBlocks(page: Page, blocks: [string, object][]): Promise<void> {
  await page.evaluate((blocks) => {
    const { wp } = window as unknown as {
      wp: {
        blocks: { createBlock: (name: string, attrs: object) => unknown };
        data: { dispatch: (s: string) => { insertBlocks: (b: unknown[]) => void } };
      };
    };
    wp.data
      .dispatch('core/block-editor')
      .insertBlocks(blocks.map(([name, attrs]) => wp.blocks.createBlock(name, attrs)));
  }, blocks);
}

/**
 * The same blocks as composeEveryWidget, put in through the editor's data store rather than the
 * inserter (quicker, for specs where the inserter is not the point), then published.
 */
export async function insertEveryWidget(page: Page, title: string): Promise<{ id: number; link: string }> {
  await setTitle(page, title);
  const attributes: Record<string, object> = {
    'svc/events': { limit: 3 },
    'svc/rsvp': { event: EVENT },
    'svc/donate': { sku: SKU },
    'svc/donate-button': { sku: SKU },
  };
  const blocks: [string, object][] = [
    ...BLOCKS.map((b): [string, object] => [b.name, attributes[b.name] ?? {}]),
    ['core/shortcode', { text: SHORTCODES }],
  ];
  await insertBlocks(page, blocks);
  return publish(page);
}

/** After a reload: the blocks composeEveryWidget made, in order, with their attributes. */
export async function expectEveryWidgetInEditor(page: Page, before: string[] = []): Promise<void> {
  const blocks = await editorBlocks(page);
  expect(blocks.map((b) => b.name)).toEqual([...before, ...BLOCKS.map((b) => b.name), 'core/shortcode']);
  const attributes = (name: string) => blocks.find((b) => b.name === name)!.attributes;
  expect(attributes('svc/events')).toMatchObject({ limit: 3 });
  expect(attributes('svc/rsvp')).toMatchObject({ event: EVENT });
  expect(attributes('svc/donate')).toMatchObject({ sku: SKU });
  expect(attributes('svc/donate-button')).toMatchObject({ sku: SKU });
  expect(attributes('core/shortcode')).toMatchObject({ text: SHORTCODES });
}

/**
 * The published post as a visitor sees it (a fresh context, not signed in): the loader once,
 * every widget drawn with the community's data, a free RSVP from the WordPress origin, no
 * console error, no PHP notice from the plugin.
 */
export async function expectPostWorks(
  browser: Browser,
  link: string,
  expected: Record<string, number>,
  opts: { rsvp?: boolean } = {},
): Promise<void> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(link);
  await expectWidgetsRendered(page, expected);
  await expectWidgetContent(page, Object.keys(expected));
  const loaders = await loaderScripts(page);
  expect(loaders).toHaveLength(1);
  expect(loaders[0]).toMatchObject({ community: COMMUNITY, key: await publishableKey(), async: true });
  expect(loaders[0]!.src).toMatch(new RegExp(`^${API_ORIGIN}/widgets/loader\\.js(\\?|$)`));
  if (opts.rsvp ?? true)
    await rsvpFromPage(page, `wp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`);
  expect(problems).toEqual([]);
  expect(pluginLogLines()).toEqual([]);
  await context.close();
}

export interface Rest {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, data: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}
/**
 * WordPress's REST API as the signed-in user of `context` (cookie + a nonce from admin-ajax's
 * rest-nonce action, as wp-admin's own scripts do), for set-up steps that are not what a spec is
 * about.
 */
export async function rest(context: BrowserContext): Promise<Rest> {
  const nonceRes = await context.request.get('/wp-admin/admin-ajax.php?action=rest-nonce');
  expect(nonceRes.ok()).toBe(true);
  const headers = { 'X-WP-Nonce': (await nonceRes.text()).trim() };
  const call = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, data?: unknown): Promise<T> => {
    const res = await context.request.fetch(`/wp-json${path}`, { method, headers, data });
    expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };
  return {
    get: (path) => call('GET', path),
    post: (path, data) => call('POST', path, data),
    delete: (path) => call('DELETE', path),
  };
}

/** Activates a theme the way a site owner does, on Appearance → Themes. */
export async function activateTheme(page: Page, name: string): Promise<void> {
  await page.goto('/wp-admin/themes.php');
  if ((await page.locator('.theme.active .theme-name').textContent())?.includes(name)) return;
  const activate = page.getByRole('link', { name: `Activate ${name}` });
  await activate.focus(); // the button shows on hover or focus
  await activate.click();
  await expect(page.locator('.theme.active .theme-name')).toContainText(name);
}

/**
 * Axe's violations on the whole page, one line each (as tests/e2e/support.ts's helper), less
 * WordPress 6.1's own skip link: core prints it for block themes as the body's first child,
 * outside every landmark (axe's `region` rule), whatever the page holds.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).exclude('.skip-link').analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

export { recordProblems } from '../e2e/support.ts';

/**
 * The tag of a test that changes the whole site (the theme, its template parts, Settings → svc,
 * the DISALLOW_UNFILTERED_HTML flag): playwright.wordpress.config.ts runs those one at a time,
 * after the tests that each keep to their own post, never beside another test.
 */
export const SITE_WIDE = '@site-wide';
