// <svc-header> and <svc-footer>: on the foreign demo page (127.0.0.1, the publishable key, no
// cookies) and on the community's hosted site (demo.localhost, server-rendered into every page and
// hydrated, same-origin with the sign-in cookie), where signing in and out changes the header and
// the nav the server sends.
import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  API_ORIGIN,
  DEMO_URL,
  HOSTED_ORIGIN,
  axeViolations,
  openCustomerPage,
  publishableKey,
  recordProblems,
  snippet,
  widgetManifest,
} from './support.ts';

/** Any page of the hosted site: the header and footer are server-rendered into each one. */
const HOSTED_PATH = '/events';
const HOSTED_URL = `${HOSTED_ORIGIN}${HOSTED_PATH}`;
// demo/fixture.json: ACCEPTED members with a password (maya is the founder, jonas an admin).
const MAYA = { email: 'maya@example.com', password: 'demo-password', name: 'Maya Okafor' };
const JONAS = { email: 'jonas@example.com', password: 'demo-password', name: 'Jonas Lindqvist' };
const ANONYMOUS_NAV = ['Events', 'Journal', 'Trail map', 'Shop', 'About'];
const MEMBER_NAV = ['Events', 'Journal', 'Trail map', 'Shop', 'Members', 'About'];

const header = (page: Page) => page.locator('svc-header').first();
/** Top-level nav entries: links and dropdown triggers (Playwright's CSS pierces the shadow root). */
const topLevel = (h: Locator) => h.locator('[part~="nav-item"] > a, [part~="nav-item"] > .dd > button');
const signInLink = (h: Locator) => h.locator('[part~="sign-in"]');
const userButton = (h: Locator) => h.locator('[part~="user"]');

interface Community {
  storefrontConfig: { nav: { label: string; href?: string }[] };
}

/**
 * The panel is placed by floating-ui (its CSSOM `top` set: before that a fixed panel sits where it
 * would in flow) just below its trigger. Polled: @floating-ui/dom is fetched when the pointer or
 * focus first reaches a dropdown, and a panel opened before it arrives is placed when it does.
 */
async function expectPlacedBelow(trigger: Locator, panel: Locator): Promise<void> {
  await expect.poll(() => panel.evaluate((el) => (el as HTMLElement).style.top)).not.toBe('');
  await expect(async () => {
    const [t, p] = [await trigger.boundingBox(), await panel.boundingBox()];
    expect(p!.y).toBeGreaterThanOrEqual(t!.y + t!.height);
    expect(p!.y).toBeLessThan(t!.y + t!.height + 20);
    expect(p!.x).toBeGreaterThanOrEqual(0);
  }).toPass();
}

async function apiCommunity(page: Page): Promise<Community> {
  const res = await page.request.get(`${API_ORIGIN}/api/communities/demo`);
  expect(res.ok()).toBe(true);
  return (await res.json()) as Community;
}

