// What Chromium receives for the widget bundle: the build's brotli copies
// (server/site/widgets-static.ts), on a customer's page (cross-origin, the pasted snippet) and on
// the hosted site (same-origin, modulepreloaded).
import { expect, test, type Page, type Response } from '@playwright/test';
import { DEMO_URL, HOSTED_ORIGIN, items, names } from './support.ts';

/** Every /widgets/*.js answer the page gets, as it arrives. */
function widgetResponses(page: Page): Response[] {
  const seen: Response[] = [];
  page.on('response', (r) => {
    if (/\/widgets\/[\w.-]+\.js$/.test(new URL(r.url()).pathname)) seen.push(r);
  });
  return seen;
}

async function expectBrotli(responses: Response[], expected: RegExp[]): Promise<void> {
  const files = responses.map((r) => new URL(r.url()).pathname.split('/').pop()!);
  for (const name of expected)
    expect(
      files.some((f) => name.test(f)),
      `${name} among ${files.join(', ')}`,
    ).toBe(true);
  for (const response of responses) {
    const file = response.url();
    const headers = await response.allHeaders();
    expect(response.status(), file).toBe(200);
    expect(headers['content-encoding'], file).toBe('br');
    expect(headers['vary'], file).toBe('Accept-Encoding');
    // On the wire: the compressed size, well under the decoded script.
    const { responseBodySize } = await response.request().sizes();
    const decoded = (await response.body()).length;
    expect(responseBodySize, file).toBeGreaterThan(0);
    expect(responseBodySize, file).toBeLessThan(decoded * 0.6);
  }
}

test('a customer page gets the loader and the widget chunks brotli-compressed, and they run', async ({ page }) => {
  const responses = widgetResponses(page);
  await page.goto(DEMO_URL);
  await expect(names(page.locator('svc-events').first())).not.toHaveCount(0);
  await expect(items(page.locator('svc-events').first()).first()).toBeVisible();
  await expectBrotli(responses, [/^loader\.js$/, /^runtime-/, /^events-/]);
});

test('the hosted site gets its modulepreloaded chunks brotli-compressed', async ({ page }) => {
  const responses = widgetResponses(page);
  await page.goto(`${HOSTED_ORIGIN}/`);
  await expect(page.locator('svc-header [part~="brand"]').first()).toBeVisible();
  // Every chunk the page preloads and imports has arrived.
  await page.waitForLoadState('networkidle');
  await expectBrotli(responses, [/^loader\.js$/, /^runtime-/, /^shared-/, /^header-/]);
});
