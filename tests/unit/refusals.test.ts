// The one table from domain refusal to the API's error (server/http/refusals.ts): every reason
// answers with a code of the closed list, at that code's status, with a message.
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../contract/errors.ts';
import { Refusal } from '../../server/domain/refusal.ts';
import { ApiError } from '../../server/http/api-error.ts';
import { asApiError, REFUSALS, refusalError } from '../../server/http/refusals.ts';

describe('refusal table', () => {
  it('maps every reason to a declared code with its status', () => {
    const entries = Object.entries(REFUSALS);
    expect(entries.length).toBeGreaterThan(50);
    for (const [reason, answer] of entries) {
      expect(ERROR_STATUS, reason).toHaveProperty(answer.code);
      expect(answer.status, reason).toBe(ERROR_STATUS[answer.code]);
    }
  });

  it('answers a refusal with its code, message and extras', () => {
    const err = refusalError(new Refusal('sold_out', { remaining: 2 }));
    expect(err.toEnvelope('r1')).toEqual({
      error: 'Only 2 seats are left in this tier',
      code: 'UNPROCESSABLE',
      requestId: 'r1',
      extras: { field: 'quantity', remaining: 2 },
    });
    expect(refusalError(new Refusal('event_not_found')).toEnvelope()).toEqual({
      error: 'Event not found in this community',
      code: 'NOT_FOUND',
    });
    expect(refusalError(new Refusal('tier_is_paid', { slug: 'gala' })).message).toContain('/events/gala/checkout');
  });

  it("answers a rules acceptance's refusals as the rules route always has", () => {
    expect(refusalError(new Refusal('rules_version_mismatch', { asked: 3, currentVersion: 2 })).toEnvelope()).toEqual({
      error: "Rules version 3 is not this community's current rules version (2)",
      code: 'RULES_VERSION_MISMATCH',
      extras: { field: 'rulesVersion', currentVersion: 2 },
    });
    expect(refusalError(new Refusal('not_a_member')).toEnvelope()).toEqual({
      error: 'Only ACCEPTED members of this community can accept its rules',
      code: 'NOT_A_MEMBER',
      extras: { field: 'userId' },
    });
  });

  it('leaves anything that is not a refusal alone', () => {
    const other = new Error('boom');
    expect(asApiError(other)).toBe(other);
    expect(asApiError(new Refusal('invalid_cursor'))).toBeInstanceOf(ApiError);
  });
});
