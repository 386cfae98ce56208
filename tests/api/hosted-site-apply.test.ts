// `/apply` with <svc-apply> rendered on the server (docs/hosted-site.md, "How pages are made"):
// the widget in a declarative shadow root with the segments and their forms it hydrates from, its
// chunk and no other widget's, the page's plain forms kept for visitors without JavaScript, and
// hostile segment text escaped. The browser side is tests/e2e/apply.spec.ts.
import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../server/app.ts';
import { loadWidgetBuild } from '../../server/site/widgets-ssr.ts';
import type { WidgetManifest } from '../../vite.config.ts';
import { makeCommunity, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let manifest: WidgetManifest;
let free: string;
let paid: string;
let memberCookie: string;
let visitorCookie: string;
const HOSTILE = '<script>alert(1)</script>';

const get = (p: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', p, { Host: `club.localhost:${port}`, ...(cookie ? { Cookie: cookie } : {}) });

function root(html: string, name: string): { attrs: string; css: string; markup: string; state: string | null } {
  const m = new RegExp(
    `<svc-${name}([^>]*)><template shadowrootmode="open"><style>([\\s\\S]*?)</style>([\\s\\S]*?)</template>` +
      `(?:<script type="application/json">([\\s\\S]*?)</script>)?</svc-${name}>`,
  ).exec(html);
  if (!m) throw new Error(`no server-rendered <svc-${name}> in the page`);
  return { attrs: m[1], css: m[2], markup: m[3], state: m[4] ?? null };
}
const hash = (text: string) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;
const preloads = (html: string) =>
  new Set([...html.matchAll(/<link rel="modulepreload" href="\/widgets\/([^"]+)">/g)].map((m) => m[1]));
const chunks = (names: string[]) =>
  new Set(names.flatMap((n) => [manifest.widgets[n].file, ...manifest.widgets[n].imports]));

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  manifest = (await loadWidgetBuild(path.join(ROOT_DIR, 'dist'))).manifest;
  const db = server.database.db;
  const club = await makeCommunity(db, 'club', { name: 'The Club' });
  free = await makeSegment(db, club.id, { name: `Friends ${HOSTILE}`, color: '#00aa00', sort_order: 0 }, [
    { id: 'why', type: 'short_text', label: `Why ${HOSTILE}?`, required: true },
  ]);
  paid = await makeSegment(db, club.id, {
    name: 'Patrons',
    color: 'red;}</style><b>x',
    price_monthly: 500,
    sort_order: 1,
  });
  const mia = await makeUser(db, 'mia');
  await makeMembership(db, club.id, mia.id, 'ACCEPTED');
  memberCookie = `svc_auth_club=${(await server.sessions.issue(mia.id, Date.now(), undefined, 'club')).token}`;
  const vic = await makeUser(db, 'vic');
  visitorCookie = `svc_auth_club=${(await server.sessions.issue(vic.id, Date.now(), undefined, 'club')).token}`;
});

afterAll(async () => {
  await server.close();
});

describe('/apply with <svc-apply> rendered on the server', () => {
  it('renders the segment picker into a declarative shadow root, with the segments and forms to hydrate from', async () => {
    const res = await get('/apply');
    expect(res.status).toBe(200);
    const apply = root(res.text, 'apply');
    expect(apply.attrs).toBe(' source="hosted site"');
    // The first paint is the picker, not "Loading…": hydration needs no request.
    expect(apply.markup).toContain('Choose a membership');
    expect(apply.markup).not.toContain('Loading memberships');
    expect(apply.markup).toContain(`data-segment="${free}"`);
    expect(apply.markup).toContain(`data-segment="${paid}"`);
    const state = JSON.parse(apply.state!);
    expect(state.segments.map((s: { id: string }) => s.id)).toEqual([free, paid]);
    expect(Object.keys(state.forms)).toEqual([free]);
    expect(state.forms[free][0]).toMatchObject({ id: 'why', type: 'short_text' });
  });

  it('loads the apply chunk and its imports, and no other widget’s', async () => {
    const { text } = await get('/apply');
    expect(preloads(text)).toEqual(chunks(['header', 'footer', 'apply']));
    expect(text).not.toContain(manifest.widgets.rsvp.file);
  });

  it('hides the widget without JavaScript, where the plain forms (shown only then) post the same contract', async () => {
    const { text } = await get('/apply', visitorCookie);
    const apply = root(text, 'apply');
    expect(apply.css).toContain('@media (scripting:none){.svc{display:none}}');
    const nojs = /<div class="nojs">([\s\S]*?)<\/div>\s*<\/main>/.exec(text);
    expect(nojs, 'the plain forms in a .nojs box').not.toBeNull();
    expect(nojs![1]).toContain('<form method="post" action="/apply" class="apply-form">');
    expect(nojs![1]).toContain(`<input type="hidden" name="segmentId" value="${free}">`);
    expect(nojs![1]).toContain('name="a:why"');
    expect(nojs![1]).toContain('name="_csrf"');
    // Anonymous: the sign-in link, also only without JavaScript.
    const anonymous = (await get('/apply')).text;
    expect(/<div class="nojs">[\s\S]*Sign in to apply[\s\S]*<\/div>/.test(anonymous)).toBe(true);
  });

  it('a member gets the plain page (nothing to apply for), and no widget', async () => {
    const { text } = await get('/apply', memberCookie);
    expect(text).toContain('You are already a member of The Club.');
    expect(text).not.toContain('<svc-apply');
    expect(preloads(text)).toEqual(chunks(['header', 'footer']));
  });

  it('escapes hostile segment text, and colours a card only with a value that stays a value', async () => {
    const { text, headers } = await get('/apply');
    expect(text).not.toContain(HOSTILE);
    const apply = root(text, 'apply');
    expect(apply.markup).toContain('Friends &lt;script>alert(1)&lt;/script>');
    expect(apply.state).toContain('\\u003cscript\\u003e');
    expect(apply.css).toContain(`.segment[data-segment="${free}"]{--_segment:#00aa00}`);
    expect(apply.css).not.toContain(paid);
    expect(apply.css).not.toContain('</style>');
    // The CSP allows exactly the styles on the page.
    const styles = [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    const allowed = /style-src ([^;]+)/.exec(String(headers['content-security-policy']))![1].split(' ');
    expect(new Set(allowed)).toEqual(new Set(styles.map(hash)));
  });
});
