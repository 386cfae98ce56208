// Widgets inside containers the host page hides or disables: a closed tab panel or off-canvas
// menu (visibility:hidden), an area switched off with pointer-events:none, an inert region. The
// widget's root resets inherited properties against hostile page styles (widgets/lib/base.css),
// so these are the ones it must still take from the page: hidden means not painted, not in the
// Tab order and not clickable; shown again, everything works. Popovers included: they are fixed
// panels inside the shadow root, and one left open when its container closes must go with it.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { items, openCustomerPage, publishableKey, snippet } from './support.ts';

/** Every click on the page, by what it reached: a page element's id, or the widget's tag. */
const RECORD_CLICKS = `<script>
  window.clicks = [];
  document.addEventListener('click', (e) => clicks.push(e.target.id || e.target.localName), true);
</script>`;
const clicks = (page: Page) => page.evaluate(() => (window as unknown as { clicks: string[] }).clicks.splice(0));

/** A real mouse click at the middle of `target`'s box, wherever that box is and whatever is painted there. */
async function clickWhere(page: Page, target: Locator): Promise<void> {
  // Not scrollIntoViewIfNeeded(): it waits for the target to be visible.
  await target.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const box = await target.boundingBox();
  expect(box).not.toBeNull();
  await page.mouse.click(box!.x + box!.width / 2, box!.y + box!.height / 2);
}

/** Where focus went: the id of a page element, or the widget's tag when it is inside a shadow root. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.localName);

const setAttribute = (page: Page, selector: string, name: string, value: string | null) =>
  page
    .locator(selector)
    .evaluate((el, [n, v]) => (v === null ? el.removeAttribute(n!) : el.setAttribute(n!, v)), [name, value]);

const events = (page: Page) => page.locator('svc-events');
const loadMore = (w: Locator) => w.getByRole('button', { name: 'Load more events', includeHidden: true });
/** The events widget has rendered its first page (hidden or not) with Load more under it. */
async function eventsRendered(page: Page): Promise<Locator> {
  const w = events(page);
  await expect(items(w)).toHaveCount(2);
  await expect(loadMore(w)).toHaveCount(1);
  return w;
}
/** Shown and usable: visible, reached by Tab from `before`, and Load more loads the next page. */
async function eventsWork(page: Page, before: string): Promise<void> {
  const w = events(page);
  await expect(items(w).first()).toBeVisible();
  await page.locator(before).focus();
  await page.keyboard.press('Tab');
  await expect(w.getByRole('link').first()).toBeFocused();
  await clickWhere(page, loadMore(w));
  await expect(items(w)).toHaveCount(4);
}

test('a closed tab panel (visibility:hidden): the widget is not painted, Tab skips it, a click there reaches the open panel', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(
    page,
    'tab-panels',
    `
    <button id="before">Before the tabs</button>
    <div class="tabs">
      <div role="tabpanel" id="info"><button id="info-button">All about us</button></div>
      <div role="tabpanel" id="calendar" class="closed"><svc-events limit="2"></svc-events></div>
    </div>
    <button id="after">After the tabs</button>
    ${snippet(key)}`,
    `${RECORD_CLICKS}<style>
      .tabs { position: relative; width: 720px; height: 900px; }
      [role=tabpanel] { position: absolute; inset: 0; background: #fff; }
      [role=tabpanel].closed { visibility: hidden; }
      #info-button { width: 100%; height: 100%; }
    </style>`,
  );
  const w = await eventsRendered(page);

  await expect(items(w).first()).toBeHidden();
  await expect(loadMore(w)).toBeHidden();
  await page.locator('#info-button').focus();
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('after');
  await clickWhere(page, loadMore(w));
  expect(await clicks(page)).toEqual(['info-button']);
  await expect(items(w)).toHaveCount(2);

  // The other tab: the calendar panel opens and the info panel closes.
  await page.locator('#calendar').evaluate((el) => el.classList.remove('closed'));
  await page.locator('#info').evaluate((el) => el.classList.add('closed'));
  await eventsWork(page, '#before');
});

// As Bootstrap's offcanvas: the drawer moves, its body scrolls.
const DRAWER_STYLE = `<style>
  #drawer { position: fixed; top: 0; left: 0; bottom: 0; width: 360px; background: #fff; transform: translateX(-100%); visibility: hidden; }
  .drawer-body { height: 100%; overflow-y: auto; }
  #drawer.open { transform: none; visibility: visible; }
  main { margin-left: 400px; }
  #page-area { display: block; position: fixed; inset: 0; width: 100%; height: 100%; z-index: -1; }
</style>`;
const openDrawer = (page: Page) => page.locator('#drawer').evaluate((el) => el.classList.add('open'));
const closeDrawer = (page: Page) => page.locator('#drawer').evaluate((el) => el.classList.remove('open'));

test('a closed off-canvas menu (visibility:hidden, moved off screen): the widget is not painted and Tab skips it; opened, it works', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(
    page,
    'off-canvas',
    `
    <button id="menu">Menu</button>
    <nav id="drawer"><div class="drawer-body"><svc-events limit="2"></svc-events></div></nav>
    <main><button id="after">After the menu</button></main>
    ${snippet(key)}`,
    RECORD_CLICKS + DRAWER_STYLE,
  );
  const w = await eventsRendered(page);

  // Off screen there is nothing to click; the popover tests below click where a widget was painted.
  await expect(items(w).first()).toBeHidden();
  await expect(loadMore(w)).toBeHidden();
  await page.locator('#menu').focus();
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('after');

  await openDrawer(page);
  await eventsWork(page, '#menu');
});

