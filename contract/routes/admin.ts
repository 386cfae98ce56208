// The leader console's API (`{site_base}/api/admin/{communityTag}/...`, docs/leader-console.md):
// who the signed-in leader is, the audit log and the overview. The settings, members, integrations and invite
// routes are declared in the admin-*.ts modules beside this one; every one of them has
// `auth: {kind: 'leader'}` (server/http/leader.ts).
import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset } from '../common.ts';
import { LEADER_CONSOLE_BASE, route } from '../route.ts';

export const ADMIN_BASE = LEADER_CONSOLE_BASE;
export const InAdminCommunity = z.object({ communityTag: CommunityTag });

export const LeaderRole = z.enum(['founder', 'admin']);

export const LeaderSelf = z
  .object({
    userId: z.string(),
    name: z.string(),
    role: LeaderRole,
    community: z.object({ id: z.string(), tag: z.string(), name: z.string() }),
  })
  .meta({ id: 'LeaderSelf' });

export const AuditEntry = z
  .object({
    id: z.string(),
    actor: z.object({ userId: z.string(), name: z.string().nullable().describe('null once the account is gone') }),
    action: z.string().describe('`<resource>.<verb>`, e.g. `settings.update`, `member.kick`, `key.create`'),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    before: z.unknown().describe('what the change replaced (JSON), null for a creation'),
    after: z.unknown().describe('what the change left (JSON), null for a deletion'),
    createdAt: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;

const LEADER_NOTE =
  "For the community's founder and admins only, signed in on the community's own site (its sign-in cookie; writes " +
  "only from the site's own origin): anyone else, a leader of another community included, gets `403 NOT_A_LEADER`.";

export const getLeaderSelf = route({
  operationId: 'getLeaderSelf',
  method: 'get',
  path: `${ADMIN_BASE}/me`,
  tag: 'Leader console',
  summary: 'The signed-in leader and their role',
  description: `What the console shows in its header, and how it learns which actions the founder alone has. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  response: { status: 200, schema: LeaderSelf, description: 'The leader' },
  errors: [401, 403],
});

export const listAuditLog = route({
  operationId: 'listAuditLog',
  method: 'get',
  path: `${ADMIN_BASE}/audit-log`,
  tag: 'Leader console',
  summary: "The community's audit log",
  description:
    'Every change made through the leader console, newest first (ties by id): who, what, when, before and after. ' +
    `Page with \`limit\` and \`offset\`; \`X-Total-Count\` and \`Link\` as on every list; \`action\` keeps one action. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  query: z
    .object({
      limit: Limit,
      offset: OptionalOffset.describe('default 0'),
      action: z.string().min(1).max(100).optional(),
    })
    .strict(),
  response: { status: 200, schema: z.array(AuditEntry), description: 'A page of the log', paginated: true },
  errors: [400, 401, 403],
});

const Count = z.int().min(0);
const Day = z.string().describe('a UTC day, `YYYY-MM-DD`');
const CurrencyAmount = z.object({
  currency: z.string().describe('ISO 4217, upper case'),
  amount: Count.describe("in the currency's minor unit"),
});

export const LeaderOverview = z
  .object({
    members: z.object({ accepted: Count.describe('ACCEPTED members, leaders included') }),
    requests: z.object({ pending: Count.describe('PENDING membership requests (the review queue)') }),
    events: z.object({
      upcoming: Count.describe('events starting now or later'),
      next: z
        .array(z.object({ id: z.string(), slug: z.string(), name: z.string(), startDate: z.string() }))
        .describe('the next five, soonest first'),
    }),
    since: Day.describe('the first day of `donations.days` and `rsvps.days`; the last is today (UTC)'),
    donations: z.object({
      days: z
        .array(z.object({ date: Day, count: Count, amounts: z.array(CurrencyAmount).describe('per currency') }))
        .describe('every day of the last 30, oldest first, refunded donations left out'),
      totals: z.array(CurrencyAmount.extend({ count: Count })).describe('the 30 days per currency'),
    }),
    rsvps: z.object({
      days: z.array(z.object({ date: Day, count: Count })).describe('RSVPs (free tickets) by day, as `donations.days`'),
      total: Count,
    }),
  })
  .meta({ id: 'LeaderOverview' });

export const getLeaderOverview = route({
  operationId: 'getLeaderOverview',
  method: 'get',
  path: `${ADMIN_BASE}/overview`,
  tag: 'Leader console',
  summary: "The community's overview",
  description:
    'What the console opens on: ACCEPTED members, PENDING requests, upcoming events (the next five by name) and the ' +
    'last 30 days (UTC, today included) of donations and RSVPs by day. Amounts are per currency and never added ' +
    `across currencies; refunded donations and tickets are left out. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  response: { status: 200, schema: LeaderOverview, description: 'The overview now' },
  errors: [401, 403],
});

export const ADMIN_ROUTES = [getLeaderSelf, listAuditLog, getLeaderOverview];
