// What the leader console's specs share: a community of their own (imported, so a spec that
// changes its theme or settings never disturbs the demo community the other specs read), its
// founder, and a browser context signed in on the community's own site.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Browser, type BrowserContext } from '@playwright/test';
import { E2E_PORT, svc } from './support.ts';

export const LEADER_PASSWORD = 'leader-password';

export interface ConsoleCommunity {
  tag: string;
  origin: string;
  founder: { email: string; password: string; usertag: string };
}

/**
 * Imports a fresh community (`tag` made unique), its founder signing in with LEADER_PASSWORD.
 * `extra` adds to the community's import object (users, memberships, events, segments...).
 */
export async function importConsoleCommunity(
  prefix: string,
  extra: Record<string, unknown> = {},
): Promise<ConsoleCommunity> {
  const tag = `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`.slice(0, 30).toLowerCase();
  const founder = { email: `${tag}-f@example.com`, password: LEADER_PASSWORD, usertag: `${tag}-f` };
  const users = [{ email: founder.email, name: 'Fran Founder', usertag: founder.usertag, password: LEADER_PASSWORD }];
  const memberships = [{ usertag: founder.usertag, status: 'ACCEPTED', role: 'founder' }];
  const community = {
    tag,
    name: `Club ${tag}`,
    visibility: 'PUBLIC',
    accessibility: 'OPEN',
    founder: founder.usertag,
    ...extra,
    users: [...users, ...((extra.users as unknown[]) ?? [])],
    memberships: [...memberships, ...((extra.memberships as unknown[]) ?? [])],
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-')), 'community.json');
  fs.writeFileSync(file, JSON.stringify({ communities: [community] }));
  await svc('import', file);
  return { tag, origin: `http://${tag}.localhost:${E2E_PORT}`, founder };
}

/**
 * A context signed in as `who` on the community's site. The sign-in goes through a page of that
 * host with JavaScript on (Node cannot resolve `<tag>.localhost`); the cookie is carried to the
 * context, which may have JavaScript off.
 */
export async function signedInContext(
  browser: Browser,
  community: ConsoleCommunity,
  who: { email: string; password: string },
  opts: { javaScript?: boolean } = {},
): Promise<BrowserContext> {
  const signingIn = await browser.newContext();
  const page = await signingIn.newPage();
  await page.goto(`${community.origin}/`);
  const status = await page.evaluate(
    async (body) => {
      const res = await fetch('/api/auth/sign-in', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      return res.status;
    },
    { email: who.email, password: who.password },
  );
  expect(status).toBe(200);
  const storageState = await signingIn.storageState();
  await signingIn.close();
  return browser.newContext({ javaScriptEnabled: opts.javaScript ?? true, storageState });
}
