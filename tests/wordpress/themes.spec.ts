// A site-wide header and footer and content widgets across a theme switch (Twenty Twenty-Three,
// a block theme, and Twenty Twenty-One, a classic one): the widgets stay, the loader stays one,
// and axe finds nothing in either theme, the svc header inside the block theme's own <header>
// template part included (no banner landmark nested in a banner).
import { expect, test } from '@playwright/test';
import {
  activateTheme,
  axeViolations,
  EVENT,
  expectWidgetsRendered,
  loaderScripts,
  recordProblems,
  rest,
  signedIn,
  SITE_WIDE,
} from './support.ts';

const CONTENT = [
  '<!-- wp:svc/events {"limit":3} /-->',
  `<!-- wp:svc/rsvp {"event":"${EVENT}"} /-->`,
  '<!-- wp:shortcode -->\n[svc_members limit="4"]\n<!-- /wp:shortcode -->',
].join('\n\n');

test(
  'a theme switch keeps the widgets and the loader once; axe is clean in both themes',
  { tag: SITE_WIDE },
  async ({ browser }) => {
    const admin = await signedIn(browser, 'administrator');
    const api = await rest(admin);
    const adminPage = await admin.newPage();
    const post = await api.post<{ link: string }>('/wp/v2/posts', {
      title: 'Widgets across themes',
      content: CONTENT,
      status: 'publish',
    });
    // The site owner adds the svc header and footer to the block theme's header and footer
    // template parts (what the Site Editor saves).
    for (const [part, block] of [
      ['header', 'svc/header'],
      ['footer', 'svc/footer'],
    ]) {
      const current = await api.get<{ content: { raw: string } }>(
        `/wp/v2/template-parts/twentytwentythree//${part}?context=edit`,
      );
      await api.post(`/wp/v2/template-parts/twentytwentythree//${part}`, {
        content: `<!-- wp:${block} /-->\n${current.content.raw}`,
      });
    }

    const visit = async (expected: Record<string, number>) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = recordProblems(page);
      await page.goto(post.link);
      await expectWidgetsRendered(page, expected);
      expect(await loaderScripts(page)).toHaveLength(1);
      expect(await axeViolations(page)).toEqual([]);
      const nested = await page.evaluate(() => ({
        headerInHeader: document.querySelectorAll('header svc-header').length,
        bannersInShadow: [...document.querySelectorAll('svc-header, svc-footer')].map(
          (el) => el.shadowRoot?.querySelectorAll('header, footer, [role="banner"], [role="contentinfo"]').length ?? 0,
        ),
      }));
      expect(problems).toEqual([]);
      await context.close();
      return nested;
    };

    try {
      // Twenty Twenty-Three (setup.sh's theme): the header and footer come from its template parts.
      const inBlockTheme = await visit({
        'svc-header': 1,
        'svc-events': 1,
        'svc-rsvp': 1,
        'svc-members': 1,
        'svc-footer': 1,
      });
      expect(inBlockTheme.headerInHeader).toBe(1); // really inside the theme's <header>
      expect(inBlockTheme.bannersInShadow).toEqual([0, 0]); // and adds no landmark of its own there

      // Twenty Twenty-One has no template parts: the content's widgets stay, with one loader.
      await activateTheme(adminPage, 'Twenty Twenty-One');
      await visit({ 'svc-events': 1, 'svc-rsvp': 1, 'svc-members': 1 });

      await activateTheme(adminPage, 'Twenty Twenty-Three');
      await visit({ 'svc-header': 1, 'svc-events': 1, 'svc-rsvp': 1, 'svc-members': 1, 'svc-footer': 1 });
    } finally {
      await activateTheme(adminPage, 'Twenty Twenty-Three');
      // Back to the theme's own parts, so the other specs' pages have no site-wide widgets.
      for (const part of ['header', 'footer']) await api.delete(`/wp/v2/template-parts/twentytwentythree//${part}`);
      await admin.close();
    }
  },
);
