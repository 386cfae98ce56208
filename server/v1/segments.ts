// Segments: the public list, a segment's form, check-email, and the admin's PATCH.
import * as routes from '../../contract/routes/segments.ts';
import * as segments from '../domain/segments.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';

async function getSegmentForm({ params, key }: HandlerContext<typeof routes.getSegmentForm>, { db }: RouteDeps) {
  const form = await segments.getSegmentForm(db, key.communityId, params.segmentId);
  if (!form) throw notFound(messages.segmentNotFound);
  return { body: form };
}

async function checkSegmentEmail(
  { params, query, key }: HandlerContext<typeof routes.checkSegmentEmail>,
  { db }: RouteDeps,
) {
  if (!(await segments.segmentExists(db, key.communityId, params.segmentId))) throw notFound(messages.segmentNotFound);
  const answer = await segments.checkEmail(db, key.communityId, query.email);
  // The publishable key is in every visitor's browser: it learns whether an address may apply,
  // never that it was rejected or banned (those read as NONE; a submit still refuses them).
  const hidden = key.kind === 'publishable' && (answer.status === 'REJECTED' || answer.status === 'BANNED');
  return {
    body: hidden ? { exists: false, status: 'NONE' as const } : answer,
    headers: { 'Cache-Control': 'no-store' },
  };
}

async function updateSegment({ params, body, key, transaction }: HandlerContext<typeof routes.updateSegment>) {
  // Refused before the transaction opens, so a malformed plan never touches the database.
  const shape = segments.checkPatchShape(body);
  if (shape) throw shape;
  return transaction(async (trx) => ({
    body: await segments.updateSegment(trx, key.communityId, params.segmentId, body),
  }));
}

export const segmentHandlers = {
  listPublicSegments: {
    cache: true,
    handler: async ({ key }, { db }) => ({ body: await segments.listPublicSegments(db, key.communityId) }),
  },
  getSegmentForm: { cache: true, handler: getSegmentForm },
  // Not cached: the answer changes with every application, and the cache would hold e-mail addresses.
  checkSegmentEmail,
  updateSegment,
} satisfies Handlers<RoutesOf<typeof routes>>;
