// The hosted sign-in page's "Text me a code" option: its markup (labels, autocomplete, input modes,
// a live region), that it sits beside the password form and the provider buttons, and that it runs
// under the same nonce CSP. What the script does in a browser is in tests/e2e/sign-in-sms.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let port: string;
const signInPage = (host = 'club.localhost', path = '/sign-in?next=%2Fevents') =>
  rawRequest(port, 'GET', path, { Host: `${host}:${port}` });
/** The start tag of the element with this id. */
const tagOf = (html: string, id: string) => new RegExp(`<[a-z]+ id="${id}"[^>]*>`).exec(html)?.[0] ?? '';

beforeAll(async () => {
  server = await startTestServer({
    env: { SVC_OAUTH_GOOGLE_CLIENT_ID: 'test-client', SVC_OAUTH_GOOGLE_CLIENT_SECRET: 'test-secret' },
  });
  port = new URL(server.url).port;
  await makeCommunity(server.database.db, 'club', { name: 'The Club' });
});
afterAll(async () => {
  await server.close();
});

describe('sign-in page, SMS option: happy path', () => {
  it('offers "Text me a code" beside the password form and the provider buttons', async () => {
    const res = await signInPage();
    expect(res.status).toBe(200);
    expect(res.text).toContain('<button id="method" class="link" type="button">Text me a code instead</button>');
    // The password form shows first; the SMS form is there, hidden until chosen.
    expect(tagOf(res.text, 'password-part')).toBe('<div id="password-part">');
    expect(tagOf(res.text, 'sms-part')).toBe('<div id="sms-part" hidden>');
    expect(res.text).toContain('<form id="form" method="post" action="/sign-in" novalidate>');
    expect(res.text).toContain('<form id="sms" method="post" action="/sign-in" novalidate>');
    expect(res.text).toContain('>Continue with Google</a>');
    expect(res.text).toContain('data-next="/events"');
  });

  it('labels the phone and code fields and asks browsers for the right keyboard and autofill', async () => {
    const { text } = await signInPage();
    const phone = tagOf(text, 'phone');
    expect(text).toContain('<label for="phone">Phone number, with country code</label>');
    expect(phone).toContain('type="tel"');
    expect(phone).toContain('autocomplete="tel"');
    expect(phone).toContain('inputmode="tel"');
    expect(phone).toContain('required');
    const code = tagOf(text, 'code');
    expect(text).toContain('<label for="code">Code from the text message</label>');
    expect(code).toContain('autocomplete="one-time-code"');
    expect(code).toContain('inputmode="numeric"');
    expect(code).toContain('pattern="[0-9]{6}"');
    expect(code).toContain('maxlength="6"');
    // Present from the start (no layout jump when the code is sent), usable only once it is.
    expect(code).toContain('disabled');
    expect(tagOf(text, 'sms-submit')).toBe('<button id="sms-submit" type="submit">');
    // Errors and progress are announced, and tied to the fields.
    expect(text).toContain('<p id="status" role="status" aria-live="polite"></p>');
    expect(phone).toContain('aria-describedby="status"');
    expect(code).toContain('aria-describedby="status"');
  });

  it('posts the phone to /api/auth/sms/start and the code to /api/auth/sms/verify from its one script', async () => {
    const { text } = await signInPage();
    const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(text)![1];
    expect(script).toContain("post('/api/auth/sms/start', { phone: number })");
    expect(script).toContain("post('/api/auth/sms/verify', { phone: sentTo, code: code.value.trim() })");
    expect(script).toContain('location.assign(next())');
  });

  it('offers it on the platform host too', async () => {
    const res = await signInPage('127.0.0.1', '/sign-in');
    expect(res.text).toContain('<title>Sign in · svc</title>');
    expect(tagOf(res.text, 'sms-part')).toBe('<div id="sms-part" hidden>');
  });
});

describe('sign-in page, SMS option: security', () => {
  it('keeps the nonce CSP: one inline script and one style, both under the nonce, no inline handlers', async () => {
    const res = await signInPage();
    const csp = String(res.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    // On a community's host the server-rendered chrome adds 'self' scripts and its styles' hashes.
    expect(csp).toMatch(
      new RegExp(
        `^default-src 'none'; script-src 'nonce-${nonce!.replace(/[+/=]/g, '\\$&')}'(?: 'self')?; style-src 'nonce-[^']+'(?: 'sha256-[^']+')*; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$`,
      ),
    );
    // One inline script; the hosted chrome adds only module files and JSON data (hosted-site-ssr.test.ts).
    expect(res.text.match(/<script(?![^>]* src=|[^>]*type="application\/json")/g)).toHaveLength(1);
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    expect(res.text.match(/<style nonce=/g)).toHaveLength(1);
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
