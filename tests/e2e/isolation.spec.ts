// The widget lives in a shadow root with its own type scale: a customer's theme can restyle
// the page all it likes without moving anything inside the widget.
import { expect, test, type Page } from '@playwright/test';
import { items, openCustomerPage, publishableKey, snippet } from './support.ts';

// The customer decides the widget's box (here: 720px wide); everything inside it is ours.
const PLACEMENT = '<style>#probe { display: block; width: 720px; margin: 0; padding: 0; border: 0; }</style>';

const HOSTILE = `<style>
  html { font-size: 30px; }
  * {
    font-family: "Comic Sans MS", fantasy; font-size: 1.3rem; font-weight: 900; font-style: italic;
    line-height: 3; letter-spacing: 0.3em; word-spacing: 1em; text-transform: uppercase;
    text-align: right; text-indent: 2em; white-space: pre; color: #c00;
    margin: 1em; padding: 1em; box-sizing: content-box;
  }
  div { display: inline; padding: 40px; border: 5px dashed red; width: 50%; float: right; }
  button { all: unset; display: block; width: 100%; padding: 2rem; font-size: 3rem; border: 4px solid; }
  ul, li { list-style: disc; margin: 3em; padding: 3em; }
  a { font-size: 2em; text-decoration: overline; }
  p, span, time { display: block; font-size: 40px; }
</style>`;

const body = (key: string) =>
  `<div class="content"><svc-events id="probe" limit="4"></svc-events></div>${snippet(key)}`;

/** Every [part] inside the shadow root: box relative to the host, and its font size. */
async function layout(page: Page) {
  const widget = page.locator('#probe');
  await expect(items(widget)).toHaveCount(4);
  await expect(widget.getByRole('button', { name: 'Load more events' })).toBeVisible();
  return widget.evaluate((host) => {
    const origin = host.getBoundingClientRect();
    return [...host.shadowRoot!.querySelectorAll('[part]')].map((el) => {
      const r = el.getBoundingClientRect();
      return {
        part: el.getAttribute('part'),
        x: Math.round(r.x - origin.x),
        y: Math.round(r.y - origin.y),
        width: Math.round(r.width),
        height: Math.round(r.height),
        fontSize: getComputedStyle(el).fontSize,
      };
    });
  });
}

test("a host stylesheet restyling *, div, button and html's font-size does not change the widget's layout", async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(page, 'plain', body(key), PLACEMENT);
  const plain = await layout(page);

  await openCustomerPage(page, 'hostile', body(key), PLACEMENT + HOSTILE);
  // The hostile sheet is really in force on the page around the widget.
  expect(await page.locator('.content').evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('dashed');
  expect(await page.locator('#probe').evaluate((el) => getComputedStyle(el).fontSize)).toBe('39px');
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('30px');
  const hostile = await layout(page);

  expect(plain.length).toBeGreaterThan(20);
  expect(hostile).toEqual(plain);
});

test('the community theme styles the widget, and the host page can override a token', async ({ page, request }) => {
  const key = await publishableKey(request);
  const community = (await (await request.get('http://localhost:3100/api/communities/demo')).json()) as {
    themeConfig: { accentColor: string };
  };
  const toRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
  const cardTop = (p: Page) =>
    items(p.locator('svc-events'))
      .first()
      .evaluate((el) => getComputedStyle(el).borderTopColor);

  await openCustomerPage(page, 'themed', `<svc-events limit="1"></svc-events>${snippet(key)}`);
  await expect(items(page.locator('svc-events'))).toHaveCount(1);
  expect(await cardTop(page)).toBe(toRgb(community.themeConfig.accentColor));

  await openCustomerPage(
    page,
    'overridden',
    `<svc-events limit="1"></svc-events>${snippet(key)}`,
    '<style>:root { --svc-accent-color: rgb(1, 2, 3); }</style>',
  );
  await expect(items(page.locator('svc-events'))).toHaveCount(1);
  expect(await cardTop(page)).toBe('rgb(1, 2, 3)');
});

test('the widget works under a strict CSP that allows no inline styles', async ({ page, request }) => {
  const key = await publishableKey(request);
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') violations.push(m.text());
  });
  const csp = [
    "default-src 'none'",
    "script-src 'self' http://localhost:3100",
    'connect-src http://localhost:3100',
    "img-src 'self' http://localhost:3100 data:",
    "style-src 'none'",
  ].join('; ');
  await openCustomerPage(page, 'csp', `<svc-events limit="1"></svc-events>${snippet(key)}`, '', {
    'Content-Security-Policy': csp,
  });
  const widget = page.locator('svc-events');
  await expect(items(widget)).toHaveCount(1);
  const styling = await widget.evaluate((host) => ({
    adopted: host.shadowRoot!.adoptedStyleSheets.length,
    injected:
      host.shadowRoot!.querySelectorAll('style, link[rel=stylesheet]').length +
      document.querySelectorAll('style, link[rel=stylesheet]').length,
    listStyle: getComputedStyle(host.shadowRoot!.querySelector('[part~="list"]')!).listStyleType,
  }));
  expect(styling).toEqual({ adopted: 3, injected: 0, listStyle: 'none' });
  expect(violations).toEqual([]);
});
