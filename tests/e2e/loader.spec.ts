// loader.js on pages other than the demo: included twice, elements added later, a bad key,
// and how the bundle is served.
import { expect, test, type Request } from '@playwright/test';
import {
  API_ORIGIN,
  COMMUNITY,
  PAGE_ORIGIN,
  apiEvents,
  isEventsRequest,
  items,
  names,
  openCustomerPage,
  publishableKey,
  recordProblems,
  snippet,
  widgetManifest,
} from './support.ts';

const chunkUrl = (file: string) => `${API_ORIGIN}/widgets/${file}`;

test('including the loader twice defines the elements once and still renders', async ({ page, request }) => {
  const key = await publishableKey(request);
  const problems = recordProblems(page);
  const chunkRequests: string[] = [];
  const eventsChunk = chunkUrl(widgetManifest().widgets.events.file);
  page.on('request', (r) => {
    if (r.url() === eventsChunk) chunkRequests.push(r.url());
  });

  await openCustomerPage(page, 'twice', `${snippet(key)}<svc-events limit="3"></svc-events>${snippet(key)}`);
  const widget = page.locator('svc-events');
  const { events } = await apiEvents(request, key, { limit: '3', upcoming: 'true' });
  await expect(names(widget)).toHaveText(events.map((e) => e.name));
  await page.waitForLoadState('networkidle');

  expect(await page.locator('script[src$="/widgets/loader.js"]').count()).toBe(2);
  // A second customElements.define of the same tag would throw, and show up here.
  expect(problems).toEqual([]);
  expect(chunkRequests).toHaveLength(1);
  await expect(widget.locator('[part~="list"]')).toHaveCount(1);
});

test('a page without widget tags downloads no widget code, and a tag added later renders', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  const widgetFiles: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(`${API_ORIGIN}/widgets/`)) widgetFiles.push(new URL(r.url()).pathname);
  });

  await openCustomerPage(
    page,
    'later',
    `<main><h1>A single-page app</h1><div id="outlet"></div></main>${snippet(key)}`,
  );
  await page.waitForFunction(() => customElements.get('svc-events') !== undefined);
  await page.waitForLoadState('networkidle');
  expect(widgetFiles).toEqual(['/widgets/loader.js']);

  // What a page builder or client-side router does: insert the tag long after load.
  await page.evaluate(() => {
    const el = document.createElement('svc-events');
    el.setAttribute('limit', '2');
    document.getElementById('outlet')!.append(el);
  });
  const { events } = await apiEvents(request, key, { limit: '2', upcoming: 'true' });
  await expect(names(page.locator('svc-events'))).toHaveText(events.map((e) => e.name));
});

test('link templates are downloaded only for a list that has one, and its cards never link elsewhere first', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  const templateChunk = chunkUrl(widgetManifest().entries!['link-template'].file);
  const widgetFiles: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(`${API_ORIGIN}/widgets/`)) widgetFiles.push(r.url());
  });
  await openCustomerPage(page, 'templates', `<svc-events id="plain" limit="2"></svc-events>${snippet(key)}`);
  const { events } = await apiEvents(request, key, { limit: '2', upcoming: 'true' });
  await expect(names(page.locator('#plain'))).toHaveText(events.map((e) => e.name));
  await page.waitForLoadState('networkidle');
  expect(widgetFiles).not.toContain(templateChunk);

  // A list with a template, its events in but the template code held back: still loading.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(templateChunk, async (route) => {
    await held;
    await route.continue();
  });
  // limit 3: a query of its own, so its events are fetched (not the first list's shared answer).
  const eventsAnswered = page.waitForResponse((r) => isEventsRequest(r.url()) && r.url().includes('limit=3'));
  await page.evaluate(() => {
    const el = document.createElement('svc-events');
    el.id = 'templated';
    el.setAttribute('limit', '3');
    el.setAttribute('event-href', '/shop/{slug}');
    document.body.append(el);
  });
  await eventsAnswered;
  const more = await apiEvents(request, key, { limit: '3', upcoming: 'true' });
  const templated = page.locator('#templated');
  await expect(templated.locator('[part="status"]')).toHaveText('Loading events…');
  await expect(names(templated)).toHaveCount(0);
  release();
  await expect(names(templated)).toHaveCount(more.events.length);
  for (const [i, e] of more.events.entries())
    await expect(names(templated).nth(i)).toHaveAttribute('href', `${PAGE_ORIGIN}/shop/${encodeURIComponent(e.slug)}`);
  expect(widgetFiles).toContain(templateChunk);
});

