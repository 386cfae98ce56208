// Segments: the public list, a segment's form, check-email, and the admin's PATCH.
import type { Router } from 'express';
import { checkSegmentEmail, getSegmentForm, listPublicSegments, updateSegment } from '../../contract/routes/segments.ts';
import * as segments from '../domain/segments.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

export function mountSegments(router: Router, deps: RouteDeps): void {
  const { db } = deps;

  mountRoute(router, listPublicSegments, async ({ key }) => {
    return { body: await segments.listPublicSegments(db, key!.communityId) };
  }, deps, { cache: true });

  mountRoute(router, getSegmentForm, async ({ params, key }) => {
    const form = await segments.getSegmentForm(db, key!.communityId, params.segmentId);
    if (!form) throw notFound(messages.segmentNotFound);
    return { body: form };
  }, deps, { cache: true });

  // Not cached: the answer changes with every application, and the cache would hold e-mail addresses.
  mountRoute(router, checkSegmentEmail, async ({ params, query, key }) => {
    if (!(await segments.segmentExists(db, key!.communityId, params.segmentId))) throw notFound(messages.segmentNotFound);
    const answer = await segments.checkEmail(db, key!.communityId, query.email);
    // The publishable key is in every visitor's browser: it learns whether an address may apply,
    // never that it was rejected or banned (those read as NONE; a submit still refuses them).
    const hidden = key!.kind === 'publishable' && (answer.status === 'REJECTED' || answer.status === 'BANNED');
    return { body: hidden ? { exists: false, status: 'NONE' as const } : answer, headers: { 'Cache-Control': 'no-store' } };
  }, deps);

  mountRoute(router, updateSegment, async ({ params, body, key, transaction }) => {
    // Refused before the transaction opens, so a malformed plan never touches the database.
    const shape = segments.checkPatchShape(body);
    if (shape) throw shape;
    return transaction(async (trx) => ({ body: await segments.updateSegment(trx, key!.communityId, params.segmentId, body) }));
  }, deps);
}
