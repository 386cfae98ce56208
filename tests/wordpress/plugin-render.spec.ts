// What the plugin's renderer promises, seen on the real site: shortcode values that do not fit are
// dropped or clamped and everything is escaped; the loader comes once, and only where a widget
// is; the Header and Footer blocks in a block theme's header and footer template parts nest no
// second banner or contentinfo (the 5 axe violations); the Theme setting reaches every
// widget.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import {
  COMMUNITY,
  COMMUNITY_NAME,
  FOOTER_TITLE,
  loaderScripts,
  openEditor,
  signedIn,
  SITE_WIDE,
  wpApi,
} from './support.ts';

interface WpPost {
  id: number;
  link: string;
}

async function publishPost(page: Page, title: string, content: string): Promise<WpPost> {
  return wpApi<WpPost>(page, '/wp/v2/posts', 'POST', { title, content, status: 'publish' });
}

test('shortcode attributes are validated and escaped; the loader comes once, and only with a widget', async ({
  browser,
}) => {
  const context = await signedIn(browser, 'administrator');
  const admin = await context.newPage();
  await openEditor(admin); // where wp.apiFetch is loaded
  const widgets = await publishPost(
    admin,
    'Shortcode values',
    [
      '[svc_events limit="500" featured past="no" locale="en-GB"]',
      '[svc_members limit="ten" locale="<b>" member_href="/people/{usertag}"]',
      '[svc_rsvp event="Not A Slug"]',
      '[svc_donate_button sku="garden-fund" mode="inline"]',
      '[svc_apply source="flyer &quot;spring&quot; <2026>" segment="x&quot; onmouseover=&quot;alert(1)"]',
      '[svc_header current="//evil.example/x" landmarks="own" site-href="//evil.example{path}"]',
      '[svc_footer route="/events" landmarks="bogus"]',
    ].join('\n\n'),
  );
  // A named attribute whose value is a boolean's name does not set that boolean.
  const bare = await publishPost(
    admin,
    'Values that look like bare words',
    '[svc_events note="past" title="featured"]',
  );
  const plain = await publishPost(admin, 'No widgets here', 'Just words.');
  await context.close();

  const page = await browser.newPage();
  const html = await (await page.request.get(widgets.link)).text();
  // Clamped to 1–100, the bare boolean set, "no" leaving it off, a valid locale kept.
  expect(html).toContain('<svc-events limit="100" featured locale="en-GB">');
  // Not a number: the widget's default; a locale that is not BCP 47: dropped; a link template
  // on this site kept (the widget fills in its placeholders).
  expect(html).toContain('<svc-members limit="12" member-href="/people/{usertag}">');
  expect(html).toContain('<svc-rsvp>');
  // The donate button is always mode="button", whatever the shortcode says.
  expect(html).toContain('<svc-donate sku="garden-fund" mode="button">');
  // Free text is escaped with esc_attr; a segment with quotes does not fit and is dropped.
  expect(html).toMatch(/<svc-apply source="flyer &quot;spring&quot; &lt;2026&gt;">/);
  expect(html).not.toContain('onmouseover');
  // A protocol-relative URL is not a site path, nor a link template; "own" leaves the landmark to the widget.
  expect(html).toContain('<svc-header>');
  expect(html).toContain('<svc-footer route="/events" landmarks="none">');
  expect(await (await page.request.get(bare.link)).text()).toContain('<svc-events limit="10">');

  await page.goto(widgets.link);
  const loaders = await loaderScripts(page);
  expect(loaders).toHaveLength(1);
  expect(loaders[0]).toMatchObject({ community: COMMUNITY, async: true });
  await expect(page.locator('svc-events')).toHaveCount(1);

  await page.goto(plain.link);
  await expect(page.getByText('Just words.')).toBeVisible();
  expect(await loaderScripts(page)).toEqual([]);
  await page.close();
});

test(
  'in a block theme’s header and footer template parts, the Header and Footer blocks nest no landmark (axe clean)',
  { tag: SITE_WIDE },
  async ({ browser }) => {
    const context = await signedIn(browser, 'administrator');
    const admin = await context.newPage();
    await admin.goto('/wp-admin/themes.php');
    const activate = admin.locator('.theme[data-slug="twentytwentythree"] .button.activate');
    if (await activate.count()) await activate.click();
    await expect(admin.locator('.theme.active[data-slug="twentytwentythree"]')).toHaveCount(1);

    // The theme's own header and footer parts, saved with the svc blocks in them (as the Site
    // Editor saves them); deleted afterwards, which puts the theme's files back.
    await openEditor(admin); // where wp.apiFetch is loaded
    const parts: { id: string }[] = [];
    try {
      for (const [slug, content] of [
        ['header', '<!-- wp:site-title /-->\n<!-- wp:svc/header /-->'],
        ['footer', '<!-- wp:svc/footer /-->'],
      ]) {
        parts.push(
          await wpApi<{ id: string }>(admin, '/wp/v2/template-parts', 'POST', {
            slug,
            theme: 'twentytwentythree',
            area: slug,
            title: slug,
            content,
            status: 'publish',
          }),
        );
      }
      const post = await publishPost(admin, 'Inside the theme header', 'The page.');

      // A visitor's view: no admin bar.
      const page = await (await browser.newContext()).newPage();
      await page.goto(post.link);
      await expect(page.locator('header.wp-block-template-part svc-header[landmarks="none"]')).toHaveCount(1);
      await expect(page.locator('footer.wp-block-template-part svc-footer[landmarks="none"]')).toHaveCount(1);
      await expect(page.locator('svc-header').getByText(COMMUNITY_NAME).first()).toBeVisible();
      await expect(page.locator('svc-footer').getByText(FOOTER_TITLE)).toBeVisible();
      await expect(page.getByRole('banner')).toHaveCount(1);
      await expect(page.getByRole('contentinfo')).toHaveCount(1);
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    } finally {
      for (const { id } of parts) await wpApi(admin, `/wp/v2/template-parts/${id}?force=true`, 'DELETE');
      await context.close();
    }
  },
);

test(
  'Theme: Dark on Settings → svc draws the widgets dark; Auto takes it off again',
  { tag: SITE_WIDE },
  async ({ browser }) => {
    const context = await signedIn(browser, 'administrator');
    const admin = await context.newPage();
    await openEditor(admin); // where wp.apiFetch is loaded
    const post = await publishPost(admin, 'Themed widgets', '[svc_events limit="1"]\n\n[svc_members limit="1"]');
    const setTheme = async (label: string) => {
      await admin.goto('/wp-admin/options-general.php?page=svc');
      await admin.getByLabel('Theme').selectOption({ label });
      await admin.getByRole('button', { name: 'Save Changes' }).click();
      await expect(admin.locator('.notice-success').first()).toBeVisible();
    };
    const visitor = await (await browser.newContext()).newPage();
    const card = () =>
      visitor
        .locator('svc-events [part~="item"]')
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    try {
      await setTheme('Dark');
      await visitor.goto(post.link);
      await expect(visitor.locator('svc-events[theme="dark"], svc-members[theme="dark"]')).toHaveCount(2);
      expect(await card()).toBe('rgb(23, 25, 28)');
    } finally {
      await setTheme('Auto');
    }
    await visitor.goto(post.link);
    await expect(visitor.locator('svc-events')).toHaveCount(1);
    await expect(visitor.locator('[theme]')).toHaveCount(0);
    expect(await card()).not.toBe('rgb(23, 25, 28)');
    await context.close();
  },
);
