// The flow's secrets travel in the browser, encrypted: never in the database, never readable or
// forgeable by the visitor. Two kinds, each a JWE (dir + A256GCM, jose) under its own key derived
// from the session secret, with its own audience, so one can never be passed off as the other:
// - the flow: state, nonce, PKCE verifier, where to return; an HttpOnly cookie on the platform
//   for the 10 minutes a visitor has to finish at the provider;
// - the ticket: what a start on a community's domain hands to the platform's start (that
//   domain, the binding hash); a query parameter, valid 2 minutes. It never names an account to
//   link: linking starts only on the platform (server/site/oauth.ts).
import { EncryptJWT, jwtDecrypt } from 'jose';
import { z } from 'zod';
import { OAUTH_PROVIDER_IDS } from './config.ts';

export const FLOW_TTL_SECONDS = 10 * 60;
export const TICKET_TTL_SECONDS = 2 * 60;

const ISSUER = 'svc';
const FLOW_AUDIENCE = 'svc:oauth-flow';
const TICKET_AUDIENCE = 'svc:oauth-ticket';

/** Where a finished flow goes when it started on a community's domain. */
const Handoff = z.object({
  /** `https://club.example`: the origin the handoff code is redeemed on. */
  origin: z.string().min(1).max(300),
  /** sha256 of the binding cookie set on that origin. */
  bindHash: z.string().min(1).max(100),
});

const FlowClaims = z.object({
  provider: z.enum(OAUTH_PROVIDER_IDS),
  state: z.string().min(1).max(200),
  nonce: z.string().min(1).max(200).nullable(),
  codeVerifier: z.string().min(43).max(128),
  returnTo: z.string().min(1).max(2000),
  /**
   * The platform session that asked to link (POST .../link); null for a sign-in. The callback
   * links only if this same session is still the one signed in.
   */
  link: z.object({ userId: z.string().max(64), sessionId: z.string().max(64) }).nullable(),
  handoff: Handoff.nullable(),
});
export type OAuthFlow = z.infer<typeof FlowClaims>;

const TicketClaims = z.object({
  provider: z.enum(OAUTH_PROVIDER_IDS),
  returnTo: z.string().min(1).max(2000),
  handoff: Handoff,
});
export type OAuthTicket = z.infer<typeof TicketClaims>;

async function seal(
  key: Uint8Array,
  audience: string,
  claims: object,
  ttlSeconds: number,
  now: number,
): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new EncryptJWT({ ...claims })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .encrypt(key);
}

/** The claims, or null for anything expired, tampered with, under another key or audience, or malformed. */
async function open<T>(
  key: Uint8Array,
  audience: string,
  schema: z.ZodType<T>,
  token: string,
  now: number,
): Promise<T | null> {
  if (token.length > 8000) return null;
  try {
    const { payload } = await jwtDecrypt(token, key, {
      issuer: ISSUER,
      audience,
      currentDate: new Date(now),
      requiredClaims: ['exp'],
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const parsed = schema.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export class FlowTokens {
  readonly #flowKey: Uint8Array;
  readonly #ticketKey: Uint8Array;

  /** `deriveKey` is SessionTokens.deriveKey: HKDF from the session secret, one key per purpose. */
  constructor(deriveKey: (purpose: string) => Uint8Array) {
    this.#flowKey = deriveKey('oauth flow v1');
    this.#ticketKey = deriveKey('oauth ticket v1');
  }

  sealFlow(flow: OAuthFlow, now = Date.now()): Promise<string> {
    return seal(this.#flowKey, FLOW_AUDIENCE, FlowClaims.parse(flow), FLOW_TTL_SECONDS, now);
  }

  openFlow(token: string, now = Date.now()): Promise<OAuthFlow | null> {
    return open(this.#flowKey, FLOW_AUDIENCE, FlowClaims, token, now);
  }

  sealTicket(ticket: OAuthTicket, now = Date.now()): Promise<string> {
    return seal(this.#ticketKey, TICKET_AUDIENCE, TicketClaims.parse(ticket), TICKET_TTL_SECONDS, now);
  }

  openTicket(token: string, now = Date.now()): Promise<OAuthTicket | null> {
    return open(this.#ticketKey, TICKET_AUDIENCE, TicketClaims, token, now);
  }
}
