// Building blocks shared by resource, request and fixture schemas.
import { z } from 'zod';
import { coded } from './errors.ts';

export const Uuid = z.string().uuid();
export const IsoDateTime = z.iso.datetime({ offset: true, error: coded('INVALID_DATE', 'must be an ISO 8601 date-time') });
export const Slug = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, { error: coded('INVALID_SLUG', 'must be lowercase letters, digits and single hyphens') });
export const CommunityTag = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, { error: coded('INVALID_SLUG', 'must be lowercase letters, digits and hyphens') });
export const Email = z.email({ error: coded('INVALID_EMAIL', 'must be an e-mail address') }).max(254);
/** The page-visibility rule of the reads of a page's content, for route descriptions (docs/api.md). */
export const pageVisibilityNote = (page: string) =>
  `When the ${page} page is members-only, the publishable key gets 403 PAGE_MEMBERS_ONLY; secret keys are not gated by page visibility.`;
/** Money in the smallest currency unit. */
export const AmountCents = z.int({ error: coded('INVALID_AMOUNT', 'must be a non-negative integer in the smallest currency unit') })
  .min(0, { error: coded('INVALID_AMOUNT', 'must be a non-negative integer in the smallest currency unit') });
export const Currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code')
  .overwrite((c) => c.toUpperCase());
export const HexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex color');
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

/** Query-string boolean: only `true`/`false`/`1`/`0` are accepted, anything else is a 400. */
export const QueryBool = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

export const Limit = z.coerce.number({ error: 'must be an integer from 1 to 100' }).int('must be an integer from 1 to 100').min(1).max(100).default(20);
/** Without a default, so a list can tell "no offset" (cursor paging allowed) from `offset=0`. */
export const OptionalOffset = z.coerce.number({ error: 'must be a non-negative integer' }).int('must be a non-negative integer').min(0).optional();
