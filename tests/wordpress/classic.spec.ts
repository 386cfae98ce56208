// Classic content (no block markup, as from the classic editor or an old site) opens in the block
// editor as a Classic block. An edit there used to delete pasted <svc-*> elements; shortcodes must
// come through it, and through "Convert to blocks".
import { expect, test } from '@playwright/test';
import { editorBlocks, EVENT, expectPostWorks, openEditor, rest, signedIn, update } from './support.ts';

const CLASSIC = `Before the widgets.\n\n[svc_events limit="2"]\n\n[svc_rsvp event="${EVENT}"]\n\nAfter the widgets.`;

test('a classic post with shortcodes keeps them through an edit in the Classic block and a conversion to blocks', async ({
  browser,
}) => {
  const context = await signedIn(browser, 'editor');
  const api = await rest(context);
  const post = await api.post<{ id: number; link: string }>('/wp/v2/posts', {
    title: 'A classic post',
    content: CLASSIC,
    status: 'publish',
  });
  const raw = async () =>
    (await api.get<{ content: { raw: string } }>(`/wp/v2/posts/${post.id}?context=edit`)).content.raw;
  const page = await context.newPage();

  await openEditor(page, post.id);
  expect((await editorBlocks(page)).map((b) => b.name)).toEqual(['core/freeform']);
  // One edit in the Classic block's TinyMCE, at the end of its text.
  await page.getByText('After the widgets.').click();
  await page.keyboard.press('End');
  await page.keyboard.type(' Edited in the Classic block.');
  await update(page);
  const edited = await raw();
  expect(edited).toContain('[svc_events limit="2"]');
  expect(edited).toContain(`[svc_rsvp event="${EVENT}"]`);
  expect(edited).toContain('Edited in the Classic block.');
  await expectPostWorks(browser, post.link, { 'svc-events': 1, 'svc-rsvp': 1 });

  await openEditor(page, post.id);
  await page.getByText('Before the widgets.').click();
  await page.getByRole('button', { name: 'Convert to blocks' }).click();
  await expect.poll(async () => (await editorBlocks(page)).map((b) => b.name)).not.toContain('core/freeform');
  await update(page);
  await expectPostWorks(browser, post.link, { 'svc-events': 1, 'svc-rsvp': 1 }, { rsvp: false });
  await context.close();
});
