// The error envelope and the closed list of error codes. Status per code is fixed here so the
// server, the OpenAPI document and clients agree; human messages live in server/http/messages.ts.
import { z } from 'zod';

export const ERROR_STATUS = {
  INVALID_INPUT: 400,
  INVALID_EMAIL: 400,
  INVALID_SLUG: 400,
  INVALID_DATE: 400,
  INVALID_AMOUNT: 400,
  INVALID_DONATION_AMOUNT: 400,
  ALREADY_MEMBER: 400,
  APPLICATION_PENDING: 400,
  MALFORMED_JSON: 400,
  INVALID_SIGNATURE: 400,
  RESET_TOKEN_INVALID: 400,
  PHONE_CODE_INVALID: 400,
  FRIEND_REQUEST_SELF: 400,
  RULES_VERSION_MISMATCH: 400,
  API_KEY_REQUIRED: 401,
  INVALID_API_KEY: 401,
  SIGN_IN_REQUIRED: 401,
  INVALID_CREDENTIALS: 401,
  REAUTH_REQUIRED: 401,
  COMMUNITY_MISMATCH: 403,
  INSUFFICIENT_SCOPE: 403,
  FEATURE_NOT_ENABLED: 403,
  PAGE_MEMBERS_ONLY: 403,
  CROSS_SITE_REQUEST: 403,
  PLATFORM_ONLY: 403,
  ORIGIN_NOT_ALLOWED: 403,
  SECRET_KEY_NOT_ALLOWED: 403,
  NOT_A_MEMBER: 403,
  NOT_A_LEADER: 403,
  FOUNDER_ONLY: 403,
  APPLICANT_BANNED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  EMAIL_IN_USE: 409,
  USERTAG_TAKEN: 409,
  PHONE_IN_USE: 409,
  LAST_SIGN_IN_METHOD: 409,
  FRIEND_REQUEST_EXISTS: 409,
  ALREADY_FRIENDS: 409,
  FRIEND_REQUEST_LIMIT: 409,
  FRIEND_REQUEST_COOLDOWN: 409,
  SEGMENT_NAME_TAKEN: 409,
  DOMAIN_TAKEN: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  PAYMENT_PROCESSOR_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorEnvelope = z
  .object({
    error: z.string().describe('Human-readable and unstable: do not match on it.'),
    code: z
      .enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]])
      .optional()
      .describe('Machine-readable and stable.'),
    requestId: z.string().optional(),
    extras: z
      .object({
        field: z.string().optional(),
        grantedScopes: z.array(z.string()).optional(),
        retryAfter: z.number().int().optional(),
      })
      .catchall(z.unknown())
      .optional(),
  })
  .meta({ id: 'Error' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * Schemas attach a stable code to a validation failure by writing the message as
 * `[CODE] text`; the validator turns that into `{code, error: text}`.
 */
export function coded(code: ErrorCode, message: string): string {
  return `[${code}] ${message}`;
}
export function splitCoded(message: string): { code?: ErrorCode; message: string } {
  const m = /^\[([A-Z_]+)\] (.*)$/s.exec(message);
  if (m && m[1] in ERROR_STATUS) return { code: m[1] as ErrorCode, message: m[2] };
  return { message };
}
