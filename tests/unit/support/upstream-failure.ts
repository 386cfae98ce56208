// Shared by the chrome proxy's unit tests: the UpstreamError a promise is rejected with.
import { expect } from 'vitest';
import { UpstreamError } from '../../../server/site/proxy/upstream.ts';

/** The UpstreamError the promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}
