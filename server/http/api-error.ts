// The one error type handlers throw. Its status comes from the closed code list in contract/.
import { ERROR_STATUS, type ErrorCode } from '../../contract/errors.ts';

export interface ErrorExtras {
  field?: string;
  grantedScopes?: string[];
  retryAfter?: number;
  [key: string]: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras?: ErrorExtras,
    /** Headers the response must carry, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  toEnvelope(requestId?: string) {
    return {
      error: this.message,
      code: this.code,
      ...(requestId ? { requestId } : {}),
      ...(this.extras && Object.keys(this.extras).length ? { extras: this.extras } : {}),
    };
  }
}

/**
 * A handler's answer with this request's id in it when it is an error envelope: handlers that
 * answer an error instead of throwing it (to commit work with it) cannot know the id, and an
 * idempotent replay must carry the id of the request it answers, not of the first one.
 */
export function withRequestId(body: unknown, requestId: string): unknown {
  if (body === null || typeof body !== 'object' || typeof (body as { error?: unknown }).error !== 'string') return body;
  const { error, code, extras } = body as { error: string; code?: string; extras?: unknown };
  return { error, ...(code ? { code } : {}), requestId, ...(extras ? { extras } : {}) };
}

export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
