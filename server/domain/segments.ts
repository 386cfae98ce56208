// Segments (member tiers): the public list, a segment's form, whether an e-mail address already
// has a membership, and the admin's changes to prices and availability.
import type { FormField, Segment } from '../../contract/resources.ts';
import { INSTALLMENT_FIELDS, type CheckEmailStatus, type SegmentPatch } from '../../contract/routes/segments.ts';
import type { Selectable, Updateable } from 'kysely';
import { isUniqueViolation, type Db, type Trx } from '../db/index.ts';
import type { SegmentsTable } from '../db/schema.ts';
import { nowIso, parseJson, toBool } from '../db/ids.ts';
import { normalizeEmail } from './accounts.ts';
import { Refusal } from './refusal.ts';

type SegmentRow = Selectable<SegmentsTable> & { form_segment_id: string | null };

const num = (v: number | null) => (v === null ? null : Number(v));

function toSegment(r: SegmentRow): Segment {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    color: r.color,
    hasForm: r.form_segment_id !== null,
    currency: r.currency,
    priceMonthly: num(r.price_monthly),
    priceQuarterly: num(r.price_quarterly),
    priceYearly: num(r.price_yearly),
    priceOneTime: num(r.price_one_time),
    installmentTotalPrice: num(r.installment_total_price),
    installmentCount: num(r.installment_count),
    installmentIntervalMonths: num(r.installment_interval_months),
    accessDurationMonths: num(r.access_duration_months),
    installmentRenewsAnnually: toBool(Number(r.installment_renews_annually)),
    foundingPriceMonthly: num(r.founding_price_monthly),
    foundingPriceQuarterly: num(r.founding_price_quarterly),
    foundingPriceYearly: num(r.founding_price_yearly),
    foundingMemberCap: num(r.founding_member_cap),
    foundingMemberCount: Number(r.founding_member_count),
    isActive: toBool(Number(r.is_active)),
  };
}

const withForm = (db: Db | Trx) =>
  db
    .selectFrom('segments')
    .leftJoin('segment_forms', 'segment_forms.segment_id', 'segments.id')
    .selectAll('segments')
    .select('segment_forms.segment_id as form_segment_id');

/** Active segments in display order. */
export async function listPublicSegments(db: Db, communityId: string): Promise<Segment[]> {
  const rows = await withForm(db)
    .where('segments.community_id', '=', communityId)
    .where('segments.is_active', '=', 1)
    .orderBy('segments.sort_order')
    .orderBy('segments.name')
    .execute();
  return rows.map(toSegment);
}

async function findSegment(db: Db | Trx, communityId: string, segmentId: string): Promise<SegmentRow | undefined> {
  return withForm(db)
    .where('segments.community_id', '=', communityId)
    .where('segments.id', '=', segmentId)
    .executeTakeFirst();
}

/**
 * Any segment of the community, closed ones too: a form already open in a visitor's browser can
 * still be read, and submitting is where a closed segment is refused.
 */
export async function getSegmentForm(
  db: Db,
  communityId: string,
  segmentId: string,
): Promise<{ segmentId: string; schema: FormField[] } | null> {
  const row = await db
    .selectFrom('segments')
    .leftJoin('segment_forms', 'segment_forms.segment_id', 'segments.id')
    .select(['segments.id', 'segment_forms.schema'])
    .where('segments.community_id', '=', communityId)
    .where('segments.id', '=', segmentId)
    .executeTakeFirst();
  if (!row) return null;
  return { segmentId: row.id, schema: parseJson<FormField[]>(row.schema, []) };
}

export async function segmentExists(db: Db, communityId: string, segmentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('segments')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', segmentId)
    .executeTakeFirst();
  return Boolean(row);
}

/**
 * The membership status of an address in this community, whichever segment it is in (ALREADY_MEMBER
 * and APPLICATION_PENDING on submit are community-wide too). Compared case-insensitively, as
 * sign-in compares it.
 */
export async function checkEmail(
  db: Db,
  communityId: string,
  email: string,
): Promise<{ exists: boolean; status: CheckEmailStatus }> {
  const row = await db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select('memberships.status')
    .where((eb) => eb(eb.fn('lower', ['users.email']), '=', normalizeEmail(email)))
    .where('memberships.community_id', '=', communityId)
    .executeTakeFirst();
  // A paid application waiting for its checkout has no membership yet (or only an earlier
  // REJECTED one, which it is about to replace): it is what the address is doing now.
  if (!row || row.status === 'REJECTED') {
    const unpaid = await db
      .selectFrom('users')
      .innerJoin('membership_requests', 'membership_requests.user_id', 'users.id')
      .select('membership_requests.id')
      .where((eb) => eb(eb.fn('lower', ['users.email']), '=', normalizeEmail(email)))
      .where('membership_requests.community_id', '=', communityId)
      .where('membership_requests.status', '=', 'PAYMENT_PENDING')
      .executeTakeFirst();
    if (unpaid) return { exists: true, status: 'PAYMENT_PENDING' };
  }
  return row ? { exists: true, status: row.status } : { exists: false, status: 'NONE' };
}

