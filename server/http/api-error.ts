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

export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