test.describe('on a customer site (the demo page)', () => {
  test('the header renders the community nav, themed by its header config', async ({ page }) => {
    await page.goto(DEMO_URL);
    const h = header(page);
    await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
    // The nav the API sends an anonymous visitor, item for item.
    const community = await apiCommunity(page);
    expect(community.storefrontConfig.nav.map((i) => i.label)).toEqual(ANONYMOUS_NAV);

    // Site-relative links go to the community's hosted site, not to the customer's page.
    await expect(h.getByRole('link', { name: 'Events', exact: true })).toHaveAttribute(
      'href',
      `${HOSTED_ORIGIN}/events`,
    );
    await expect(h.locator('[part~="brand"]')).toHaveText('Demo Hikers');
    await expect(h.locator('[part~="brand"]')).toHaveAttribute('href', `${HOSTED_ORIGIN}/`);
    // storefrontConfig.header: bgColor #1f3d2f, textColor #f6f3ec.
    const colours = await h
      .locator('[part~="header"]')
      .evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    expect(colours).toEqual(['rgb(31, 61, 47)', 'rgb(246, 243, 236)']);
    // No session lookups on a foreign site: the cookie is out of reach there.
    await expect(h.locator('[part~="user"], [part~="bell"]')).toHaveCount(0);
  });

  test('"Sign in" opens the hosted sign-in page, coming back to this page afterwards', async ({ page }) => {
    await page.goto(DEMO_URL);
    const link = signInLink(header(page));
    const expected = `${HOSTED_ORIGIN}/sign-in?next=${encodeURIComponent(DEMO_URL)}`;
    await expect(link).toHaveText('Sign in');
    await expect(link).toHaveAttribute('href', expected);
    await link.click();
    await page.waitForURL(expected);
  });

  test('dropdowns work with the keyboard: arrows move, Escape closes and returns focus', async ({ page }) => {
    await page.goto(DEMO_URL);
    const h = header(page);
    const trigger = h.getByRole('button', { name: 'About' });
    const panel = h.locator('[part~="dropdown"]');
    await expect(trigger).toHaveAttribute('aria-expanded', 'false');
    await expect(panel).toBeHidden();
    expect(await panel.getAttribute('id')).toBe(await trigger.getAttribute('aria-controls'));

    await trigger.focus();
    await page.keyboard.press('ArrowDown');
    await expect(trigger).toHaveAttribute('aria-expanded', 'true');
    const items = panel.locator('a');
    // The item's own link (/about) first, then its children.
    await expect(items).toHaveText([
      'About',
      'Who we are',
      'Difficulty ratings',
      'Leave No Trace (opens in a new tab)',
    ]);
    await expect(items.nth(0)).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(items.nth(1)).toBeFocused();
    await page.keyboard.press('End');
    await expect(items.nth(3)).toBeFocused();
    await page.keyboard.press('ArrowDown'); // wraps to the top
    await expect(items.nth(0)).toBeFocused();
    await page.keyboard.press('ArrowUp'); // and to the bottom
    await expect(items.nth(3)).toBeFocused();
    await page.keyboard.press('Home');
    await expect(items.nth(0)).toBeFocused();

    await expectPlacedBelow(trigger, panel);

    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(trigger).toHaveAttribute('aria-expanded', 'false');
    await expect(trigger).toBeFocused();

    // ArrowUp opens on the last item; a click elsewhere closes.
    await page.keyboard.press('ArrowUp');
    await expect(items.nth(3)).toBeFocused();
    await page.locator('h1').click();
    await expect(panel).toBeHidden();

    // Left and right move along the bar.
    await trigger.focus();
    await page.keyboard.press('ArrowLeft');
    await expect(h.getByRole('link', { name: 'Shop', exact: true })).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(trigger).toBeFocused();
  });

  test('external items open a new tab without an opener or referrer', async ({ page }) => {
    await page.goto(DEMO_URL);
    const h = header(page);
    const external = h.locator('[part~="dropdown"] a', { hasText: 'Leave No Trace' });
    await expect(external).toHaveAttribute('href', 'https://www.lnt.org/why/7-principles/');
    await expect(external).toHaveAttribute('target', '_blank');
    await expect(external).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(h.locator('[part~="dropdown"] a', { hasText: 'Who we are' })).not.toHaveAttribute('target', '_blank');
  });

  test('below 768px the nav folds behind a menu button', async ({ page }) => {
    await page.setViewportSize({ width: 500, height: 800 });
    await page.goto(DEMO_URL);
    const h = header(page);
    const menu = h.getByRole('button', { name: 'Menu' });
    await expect(menu).toBeVisible();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(h.locator('[part~="nav"]')).toBeHidden();
    await expect(signInLink(h)).toBeVisible();

    await menu.click();
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
    await expect(topLevel(h).first()).toBeVisible();
    await h.getByRole('link', { name: 'Journal' }).focus();
    await page.keyboard.press('Escape');
    await expect(h.locator('[part~="nav"]')).toBeHidden();
    await expect(menu).toBeFocused();

    await page.setViewportSize({ width: 1024, height: 800 });
    await expect(menu).toBeHidden();
    await expect(topLevel(h).first()).toBeVisible();
  });

  test('header config colours and dropdown placement work under a strict CSP that allows no inline styles', async ({
    page,
    request,
  }) => {
    const key = await publishableKey(request);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    const csp = [
      "default-src 'none'",
      "script-src 'self' http://localhost:3100",
      'connect-src http://localhost:3100',
      'img-src data:',
      "style-src 'none'",
    ].join('; ');
    await openCustomerPage(
      page,
      'header-csp',
      `<svc-header></svc-header><svc-footer></svc-footer>${snippet(key)}`,
      '',
      { 'Content-Security-Policy': csp },
    );
    const h = header(page);
    await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
    // The header config's colours arrive as custom properties set through CSSOM, not a style attribute.
    expect(await h.locator('[part~="header"]').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      'rgb(31, 61, 47)',
    );
    await h.getByRole('button', { name: 'About' }).click();
    await expectPlacedBelow(h.getByRole('button', { name: 'About' }), h.locator('[part~="dropdown"]'));
    await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();
    expect(violations).toEqual([]);
  });

  test('each chunk loads only with its tag: a footer-only page never downloads the header or floating-ui', async ({
    page,
    request,
  }) => {
    const key = await publishableKey(request);
    const files: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${API_ORIGIN}/widgets/`)) files.push(new URL(r.url()).pathname.slice('/widgets/'.length));
    });
    await openCustomerPage(page, 'footer-only', `<svc-footer route="/events"></svc-footer>${snippet(key)}`);
    await expect(page.locator('svc-footer [part~="title"]')).toHaveText('Demo Hikers');
    await page.waitForLoadState('networkidle');
    const { widgets } = widgetManifest();
    expect(files.sort()).toEqual(['loader.js', widgets.footer.file, ...widgets.footer.imports].sort());
    expect(files).not.toContain(widgets.header.file);
  });

  test('the footer renders the default footer block: title, columns, social links, copyright', async ({ page }) => {
    await page.goto(DEMO_URL);
    const f = page.locator('svc-footer');
    await expect(f.locator('[part~="title"]')).toHaveText('Demo Hikers');
    await expect(f.locator('[part~="column-title"]')).toHaveText(['Hike with us', 'Community']);
    await expect(f.locator('[part~="column"]').first().locator('a')).toHaveText([
      'Upcoming events',
      'Trail map',
      'Become a member',
    ]);
    await expect(f.getByRole('link', { name: 'Upcoming events' })).toHaveAttribute('href', `${HOSTED_ORIGIN}/events`);
    const social = f.locator('[part~="social-link"]');
    await expect(social).toHaveText(['Instagram (opens in a new tab)', 'Mastodon (opens in a new tab)']);
    await expect(social.first()).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(f.locator('[part~="copyright"]')).toHaveText('© Demo Hikers. Built on svc.');
    // The customer's fallback paragraph is hidden once the widget renders.
    await expect(page.getByText('A made-up club on a made-up website')).toBeHidden();
  });
  test('inside the page\'s own <header> and <footer>, landmarks="none" nests no second banner or contentinfo (axe clean)', async ({
    page,
  }) => {
    const key = await publishableKey(page.request);
    // As a WordPress block theme places them: in the theme's header and footer template parts.
    const body = (landmarks: string) =>
      `<header><svc-header ${landmarks}></svc-header></header><main><h1>Page</h1></main>` +
      `<footer><svc-footer ${landmarks}></svc-footer></footer>${snippet(key)}`;
    await openCustomerPage(page, 'nested-landmarks', body('landmarks="none"'), '<title>Nested</title>');
    await expect(topLevel(header(page))).toHaveText(ANONYMOUS_NAV);
    await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();
    await expect(page.getByRole('banner')).toHaveCount(1);
    await expect(page.getByRole('contentinfo')).toHaveCount(1);
    // The nav keeps its landmark and its name inside the page's banner.
    await expect(page.getByRole('banner').getByRole('navigation', { name: 'Demo Hikers' })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    // Without the attribute the widgets bring their own landmarks: nested, as the issue found.
    await openCustomerPage(page, 'nested-landmarks-own', body(''), '<title>Nested</title>');
    await expect(topLevel(header(page))).toHaveText(ANONYMOUS_NAV);
    await expect(page.locator('svc-footer [part~="copyright"]')).toBeVisible();
    await expect(page.getByRole('banner')).toHaveCount(2);
  });
});

// ---------------------------------------------------------------------------------------------
// The hosted apex: same-origin, the sign-in cookie
// ---------------------------------------------------------------------------------------------

/** Signs in through the API from the page, then tells the widgets (the documented host-page hook). */
async function signInFromPage(page: Page, who: { email: string; password: string }): Promise<number> {
  return page.evaluate(async ({ email, password }) => {
    const res = await fetch('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    await res.text();
    if (res.ok) document.dispatchEvent(new CustomEvent('svc:session:changed'));
    return res.status;
  }, who);
}

test.describe('on the hosted apex (demo.localhost)', () => {
  test('an anonymous visitor sees the public nav and a same-site sign-in link; calls carry no key', async ({
    page,
  }) => {
    const apiCalls: { url: string; key: string | undefined }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) apiCalls.push({ url: r.url(), key: r.headers()['x-api-key'] });
    });
    await page.goto(HOSTED_URL);
    const h = header(page);
    await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
    await expect(signInLink(h)).toHaveAttribute(
      'href',
      `${HOSTED_ORIGIN}/sign-in?next=${encodeURIComponent(HOSTED_PATH)}`,
    );
    await expect(h.getByRole('link', { name: 'Events', exact: true })).toHaveAttribute(
      'href',
      `${HOSTED_ORIGIN}/events`,
    );
    await expect(page.locator('svc-footer [part~="title"]')).toHaveText('Demo Hikers');
    // The community and the session come with the page (its svc-state block): no read at all.
    await page.waitForLoadState('networkidle');
    expect(apiCalls.map((c) => new URL(c.url).pathname)).toEqual([]);
    for (const call of apiCalls) {
      expect(new URL(call.url).origin).toBe(HOSTED_ORIGIN);
      expect(call.key).toBeUndefined();
    }
  });

  test('signing in from the page switches every header to the user and shows the member-only item; signing out switches back', async ({
    page,
  }) => {
    await page.goto(HOSTED_URL);
    // A second header on the same page: both follow the one $session store.
    await page.evaluate(() => document.body.append(document.createElement('svc-header')));
    const headers = page.locator('svc-header');
    await expect(headers).toHaveCount(2);
    for (const h of [headers.nth(0), headers.nth(1)]) {
      await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
      await expect(signInLink(h)).toBeVisible();
    }

    // After sign-in the widgets fetch the community again, now with the cookie: a personal answer.
    const communityFetch = page.waitForResponse(
      (r) =>
        r.url() === `${HOSTED_ORIGIN}/api/communities/demo` && r.headers()['cache-control'] === 'private, no-store',
    );
    expect(await signInFromPage(page, MAYA)).toBe(200);
    for (const h of [headers.nth(0), headers.nth(1)]) {
      await expect(userButton(h)).toContainText(MAYA.name);
      await expect(signInLink(h)).toHaveCount(0);
      await expect(topLevel(h)).toHaveText(MEMBER_NAV);
    }
    expect((await (await communityFetch).request().allHeaders()).cookie).toContain('svc_auth_demo=');
    await expect(headers.nth(0).getByRole('link', { name: 'Members', exact: true })).toHaveAttribute(
      'href',
      `${HOSTED_ORIGIN}/members`,
    );

    // The bell (showBell) with the unread count from the notifications API.
    await expect(headers.nth(0).locator('[part~="bell"]')).toHaveAttribute('aria-label', /^Notifications/);

    // Sign out from the user menu of the second header: both switch back.
    const second = headers.nth(1);
    await userButton(second).click();
    await expect(second.locator('[part~="user-tag"]')).toHaveText('@maya');
    await second.getByRole('button', { name: 'Sign out' }).click();
    // Focus does not fall to the page: it moves to "Sign in", where "Sign out" was.
    await expect(signInLink(second)).toBeFocused();
    for (const h of [headers.nth(0), headers.nth(1)]) {
      await expect(signInLink(h)).toBeVisible();
      await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
      await expect(h.locator('[part~="bell"]')).toHaveCount(0);
    }
    // Really signed out on the server, too.
    const me = await page.evaluate(async () => (await fetch('/api/users/me')).status);
    expect(me).toBe(401);
  });

  test('the server-rendered header fetches floating-ui only when a dropdown is reached, and places a panel opened before it arrives', async ({
    page,
  }) => {
    const popover: string[] = [];
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/widgets\/popover-[^/]+\.js$/, async (route) => {
      popover.push(route.request().url());
      await arrived;
      await route.continue();
    });
    await page.goto(HOSTED_URL);
    const h = header(page);
    const trigger = h.getByRole('button', { name: 'About' });
    const panel = h.locator('[part~="dropdown"]');
    // In the first paint, hydrated (the header's JS answers the click) without floating-ui.
    await expect(topLevel(h)).toHaveText(ANONYMOUS_NAV);
    await page.waitForLoadState('networkidle');
    expect(popover).toEqual([]);

    // Opened while floating-ui is on its way: open at once, placed when it arrives.
    await trigger.click();
    await expect(trigger).toHaveAttribute('aria-expanded', 'true');
    await expect(panel).toBeVisible();
    expect(popover).toHaveLength(1);
    expect(await panel.evaluate((el) => (el as HTMLElement).style.top)).toBe('');
    release();
    await expectPlacedBelow(trigger, panel);
    expect(popover).toHaveLength(1);
  });

  test('a signed-in visitor sees themselves and the member nav on load; the page passes axe with the user menu open', async ({
    page,
    context,
  }) => {
    await page.goto(HOSTED_URL);
    expect(await signInFromPage(page, JONAS)).toBe(200);
    // A new page of the same browser (the cookie is shared): what a returning member sees.
    const member = await context.newPage();
    const problems = recordProblems(member);
    await member.goto(HOSTED_URL);
    const h = header(member);
    await expect(userButton(h)).toContainText(JONAS.name);
    await expect(topLevel(h)).toHaveText(MEMBER_NAV);
    await expect(member.locator('svc-footer [part~="copyright"]')).toBeVisible();

    await userButton(h).click();
    await expect(h.getByRole('button', { name: 'Sign out' })).toBeVisible();
    expect(await axeViolations(member)).toEqual([]);
    await member.waitForLoadState('networkidle');
    expect(problems).toEqual([]);
  });
});
