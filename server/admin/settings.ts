// The leader console's settings: read them, change them. The change, its audit entry and the
// idempotency record commit in one transaction; then every cache of the community is forgotten in
// this process and announced to the others (server/http/community-changes.ts).
import type { z } from 'zod';
import * as routes from '../../contract/routes/admin-settings.ts';
import { isUniqueViolation } from '../db/index.ts';
import { recordAudit } from '../domain/audit-log.ts';
import { forgetCommunityCaches } from '../domain/communities.ts';
import { changeSettingsIn, platformHostIndex, readCommunitySettings } from '../domain/community-settings.ts';
import { Refusal } from '../domain/refusal.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** What readCommunitySettings read: the stored values, valid by the schema that wrote them. */
const asSettings = (settings: unknown) => settings as z.infer<typeof routes.CommunitySettings>;

async function getCommunitySettings({ leader }: HandlerContext<typeof routes.getCommunitySettings>, { db }: RouteDeps) {
  const settings = await readCommunitySettings(db, leader.communityId);
  if (!settings) throw new Refusal('community_not_found');
  return { body: asSettings(settings), headers: NO_STORE };
}

async function updateCommunitySettings(
  { body, leader, transaction }: HandlerContext<typeof routes.updateCommunitySettings>,
  deps: RouteDeps,
) {
  const own = platformHostIndex(body.domains ?? [], deps);
  if (own >= 0) throw new Refusal('domain_of_platform', { field: `domains.${own}` });
  let changed = false;
  const result = await transaction(async (trx) => {
    const outcome = await changeSettingsIn(trx, { id: leader.communityId }, body);
    if (!outcome) throw new Refusal('community_not_found');
    if (outcome.takenDomains.length > 0)
      throw new Refusal('domain_taken', { field: `domains.${outcome.takenDomains[0].index}` });
    if (outcome.changes.length > 0) {
      changed = true;
      await recordAudit(trx, leader, {
        action: 'settings.update',
        targetType: 'community',
        targetId: leader.communityId,
        before: Object.fromEntries(outcome.changes.map((c) => [c.field, c.before])),
        after: Object.fromEntries(outcome.changes.map((c) => [c.field, c.after])),
      });
    }
    const settings = await readCommunitySettings(trx, leader.communityId);
    return { body: asSettings(settings), headers: NO_STORE };
  }).catch((err: unknown) => {
    // Another community registered one of the domains between the check and the insert.
    if (isUniqueViolation(err)) throw new Refusal('domain_taken', { field: 'domains' });
    throw err;
  });
  if (changed) {
    // Committed: every process forgets what it kept of this community (the host lookup, the
    // origins, the read and page caches, the proxied pages' chrome).
    if (deps.communityChanges) deps.communityChanges.announce(leader.communityId);
    else forgetCommunityCaches(deps.db);
  }
  return result;
}

export const settingsHandlers = { getCommunitySettings, updateCommunitySettings } satisfies Handlers<
  RoutesOf<typeof routes>
>;
