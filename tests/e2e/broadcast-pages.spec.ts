// The two hosted pages a broadcast or an invite link leads a visitor to, in Chromium with
// JavaScript on and off (docs/mail.md "Unsubscribing", docs/leader-console.md "Invite links"):
// the unsubscribe page confirms on GET and unsubscribes with its button, and the invalid-link and
// unknown-invite pages explain themselves; axe (run with JavaScript on) finds nothing on any of them.
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { UnsubscribeTokens } from '../../server/broadcasts/unsubscribe-token.ts';
import { loadMasterKey } from '../../server/secrets.ts';
import { HOSTED_ORIGIN, axeViolations } from './support.ts';

const dataDir = process.env.SVC_E2E_DATA_DIR as string;

/** A token for the `memberIndex`th ACCEPTED member of the demo community, signed with the e2e server's master key. */
function unsubscribeToken(memberIndex: number): string {
  const db = new Database(path.join(dataDir, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    const member = db
      .prepare(
        `select m.community_id as communityId, m.user_id as userId from memberships m
           join communities c on c.id = m.community_id
          where c.tag = 'demo' and m.status = 'ACCEPTED' and m.role = 'member' order by m.id limit 1 offset ?`,
      )
      .get(memberIndex) as { communityId: string; userId: string };
    const tokens = new UnsubscribeTokens(loadMasterKey({ encryptionKey: null, dataDir }));
    // A broadcast id that names no row: the page records the unsubscribe all the same.
    return tokens.sign({ ...member, broadcastId: crypto.randomUUID() });
  } finally {
    db.close();
  }
}

test('an invalid unsubscribe link and an unknown invite explain themselves, axe-clean', async ({ page }) => {
  const invalid = await page.goto(`${HOSTED_ORIGIN}/unsubscribe?token=not-a-token`);
  expect(invalid?.status()).toBe(400);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/not valid/);
  expect(await axeViolations(page)).toEqual([]);

  const join = await page.goto(`${HOSTED_ORIGIN}/join/not-a-code`);
  expect(join?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

// axe runs where scripts do: the pages' markup is the same with JavaScript off, where the second
// run checks that the button alone unsubscribes. Each run unsubscribes a member of its own.
for (const [javaScript, memberIndex] of [
  [true, 0],
  [false, 1],
] as const) {
  test.describe(`JavaScript ${javaScript ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled: javaScript });

    test('the unsubscribe page confirms on GET and unsubscribes with its button', async ({ page }) => {
      const url = `${HOSTED_ORIGIN}/unsubscribe?token=${unsubscribeToken(memberIndex)}`;
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Unsubscribe from .*e-mails\?/);
      if (javaScript) expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Unsubscribe' }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('You are unsubscribed');
      if (javaScript) expect(await axeViolations(page)).toEqual([]);

      // Opening the link again says so, and offers no second button.
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('You are unsubscribed');
      await expect(page.getByRole('button', { name: 'Unsubscribe' })).toHaveCount(0);
    });
  });
}
