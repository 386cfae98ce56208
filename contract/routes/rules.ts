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
    "The call comes from the customer's server, so the member is named by the request: `userId` in the body (the " +
    'server vouches for it with its key), or their sign-in token (the `svc_auth` cookie value) in the ' +
    '`X-Svc-Auth-Token` header, verified exactly as a signed-in request is (signature, expiry, signed-out session, "sign ' +
    'out everywhere"); an invalid token is `401 SIGN_IN_REQUIRED` with `extras.field` = `X-Svc-Auth-Token`, never a ' +
    'fallback to `userId`. With both, they must name the same user (else 400 naming `userId`); with neither, ' +
    '`400 INVALID_INPUT` naming `userId`.\n\n' +
    "- The current version is the community's `rulesVersion` (the import file's; publish the same number as " +
    '`storefrontConfig.rules.version` for the site to show). Any other is `400 RULES_VERSION_MISMATCH` with ' +
    '`extras.currentVersion`; a community at version 0 has no rules, so every call is that 400.\n' +
    '- Only ACCEPTED members of the community can accept: PENDING, REJECTED, BANNED, a member of another community only, ' +
    'or a user id that does not exist are all the same `403 NOT_A_MEMBER` (the endpoint does not reveal which ids exist).\n' +
    '- One acceptance per (community, user, version): accepting again, or concurrently, records it once and answers the ' +
    'first `acceptedAt`. Accepting a newer version adds a row; earlier ones are kept. `Idempotency-Key` is keyed on the ' +
    "body only: when naming members by the header, use a fresh key for each member's request.",
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
