// The hosted sign-in pages, on a community's own domain (and on the platform host):
//   GET /sign-in?next=/path         e-mail + password (or a new account: `&mode=sign-up` opens on it), or phone + a texted
//                                   code ("Text me a code"), then back to `next`
//                                   (a path here, or a URL on one of the community's own sites);
//                                   "Continue with Google/Slack/Discord" for enabled providers, and
//                                   the sentence for `?error=` when such a flow failed
//   GET /reset-password             ask for a reset link by e-mail
//   GET /reset-password?token=...   choose a new password (the link from that e-mail)
// Server-rendered HTML; the forms post JSON to /api/auth/* with fetch, same-origin. A strict CSP
// with a per-response nonce allows only our own inline script and style; the pages cannot be
// framed, send no Referer (the reset token is in the URL) and are never cached.
import crypto from 'node:crypto';
import type { Request, Response, Router } from 'express';
import type { Db } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import { findCommunityByDomain } from '../domain/communities.ts';
import { communityOrigins, ownOrigins, safeReturnTarget } from '../domain/community-origins.ts';
import { requestOrigin } from '../http/session.ts';
import { escapeHtml } from '../shared/html.ts';
import type { OAuthConfig } from '../oauth/config.ts';
import type { HostedChrome } from './pages/index.ts';
import { oauthErrorMessage, providerLinks } from '../oauth/links.ts';

/**
 * The server-rendered <svc-header> and <svc-footer> of a community's host
 * (pages/index.ts, hostedChromeProvider), when the page is on one.
 */
export type ChromeFor = (req: Request) => Promise<HostedChrome | null>;

/** `chrome`: the widget roots' style hashes and the widget scripts ('self') are allowed too. */
export function signInPageCsp(nonce: string, chrome?: HostedChrome | null): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'${chrome ? " 'self'" : ''}`,
    [`style-src 'nonce-${nonce}'`, ...(chrome?.styleHashes ?? [])].join(' '),
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The site a hosted page is on: the community of the request's host, else the platform ("svc"). */
export interface PageSite {
  name: string;
  brand: string | null;
  /** The community's tag; null on the platform host. */
  tag: string | null;
}

export async function siteFor(db: Db, req: Request): Promise<PageSite> {
  const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
  const community = host ? await findCommunityByDomain(db, host) : undefined;
  if (!community) return { name: 'svc', brand: null, tag: null };
  return pageSiteOf(community);
}

/** A community's name, tag and validated brand colour, for the pages served on its host. */
export function pageSiteOf(community: { name: string; tag: string; theme_config: string }): PageSite {
  const theme = parseJson<Record<string, unknown>>(community.theme_config, {});
  const color = [theme.brandColor, theme.primaryColor].find(
    (c) => typeof c === 'string' && /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(c),
  );
  return { name: community.name, brand: (color as string | undefined) ?? null, tag: community.tag };
}

/**
 * Where to go after signing in (`next`), judged by the origin rule: a path on this site, or a URL
 * on one of the community's own origins (its embed origins, where its widgets' "Sign in" links
 * come from, its landing site and hosted sites); else `/` (safeReturnTarget). On the platform
 * host, only this site.
 */
async function nextFor(deps: { db: Db; publicUrl: string }, req: Request, site: PageSite): Promise<string> {
  const here = requestOrigin(req) ?? deps.publicUrl;
  const community = site.tag ? await communityOrigins(deps.db, site.tag) : null;
  return safeReturnTarget(req.query.next, here, ownOrigins(community, deps.publicUrl, here));
}

/** The look every hosted page shares (sign-in, reset, notifications). */
export const HOSTED_PAGE_STYLE = `
:root { --brand: #1f6feb; --muted: color-mix(in srgb, CanvasText 68%, Canvas); color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; justify-items: center; align-items: start; background: Canvas; color: CanvasText; }
/* Top-aligned, not centred: a message appearing below the form must not move the form. */
main { width: min(24em, calc(100vw - 2em)); padding: max(2em, 12vh) 1.5em 2em; }
h1 { font-size: 1.4em; margin: 0 0 1em; }
label { display: block; margin: 0.8em 0 0.3em; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: 0.55em 0.6em; font: inherit; border: 1px solid GrayText; border-radius: 6px; }
input:focus { outline: 2px solid var(--brand); outline-offset: 1px; }
button { margin-top: 1.2em; width: 100%; padding: 0.65em; font: inherit; font-weight: 600; color: #fff; background: var(--brand); border: 0; border-radius: 6px; cursor: pointer; }
button[disabled] { opacity: 0.6; cursor: progress; }
.link { background: none; color: var(--brand); width: auto; padding: 0; margin: 0; font-weight: 400; text-decoration: underline; }
.row { margin-top: 1em; display: flex; justify-content: space-between; gap: 1em; font-size: 0.9em; }
a { color: var(--brand); }
#status { min-height: 1.4em; margin-top: 1em; }
#status.error { color: #c62828; }
.alert { color: #c62828; margin: 0 0 1em; }
.providers { display: grid; gap: 0.6em; margin-bottom: 1.2em; }
.provider { display: block; padding: 0.6em; text-align: center; font-weight: 600; text-decoration: none; color: CanvasText; border: 1px solid GrayText; border-radius: 6px; }
.provider:focus { outline: 2px solid var(--brand); outline-offset: 1px; }
.or { text-align: center; font-size: 0.9em; color: var(--muted); margin: 0 0 0.2em; }
input:disabled { background: color-mix(in srgb, GrayText 12%, Canvas); cursor: not-allowed; }
.invisible { visibility: hidden; }
[hidden] { display: none !important; }
`;