test('changing an attribute re-queries: past shows the archive, newest first', async ({ page, request }) => {
  const key = await publishableKey(request);
  await openCustomerPage(page, 'past', `<svc-events limit="3"></svc-events>${snippet(key)}`);
  const widget = page.locator('svc-events');
  await expect(items(widget)).toHaveCount(3);

  await widget.evaluate((el) => el.setAttribute('past', ''));
  const { events } = await apiEvents(request, key, { limit: '3', past: 'true' });
  await expect(names(widget)).toHaveText(events.map((e) => e.name));
  const starts = events.map((e) => Date.parse(e.startDate));
  expect(starts.every((t) => t < Date.now())).toBe(true);
  expect([...starts].sort((a, b) => b - a)).toEqual(starts);
});

test('dates and prices follow the locale attribute, else the lang of the page around the widget', async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  await openCustomerPage(
    page,
    'locales',
    `<svc-events id="de" locale="de-DE" limit="1"></svc-events><div lang="fr-FR"><svc-events id="page" limit="1"></svc-events></div>${snippet(key)}`,
  );
  const { events } = await apiEvents(request, key, { limit: '1', upcoming: 'true' });
  const paid = events[0].tiers
    .filter((t) => t.isActive && t.priceCents > 0)
    .sort((a, b) => a.priceCents - b.priceCents);
  expect(paid.length).toBeGreaterThan(0);
  for (const [id, locale] of [
    ['de', 'de-DE'],
    ['page', 'fr-FR'],
  ]) {
    const card = items(page.locator(`#${id}`)).first();
    // Formatted in the browser, so the expectation uses the viewer's time zone as the widget does.
    const expected = await page.evaluate(
      ({ locale, start, cents, currency }) => ({
        date: new Intl.DateTimeFormat(locale, {
          weekday: 'short',
          month: 'short',
          day: 'numeric',
          hour: 'numeric',
          minute: '2-digit',
          timeZoneName: 'short',
        }).format(new Date(start)),
        price: new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100),
      }),
      { locale, start: events[0].startDate, cents: paid[0].priceCents, currency: paid[0].currency },
    );
    await expect(card.locator('time')).toHaveText(expected.date);
    await expect(card.locator('[part~="price"]')).toHaveText(`From ${expected.price}`);
  }
});

test('a bad key shows an error with a retry button and tells the host page why', async ({ page }) => {
  await page.addInitScript(() => {
    document.addEventListener('svc:events:error', (e) => {
      (window as unknown as { svcError: unknown }).svcError = (e as CustomEvent).detail;
    });
  });
  await openCustomerPage(
    page,
    'bad-key',
    `<svc-events limit="3"><a href="https://acme.example/events">Our events</a></svc-events>${snippet('pk_live_not_a_real_key')}`,
  );
  const widget = page.locator('svc-events');
  const alert = widget.getByRole('alert');
  await expect(alert).toContainText("couldn't load events");
  await expect(widget.getByRole('button', { name: 'Try again' })).toBeVisible();
  // The customer's fallback link is offered in the error state.
  await expect(widget.getByRole('link', { name: 'Our events' })).toBeVisible();
  await expect(items(widget)).toHaveCount(0);
  const detail = await page
    .waitForFunction(() => (window as unknown as { svcError?: unknown }).svcError)
    .then((h) => h.jsonValue());
  expect(detail).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
});

test('"Try again" recovers after a failed load', async ({ page, request }) => {
  const key = await publishableKey(request);
  let failures = 1;
  await page.route(
    (url) => isEventsRequest(url.href),
    async (route) => {
      if (failures-- > 0) {
        await route.fulfill({
          status: 503,
          contentType: 'application/json',
          headers: { 'Access-Control-Allow-Origin': '*' },
          body: JSON.stringify({ error: 'Service unavailable', code: 'SERVICE_UNAVAILABLE' }),
        });
      } else {
        await route.continue();
      }
    },
  );
  await openCustomerPage(page, 'retry', `<svc-events limit="2"></svc-events>${snippet(key)}`);
  const widget = page.locator('svc-events');
  await widget.getByRole('button', { name: 'Try again' }).click();
  await expect(items(widget)).toHaveCount(2);
  await expect(widget.getByRole('alert')).toHaveCount(0);
});

test('the fallback link shows until the widget renders, then is hidden', async ({ page, request }) => {
  const key = await publishableKey(request);
  // Hold the widget chunk back to look at the page before the widget takes over.
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(chunkUrl(widgetManifest().widgets.events.file), async (route) => {
    await held;
    await route.continue();
  });
  await openCustomerPage(
    page,
    'fallback',
    `<svc-events><a href="https://acme.example/events">See our events</a></svc-events>${snippet(key)}`,
  );
  const link = page.getByRole('link', { name: 'See our events' });
  await expect(link).toBeVisible();
  release();
  await expect(items(page.locator('svc-events')).first()).toBeVisible();
  await expect(link).toBeHidden();
});

