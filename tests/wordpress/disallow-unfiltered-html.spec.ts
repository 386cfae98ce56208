// Managed hosts set DISALLOW_UNFILTERED_HTML: then even an Administrator's pasted snippet is
// stripped on save. The plugin's blocks and shortcodes must not notice. The site reads the flag
// file on every request (setup.sh's config), so this spec turns it on for itself only.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import {
  insertBlocks,
  EVERY_WIDGET_TWICE,
  expectEveryWidgetInEditor,
  expectPostWorks,
  insertEveryWidget,
  openEditor,
  rest,
  signedIn,
  SITE_DIR,
  SITE_WIDE,
} from './support.ts';

const FLAG = path.join(SITE_DIR, 'disallow-unfiltered-html');

test(
  'with DISALLOW_UNFILTERED_HTML the blocks and shortcodes work unchanged',
  { tag: SITE_WIDE },
  async ({ browser }) => {
    fs.writeFileSync(FLAG, '');
    try {
      const context = await signedIn(browser, 'administrator');
      const api = await rest(context);
      const page = await context.newPage();
      await openEditor(page);
      // A pasted snippet in a Custom HTML block, to show the constant is in force.
      await insertBlocks(page, [['core/html', { content: '<svc-members limit="3"></svc-members>' }]]);
      const post = await insertEveryWidget(page, 'Widgets on a host without unfiltered HTML');

      const saved = await api.get<{ content: { raw: string } }>(`/wp/v2/posts/${post.id}?context=edit`);
      expect(saved.content.raw).not.toContain('<svc-members'); // kses took the pasted element
      expect(saved.content.raw).toContain('[svc_members limit="4"]');

      await openEditor(page, post.id);
      await expectEveryWidgetInEditor(page, ['core/html']);
      await context.close();
      await expectPostWorks(browser, post.link, EVERY_WIDGET_TWICE);
    } finally {
      fs.rmSync(FLAG, { force: true });
    }
  },
);