// The two floating-ui popovers: the donate button's dialog and the header's dropdown. A page closes
// its menu on its own (a route change, a breakpoint), with the popover open and focus inside it.
const POPOVERS = [
  {
    name: "<svc-donate mode=button>'s dialog",
    tag: '<svc-donate event="big-summit-day" mode="button"></svc-donate>',
    open: async (page: Page) => {
      const trigger = page
        .locator('svc-donate')
        .getByRole('button', { name: 'Donate', exact: true, includeHidden: true });
      await trigger.click();
      const panel = page.locator('svc-donate [part~="panel"]');
      await expect(panel.getByRole('radio').first()).toBeFocused();
      return { trigger, panel, control: panel.getByRole('radio', { includeHidden: true }).first() };
    },
  },
  {
    name: "<svc-header>'s dropdown",
    tag: '<svc-header></svc-header>',
    open: async (page: Page) => {
      const trigger = page.locator('svc-header').getByRole('button', { name: 'About', includeHidden: true });
      await trigger.focus();
      await page.keyboard.press('ArrowDown');
      const panel = page.locator('svc-header [part~="dropdown"]');
      await expect(panel.getByRole('link').first()).toBeFocused();
      return { trigger, panel, control: panel.getByRole('link', { includeHidden: true }).first() };
    },
  },
];

for (const popover of POPOVERS) {
  test(`${popover.name} open when the off-canvas menu closes is not left painted, focusable or clickable`, async ({
    page,
    request,
  }) => {
    const key = await publishableKey(request);
    await openCustomerPage(
      page,
      'off-canvas-popover',
      `
      <button id="menu">Menu</button>
      <nav id="drawer"><div class="drawer-body">${popover.tag}</div></nav>
      <main><button id="after">After the menu</button></main>
      <div id="page-area"></div>
      ${snippet(key)}`,
      RECORD_CLICKS + DRAWER_STYLE,
    );
    await openDrawer(page);
    const { trigger, panel, control } = await popover.open(page);
    const painted = await panel.boundingBox();
    await clicks(page);

    await closeDrawer(page);
    await expect(panel).toBeHidden();
    // Focus cannot stay in a hidden control: it left, and the popover closed as on any focus loss.
    await expect.poll(() => focused(page)).not.toMatch(/^svc-/);
    await expect(trigger).toHaveAttribute('aria-expanded', 'false');
    await control.evaluate((el) => (el as HTMLElement).focus());
    expect(await focused(page)).not.toMatch(/^svc-/);
    await page.locator('#menu').focus();
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('after');
    await page.mouse.click(painted!.x + painted!.width / 2, painted!.y + painted!.height / 2);
    expect(await clicks(page)).toEqual(['page-area']);

    // The menu opened again: the popover opens and closes as always.
    await openDrawer(page);
    const again = await popover.open(page);
    await expect(again.panel).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(again.panel).toBeHidden();
    await expect(trigger).toBeFocused();
  });
}

test('an area switched off with pointer-events:none: clicks on the widget reach the page, not its controls; switched on, they work', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(
    page,
    'disabled-area',
    `
    <button id="before">Before the area</button>
    <div id="area-frame"><div id="area" class="disabled"><svc-events limit="2"></svc-events></div></div>
    ${snippet(key)}`,
    `${RECORD_CLICKS}<style>
      #area-frame { width: 720px; }
      .disabled { pointer-events: none; opacity: 0.6; }
    </style>`,
  );
  const w = await eventsRendered(page);

  await clickWhere(page, loadMore(w));
  expect(await clicks(page)).toEqual(['area-frame']);
  await clickWhere(page, w.getByRole('link').first());
  expect(await clicks(page)).toEqual(['area-frame']);
  await expect(items(w)).toHaveCount(2);
  expect(new URL(page.url()).pathname).toBe('/e2e/disabled-area.html');

  await page.locator('#area').evaluate((el) => el.classList.remove('disabled'));
  await eventsWork(page, '#before');
});

test('an inert container: the widget and its popover are neither focusable nor clickable; made active again, they work', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(
    page,
    'inert-area',
    `
    <button id="before">Before the area</button>
    <div id="area-frame"><div id="area">
      <svc-events limit="2"></svc-events>
      <svc-donate event="big-summit-day" mode="button"></svc-donate>
    </div></div>
    <button id="after">After the area</button>
    ${snippet(key)}`,
    `${RECORD_CLICKS}<style>#area-frame { width: 720px; }</style>`,
  );
  const w = await eventsRendered(page);
  const donate = page.locator('svc-donate');
  const trigger = donate.getByRole('button', { name: 'Donate', exact: true, includeHidden: true });
  await trigger.click();
  const panel = donate.locator('[part~="panel"]');
  await expect(panel.getByRole('radio').first()).toBeFocused();
  await clicks(page);

  // The page opens a modal of its own and makes everything else inert: focus leaves the popover,
  // which closes.
  await setAttribute(page, '#area', 'inert', '');
  await expect.poll(() => focused(page)).not.toMatch(/^svc-/);
  await expect(panel).toBeHidden();
  await page.locator('#before').focus();
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('after');
  for (const control of [loadMore(w), w.getByRole('link', { includeHidden: true }).first(), trigger]) {
    await control.evaluate((el) => (el as HTMLElement).focus());
    expect(await focused(page)).not.toMatch(/^svc-/);
    await clickWhere(page, control);
  }
  expect(await clicks(page)).not.toContainEqual(expect.stringMatching(/^svc-/));
  await expect(items(w)).toHaveCount(2);

  await setAttribute(page, '#area', 'inert', null);
  await eventsWork(page, '#before');
});
