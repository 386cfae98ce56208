// Table types of migration 0017_membership_billing (see server/db/schema.ts for the storage conventions).
import type { z } from 'zod';
import type { BillingCycle as BillingCycleSchema } from '../../contract/enums.ts';
import type { GatewayName } from './schema-payments.ts';

type BillingCycle = z.infer<typeof BillingCycleSchema>;

export type MembershipBillingStatus = 'ACTIVE' | 'ENDED' | 'LAPSED' | 'REFUNDED';

export interface MembershipBillingTable {
  id: string;
  community_id: string;
  membership_id: string;
  user_id: string;
  segment_id: string;
  request_id: string;
  checkout_session_id: string;
  gateway: GatewayName;
  billing_cycle: BillingCycle;
  currency: string;
  /** Per charge, minor units, fixed at purchase. */
  unit_amount: number;
  /** Installment rounding remainder, charged with a cycle's first installment. */
  first_charge_extra: number;
  founding: number;
  interval_months: number | null;
  installments_total: number | null;
  installments_paid: number;
  access_months: number | null;
  renews_annually: number;
  access_until: string | null;
  next_charge_at: string | null;
  processor_subscription_id: string | null;
  status: MembershipBillingStatus;
  created_at: string;
  updated_at: string;
}

export interface MembershipChargesTable {
  transaction_id: string;
  billing_id: string;
  kind: 'INITIAL' | 'RENEWAL';
  amount: number;
  currency: string;
  access_until: string | null;
  charged_at: string;
}

export interface MembershipBillingTables {
  membership_billing: MembershipBillingTable;
  membership_charges: MembershipChargesTable;
}
