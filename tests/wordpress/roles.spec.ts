// Issue 19's main path: each editor role places the widgets the ordinary way (blocks from the
// inserter, shortcodes in a Shortcode block), publishes, finds them intact on reopening the
// editor, and a visitor sees them work. An Author has no unfiltered_html: pasted snippets were
// stripped for them, blocks and shortcodes must not be.
import { test } from '@playwright/test';
import {
  composeEveryWidget,
  EVERY_WIDGET_TWICE,
  expectEveryWidgetInEditor,
  expectPostWorks,
  openEditor,
  signedIn,
} from './support.ts';

for (const role of ['administrator', 'editor', 'author'] as const) {
  test(`${role}: blocks and shortcodes survive publishing and a reload, and work on the site`, async ({ browser }) => {
    const context = await signedIn(browser, role);
    const page = await context.newPage();
    await openEditor(page);
    const post = await composeEveryWidget(page, `Widgets placed by the ${role}`);

    await openEditor(page, post.id);
    await expectEveryWidgetInEditor(page);
    await context.close();

    await expectPostWorks(browser, post.link, EVERY_WIDGET_TWICE);
  });
}
