// The hostile-host page (issue 20): a customer's page of our own, served by the test on the
// customer origin (127.0.0.1), that stresses the widgets the way real themes, page builders and
// tag managers do. Each spec switches on the hostilities it is about; the page's widgets, its
// snippet and its response headers are the test's choice too.
import type { Page } from '@playwright/test';
import { API_ORIGIN, PAGE_ORIGIN, openCustomerPage, publishableKey, snippet } from './support.ts';

export interface Hostilities {
  /** A near-black page (`#121212`) with light text, declaring `color-scheme: dark` unless false. */
  dark?: boolean | { declareColorScheme: boolean };
  /** A light page that declares so: `html { color-scheme: light }`. */
  lightColorScheme?: boolean;
  /** `<html dir="rtl" lang="ar">`. */
  rtl?: boolean;
  /** `body { text-decoration: underline }`, the inherited decoration some themes set. */
  textDecoration?: boolean;
  /** A host script that adds enumerable properties to Object.prototype before the loader runs. */
  pollutePrototype?: boolean;
  /** A strict CSP: scripts and connections only from the platform, no inline styles, Trusted Types required. */
  strictCsp?: boolean;
}

/** The strict CSP the hostile host sends: what a locked-down customer site allows the platform. */
export function strictCsp(platform: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${platform}`,
    `connect-src ${platform}`,
    `img-src 'self' ${platform} data:`,
    "style-src 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types svc',
  ].join('; ');
}

/**
 * Opens `/e2e/<name>.html` on the customer origin with `widgets` (markup) and the real snippet
 * (`snippetHtml`, else the demo community's publishable key) under the hostilities asked for;
 * `search` is a query and fragment to open it with.
 */
export async function openHostileHost(
  page: Page,
  name: string,
  widgets: string,
  hostilities: Hostilities = {},
  /** `origin`: where the page is served, when not the customer origin (e.g. one the community does not list). */
  options: { snippetHtml?: string; headers?: Record<string, string>; origin?: string; search?: string } = {},
): Promise<void> {
  const script = options.snippetHtml ?? snippet(await publishableKey(page.request));
  const css: string[] = [];
  if (hostilities.dark) {
    const declare = hostilities.dark === true || hostilities.dark.declareColorScheme;
    css.push(`html{background:#121212;color:#e8e8e8${declare ? ';color-scheme:dark' : ''}}`);
  }
  if (hostilities.lightColorScheme) css.push('html{color-scheme:light}');
  if (hostilities.textDecoration) css.push('body{text-decoration:underline}');
  // Under the strict CSP (style-src 'none', no inline script) the page's own <style> and the
  // pollution script are refused: combine those hostilities with it and they do not happen.
  const head = [
    css.length ? `<style>${css.join('')}</style>` : '',
    hostilities.pollutePrototype
      ? `<script>Object.prototype.polluted = 'host'; Object.prototype.get = 'host'; Object.prototype.set = 'host';</script>`
      : '',
  ].join('');
  const headers = { ...options.headers };
  if (hostilities.strictCsp) headers['Content-Security-Policy'] = strictCsp(API_ORIGIN);
  const html = hostilities.rtl ? 'lang="ar" dir="rtl"' : 'lang="en"';
  await openCustomerPage(
    page,
    name,
    `<main>${widgets}</main>${script}`,
    head,
    headers,
    options.origin ?? PAGE_ORIGIN,
    html,
    options.search,
  );
}