test("the visitor's platform cookie rides along on the hosted apex and never on a customer's site", async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  // The platform reached as 127.0.0.1:3100, and a customer page on 127.0.0.1:3101: another
  // origin but the same site, so the browser itself would attach this cookie to a credentialed
  // call; only the widget's own credentials policy keeps it off.
  const platform = PAGE_ORIGIN;
  const customer = 'http://127.0.0.1:3101';
  await page.context().addCookies([{ name: 'svc_probe', value: '1', url: platform }]);
  const calls: Request[] = [];
  page.on('request', (r) => {
    if (isEventsRequest(r.url())) calls.push(r);
  });

  await openCustomerPage(
    page,
    'hosted',
    `<svc-events limit="2"></svc-events>${snippet(key, COMMUNITY, platform)}`,
    '',
    {},
    platform,
  );
  await expect(items(page.locator('svc-events'))).toHaveCount(2);
  expect((await calls[0].allHeaders()).cookie).toContain('svc_probe=1');
  // Links stay on this site rather than jumping to the community's domain.
  expect(await names(page.locator('svc-events')).first().getAttribute('href')).toMatch(
    new RegExp(`^${platform}/events/`),
  );

  await openCustomerPage(
    page,
    'embedded',
    `<svc-events limit="2"></svc-events>${snippet(key, COMMUNITY, platform)}`,
    '',
    {},
    customer,
  );
  await expect(items(page.locator('svc-events'))).toHaveCount(2);
  expect(calls).toHaveLength(2);
  const embedded = await calls[1].allHeaders();
  expect(embedded.origin).toBe(customer);
  expect(embedded.cookie).toBeUndefined();
  expect(embedded['x-api-key']).toBe(key);
});

test('the widget bundle is served to any origin; hashed chunks are cached for a year', async ({ request }) => {
  const loader = await request.get(`${API_ORIGIN}/widgets/loader.js`, { headers: { Origin: 'https://acme.example' } });
  expect(loader.status()).toBe(200);
  expect(loader.headers()['access-control-allow-origin']).toBe('*');
  expect(loader.headers()['content-type']).toMatch(/javascript/);
  const loaderCache = loader.headers()['cache-control'];
  expect(loaderCache).not.toContain('immutable');
  expect(Number(/max-age=(\d+)/.exec(loaderCache)?.[1])).toBeLessThanOrEqual(3600);

  const manifest = widgetManifest();
  const hashed = [manifest.widgets.events.file, ...manifest.widgets.events.imports];
  expect(hashed.length).toBeGreaterThanOrEqual(2); // the widget and the shared runtime
  for (const file of hashed) {
    const res = await request.get(chunkUrl(file), { headers: { Origin: 'https://acme.example' } });
    expect(res.status(), file).toBe(200);
    expect(res.headers()['access-control-allow-origin'], file).toBe('*');
    expect(res.headers()['cache-control'], file).toMatch(/max-age=31536000/);
    expect(res.headers()['cache-control'], file).toContain('immutable');
  }
});

test("the page's reserve is carried to the first render, but never onto a hidden widget, and an inline display is given back", async ({
  page,
  request,
}) => {
  const key = await publishableKey(request);
  // Every inline style the loader gives the hidden element, from before the loader runs.
  const head = `<style>svc-events:not(:defined){display:block;min-height:400px}svc-events.hidden{display:none}</style>
    <script>
      window.hiddenStyles = [];
      new MutationObserver((records) => {
        for (const r of records) if (r.target.id === 'hidden') window.hiddenStyles.push(r.target.getAttribute('style'));
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['style'] });
    </script>`;
  await openCustomerPage(
    page,
    'reserve-hold',
    `<svc-events id="shown" limit="1" style="display:flex"></svc-events>
     <svc-events id="hidden" class="hidden" limit="1"></svc-events>${snippet(key)}`,
    head,
  );
  await expect(items(page.locator('#shown'))).toHaveCount(1);
  await expect(page.locator('#hidden [part~="item"]')).toHaveCount(1);
  expect(await page.locator('#shown').evaluate((el) => [el.style.display, el.style.minHeight])).toEqual(['flex', '']);
  expect(await page.evaluate(() => (window as unknown as { hiddenStyles: string[] }).hiddenStyles)).toEqual([]);
  await expect(page.locator('#hidden')).toBeHidden();
});