/** Shared by both pages: posting JSON and showing the answer. Runs under the nonce only. */
const COMMON_SCRIPT = `
const status = document.getElementById('status');
function say(text, error) { status.textContent = text; status.className = error ? 'error' : ''; }
function next() {
  // Checked on the server (a path here, or a URL on one of the community's own sites); never a script URL.
  const n = document.body.dataset.next || '/';
  try { const u = new URL(n, location.origin); if (u.protocol === 'https:' || u.protocol === 'http:') return u.href; } catch (e) {}
  return '/';
}
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) {}
  return { ok: res.ok, status: res.status, data, retryAfter: Number(res.headers.get('Retry-After')) || null };
}
function problem(r) {
  if (r.status === 429) return 'Too many attempts. Try again in ' + Math.max(1, Math.ceil((r.retryAfter || 60) / 60)) + ' minute(s).';
  return (r.data && r.data.error) || 'Something went wrong. Try again.';
}
async function submitting(form, fn) {
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  say('');
  try { await fn(); } catch (e) { say('Could not reach the server. Check your connection and try again.', true); }
  finally { button.disabled = false; }
}
`;

const SIGN_IN_SCRIPT = `
const form = document.getElementById('form');
const nameRow = document.getElementById('name-row');
const name = document.getElementById('name');
const password = document.getElementById('password');
const title = document.getElementById('title');
const submit = document.getElementById('submit');
const toggle = document.getElementById('toggle');
let mode = 'sign-in';
function setMode(m) {
  mode = m;
  const up = m === 'sign-up';
  nameRow.hidden = !up; name.required = up;
  password.autocomplete = up ? 'new-password' : 'current-password';
  password.minLength = up ? 8 : 1;
  title.textContent = up ? title.dataset.signUp : title.dataset.signIn;
  submit.textContent = up ? 'Create account' : 'Sign in';
  toggle.textContent = up ? 'I already have an account' : 'Create an account';
  say('');
}
toggle.addEventListener('click', () => setMode(mode === 'sign-in' ? 'sign-up' : 'sign-in'));
// ?mode=sign-up (an invite link's "Create an account") opens on the new-account form.
if (new URLSearchParams(location.search).get('mode') === 'sign-up') setMode('sign-up');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  submitting(form, async () => {
    const email = form.email.value.trim();
    const body = mode === 'sign-up' ? { email, password: password.value, name: name.value.trim() } : { email, password: password.value };
    const r = await post(mode === 'sign-up' ? '/api/auth/sign-up' : '/api/auth/sign-in', body);
    if (r.ok) { say('Signed in. Taking you back…'); location.assign(next()); return; }
    say(problem(r), true);
  });
});
`;

/**
 * "Text me a code": phone, then the code, in a form as tall as the password form (the code field
 * is there from the start, disabled until a code is sent), so switching methods or sending a code
 * moves nothing on the page.
 */