/** The patch's own rules; those that depend on the stored row are checked in updateSegment. */
export function checkPatchShape(patch: SegmentPatch): Refusal<'installment_unit' | 'installment_partial'> | null {
  const sent = INSTALLMENT_FIELDS.filter((f) => patch[f] !== undefined);
  if (sent.length > 0 && sent.length < INSTALLMENT_FIELDS.length) {
    return new Refusal('installment_unit', { missing: INSTALLMENT_FIELDS.filter((f) => patch[f] === undefined) });
  }
  if (sent.length === 0) return null;
  const numbers = ['installmentTotalPrice', 'installmentCount', 'installmentIntervalMonths'] as const;
  const nulls = numbers.filter((f) => patch[f] === null);
  if (nulls.length > 0 && nulls.length < numbers.length) return new Refusal('installment_partial', { field: nulls[0] });
  return null;
}

const COLUMNS = {
  name: 'name',
  priceMonthly: 'price_monthly',
  priceQuarterly: 'price_quarterly',
  priceYearly: 'price_yearly',
  priceOneTime: 'price_one_time',
  installmentTotalPrice: 'installment_total_price',
  installmentCount: 'installment_count',
  installmentIntervalMonths: 'installment_interval_months',
  accessDurationMonths: 'access_duration_months',
} as const satisfies Partial<Record<keyof SegmentPatch, keyof SegmentsTable>>;

/**
 * Applies the fields sent; null on a price stops offering it. Refuses a segment not in this
 * community, a patch the segment cannot take, and a new name that is another segment's.
 */
export async function updateSegment(
  trx: Trx,
  communityId: string,
  segmentId: string,
  patch: SegmentPatch,
): Promise<Segment> {
  const shape = checkPatchShape(patch);
  if (shape) throw shape;
  const current = await findSegment(trx, communityId, segmentId);
  if (!current) throw new Refusal('segment_not_found');

  const set: Updateable<SegmentsTable> = {};
  for (const field of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
    if (patch[field] !== undefined) (set as Record<string, unknown>)[COLUMNS[field]] = patch[field];
  }
  if (patch.installmentRenewsAnnually !== undefined)
    set.installment_renews_annually = patch.installmentRenewsAnnually ? 1 : 0;
  if (patch.isActive !== undefined) set.is_active = patch.isActive ? 1 : 0;

  // Renewing every accessDurationMonths means nothing without a plan and a duration; judged on
  // the segment as it will be, so a patch cannot leave a stored renewal without its plan.
  const renews = patch.installmentRenewsAnnually ?? toBool(Number(current.installment_renews_annually));
  const plan =
    patch.installmentTotalPrice !== undefined
      ? patch.installmentTotalPrice !== null
      : current.installment_total_price !== null;
  const duration =
    patch.accessDurationMonths !== undefined ? patch.accessDurationMonths : current.access_duration_months;
  if (renews && (!plan || duration === null)) {
    const field = !plan
      ? 'installmentRenewsAnnually'
      : patch.accessDurationMonths === null
        ? 'accessDurationMonths'
        : 'installmentRenewsAnnually';
    throw new Refusal('renews_needs_plan', { field });
  }

  if (patch.name !== undefined && patch.name !== current.name) {
    const clash = await trx
      .selectFrom('segments')
      .select('id')
      .where('community_id', '=', communityId)
      .where('name', '=', patch.name)
      .where('id', '!=', segmentId)
      .executeTakeFirst();
    if (clash) throw new Refusal('segment_name_taken');
  }
  if (Object.keys(set).length > 0) {
    // The unique index still decides between two concurrent renames to the same name.
    try {
      await trx
        .updateTable('segments')
        .set({ ...set, updated_at: nowIso() })
        .where('id', '=', segmentId)
        .where('community_id', '=', communityId)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new Refusal('segment_name_taken');
      throw err;
    }
  }
  const updated = await findSegment(trx, communityId, segmentId);
  if (!updated) throw new Refusal('segment_not_found');
  return toSegment(updated);
}
