import { z } from 'zod';
import { CommunityTag, IsoDateTime, Uuid } from '../common.ts';
import { route } from '../route.ts';

/** The header a server forwards the member's sign-in cookie value in (the spec's attribution header). */
export const MEMBER_TOKEN_HEADER = 'X-Svc-Auth-Token';

export const RulesAcceptance = z
  .object({
    ok: z.literal(true),
    rulesVersion: z.int(),
    userId: Uuid,
    acceptedAt: IsoDateTime.describe('when the member first accepted this version; repeating the call keeps it'),
  })
  .meta({ id: 'RulesAcceptance' });

export const acceptRules = route({
  operationId: 'acceptRules',
  method: 'post',
  path: '/v1/communities/{communityTag}/rules/accept',
  tag: 'Rules',
  summary: "Record a member's acceptance of the community rules",
  description:
    'The member is named by `userId` in the body or by their sign-in token (the `svc_auth` cookie value) in the ' +
    '`X-Svc-Auth-Token` header; with both, they must name the same user. Only ACCEPTED members of the community can ' +
    'accept (403 NOT_A_MEMBER), and only the community\'s current rules version (400 RULES_VERSION_MISMATCH, with ' +
    '`extras.currentVersion`). Accepting a version twice is a no-op that answers the first acceptance.',
  auth: { kind: 'apiKey', scope: 'WRITE_MEMBERS' },
  params: z.object({ communityTag: CommunityTag }),
  body: z
    .object({
      rulesVersion: z.int().min(0).describe('the version the member accepted, from storefrontConfig.rules.version'),
      userId: Uuid.optional().describe('the member; or send their sign-in token in X-Svc-Auth-Token'),
    })
    .strict(),
  response: { status: 200, schema: RulesAcceptance, description: 'The acceptance is recorded' },
  errors: [400, 401, 403, 429],
});

export const RULES_ROUTES = [acceptRules];