const SMS_SCRIPT = `
const passwordPart = document.getElementById('password-part');
const smsPart = document.getElementById('sms-part');
const smsForm = document.getElementById('sms');
const phone = document.getElementById('phone');
const code = document.getElementById('code');
const smsSubmit = document.getElementById('sms-submit');
const resend = document.getElementById('resend');
const method = document.getElementById('method');
// The number the live code was texted to; null until one is sent (and again once the number is edited).
let sentTo = null;
function awaitingCode(on) {
  code.disabled = !on; code.required = on;
  if (!on) code.value = '';
  code.removeAttribute('aria-invalid');
  smsSubmit.textContent = on ? 'Sign in' : 'Text me a code';
  resend.classList.toggle('invisible', !on);
  resend.disabled = !on;
}
function useSms(on) {
  if (on && mode === 'sign-up') setMode('sign-in');
  passwordPart.hidden = on; smsPart.hidden = !on;
  method.textContent = on ? 'Use e-mail and password instead' : 'Text me a code instead';
  say('');
  (on ? phone : form.email).focus();
}
method.addEventListener('click', () => useSms(passwordPart.hidden === false));
phone.addEventListener('input', () => { if (sentTo !== null) { sentTo = null; awaitingCode(false); } });
async function sendCode() {
  const number = phone.value.trim();
  const r = await post('/api/auth/sms/start', { phone: number });
  if (!r.ok) { say(problem(r), true); return; }
  sentTo = number;
  awaitingCode(true);
  code.focus();
  // The same answer whether or not an account has the number: the page cannot know, nor say.
  say('If an account has this number, we have texted it a 6-digit code. It works for 10 minutes.');
}
smsForm.addEventListener('submit', (event) => {
  event.preventDefault();
  submitting(smsForm, async () => {
    if (sentTo === null) { await sendCode(); return; }
    const r = await post('/api/auth/sms/verify', { phone: sentTo, code: code.value.trim() });
    if (r.ok) { say('Signed in. Taking you back…'); location.assign(next()); return; }
    code.setAttribute('aria-invalid', 'true');
    say(problem(r), true);
    code.focus();
    code.select();
  });
});
resend.addEventListener('click', () => submitting(smsForm, sendCode));
`;

const RESET_SCRIPT = `
const params = new URLSearchParams(location.search);
const token = params.get('token');
// The token stays in memory only: out of the address bar, the history and any later Referer.
if (token) { params.delete('token'); const rest = params.toString(); history.replaceState(null, '', location.pathname + (rest ? '?' + rest : '')); }
const requestForm = document.getElementById('request');
const confirmForm = document.getElementById('confirm');
if (requestForm) requestForm.addEventListener('submit', (event) => {
  event.preventDefault();
  submitting(requestForm, async () => {
    const r = await post('/api/auth/password-reset', { email: requestForm.email.value.trim() });
    if (r.ok) { say('If an account exists for that address, we have e-mailed it a link to choose a new password. The link works for an hour.'); requestForm.reset(); return; }
    say(problem(r), true);
  });
});
if (confirmForm) confirmForm.addEventListener('submit', (event) => {
  event.preventDefault();
  submitting(confirmForm, async () => {
    if (confirmForm.password.value !== confirmForm.repeat.value) { say('The two passwords differ.', true); return; }
    const r = await post('/api/auth/password-reset/confirm', { token: token || '', password: confirmForm.password.value });
    if (r.ok) { say('Your password is changed and you are signed in. Taking you on…'); location.assign(next()); return; }
    say(problem(r), true);
  });
});
`;

/**
 * A fresh nonce, and the headers every hosted page is sent with: the nonce CSP, never cached, never
 * framed, no Referer. Returns the nonce for the page's one inline style and script.
 */
export function hostedPageHeaders(res: Response, chrome?: HostedChrome | null): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  res.setHeader('Content-Security-Policy', signInPageCsp(nonce, chrome));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  return nonce;
}

/** The site's brand colour over the default, for the page's style. */
export const brandStyle = (site: PageSite): string => (site.brand ? `:root { --brand: ${site.brand}; }` : '');

export interface HostedPage {
  title: string;
  /** The page's own rules, after the shared HOSTED_PAGE_STYLE and before the site's brand colour. */
  style?: string;
  /** Attributes of `<body>`, already escaped, each with its leading space. */
  bodyAttributes?: string;
  /** What `<main>` holds. */
  main: string;
  /** The page's one script, run at once in its own scope. */
  script: string;
}

/** A hosted page (sign-in, password reset, notifications): the headers of hostedPageHeaders, then the document. */
export function sendHostedPage(res: Response, site: PageSite, page: HostedPage, chrome?: HostedChrome | null): void {
  const nonce = hostedPageHeaders(res, chrome);
  res.type('html').send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(page.title)} · ${escapeHtml(site.name)}</title>
<style nonce="${nonce}">${HOSTED_PAGE_STYLE}${page.style ?? ''}${brandStyle(site)}${chrome?.style ?? ''}</style>
${chrome?.head ?? ''}
</head>
<body${page.bodyAttributes ?? ''}>
${chrome?.header ?? ''}
<main>
${page.main}
</main>
${chrome ? `${chrome.footer}\n${chrome.stateBlock}` : ''}
<script nonce="${nonce}">(() => {${page.script}})();</script>
</body>
</html>
`);
}

function page(
  res: Response,
  site: PageSite,
  opts: { title: string; next: string; body: string; script: string },
  chrome?: HostedChrome | null,
): void {
  sendHostedPage(
    res,
    site,
    {
      title: opts.title,
      bodyAttributes: ` data-next="${escapeHtml(opts.next)}"`,
      main: `${opts.body}
