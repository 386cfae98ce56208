// zod failures -> the 400 envelope with `extras.field`. Schemas may pin a stable code by writing
// their message as `[CODE] text` (see contract/errors.ts `coded`).
import type { z } from 'zod';
import { splitCoded } from '../../contract/errors.ts';
import { ApiError } from './api-error.ts';
import { messages } from './messages.ts';

export function toApiError(error: z.ZodError, where: 'params' | 'query' | 'body'): ApiError {
  const issue = error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]].join('.');
    return new ApiError('INVALID_INPUT', messages.unknownField(field), { field });
  }
  const field = path.length ? path.join('.') : where;
  const { code, message } = splitCoded(issue.message);
  // Required fields read better as "x is required" than zod's "expected string, received undefined".
  const text = issue.code === 'invalid_type' && /received undefined/.test(issue.message)
    ? `${field} is required`
    : `${field}: ${message}`;
  return new ApiError(code ?? 'INVALID_INPUT', text, { field });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: 'params' | 'query' | 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toApiError(result.error, where);
  return result.data;
}