<p id="status" role="status" aria-live="polite"></p>
<noscript><p>This page needs JavaScript to sign you in.</p></noscript>`,
      script: `${COMMON_SCRIPT}${opts.script}`,
    },
    chrome,
  );
}

/**
 * The enabled providers' buttons. A flow can only come back to a path on this site, so a `next`
 * on another of the community's origins returns to `/` here.
 */
function providerButtons(oauth: OAuthConfig | undefined, next: string, here: string): string {
  const links = providerLinks(oauth);
  if (links.length === 0) return '';
  const returnTo = encodeURIComponent(safeReturnTarget(next, here, undefined, { pathOnly: true }));
  const buttons = links.map(
    (p) =>
      `<a class="provider" href="${escapeHtml(`${p.startUrl}?returnTo=${returnTo}`)}">Continue with ${escapeHtml(p.name)}</a>`,
  );
  return `<div class="providers">\n${buttons.join('\n')}\n</div>\n<p class="or">or with your e-mail or phone</p>\n`;
}

export function mountSignInPages(
  router: Router,
  deps: { db: Db; publicUrl: string; oauth?: OAuthConfig },
  chromeFor?: ChromeFor,
): void {
  router.get('/sign-in', async (req, res) => {
    const site = await siteFor(deps.db, req);
    const next = await nextFor(deps, req, site);
    const signInTitle = `Sign in to ${site.name}`;
    const failed = oauthErrorMessage(req.query.error);
    page(
      res,
      site,
      {
        title: 'Sign in',
        next,
        script: SIGN_IN_SCRIPT + SMS_SCRIPT,
        body: `<h1 id="title" data-sign-in="${escapeHtml(signInTitle)}" data-sign-up="${escapeHtml(`Join ${site.name}`)}">${escapeHtml(signInTitle)}</h1>
${failed ? `<p class="alert" role="alert">${escapeHtml(failed)}</p>\n` : ''}${providerButtons(deps.oauth, next, requestOrigin(req) ?? deps.publicUrl)}<div id="password-part">
<form id="form" method="post" action="/sign-in" novalidate>
<div id="name-row" hidden><label for="name">Name</label><input id="name" name="name" autocomplete="name" maxlength="100"></div>
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" aria-describedby="status">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" aria-describedby="status">
<button id="submit" type="submit">Sign in</button>
</form>
<div class="row"><button id="toggle" class="link" type="button">Create an account</button><a href="/reset-password?next=${encodeURIComponent(next)}">Forgot your password?</a></div>
</div>
<div id="sms-part" hidden>
<form id="sms" method="post" action="/sign-in" novalidate>
<label for="phone">Phone number, with country code</label><input id="phone" name="phone" type="tel" autocomplete="tel" inputmode="tel" placeholder="+1 415 555 0123" required maxlength="40" aria-describedby="status">
<label for="code">Code from the text message</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" disabled aria-describedby="status">
<button id="sms-submit" type="submit">Text me a code</button>
</form>
<div class="row"><button id="resend" class="link invisible" type="button" disabled>Text me a new code</button></div>
</div>
<div class="row"><button id="method" class="link" type="button">Text me a code instead</button></div>`,
      },
      await chromeFor?.(req),
    );
  });

  router.get('/reset-password', async (req, res) => {
    const site = await siteFor(deps.db, req);
    const next = await nextFor(deps, req, site);
    const withToken = typeof req.query.token === 'string' && req.query.token.length > 0;
    const body = withToken
      ? `<h1>Choose a new password</h1>
<form id="confirm" method="post" action="/reset-password" novalidate>
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="200">
<label for="repeat">Repeat it</label><input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="8" maxlength="200">
<button type="submit">Set password and sign in</button>
</form>
<p class="row">A new password signs you out on every other browser and device.</p>`
      : `<h1>Reset your password</h1>
<form id="request" method="post" action="/reset-password" novalidate>
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
<button type="submit">E-mail me a link</button>
</form>
<div class="row"><a href="/sign-in?next=${encodeURIComponent(next)}">Back to sign in</a></div>`;
    page(res, site, {
      title: withToken ? 'Choose a new password' : 'Reset your password',
      next,
      body,
      script: RESET_SCRIPT,
    });
  });
}
