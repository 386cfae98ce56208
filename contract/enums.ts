// Closed value sets of the wire format. Every enum the spec names lives here once.
import { z } from 'zod';

export const SCOPES = ['READ_PUBLIC', 'WRITE_MEMBERS', 'WRITE_SALES', 'WRITE_BROADCASTS', 'ADMIN'] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const EventFormat = z.enum(['online', 'in_person', 'hybrid']);
export const ArticleStatus = z.enum(['DRAFT', 'PUBLISHED']);
export const MembershipStatus = z.enum(['PENDING', 'ACCEPTED', 'REJECTED', 'BANNED']);
export const Visibility = z.enum(['PUBLIC', 'MEMBERS_ONLY']);
export const Accessibility = z.enum(['OPEN', 'APPLICATION', 'INVITE_ONLY']);
export const PAGE_KEYS = ['HOME', 'EVENTS', 'MARKETPLACE', 'FEED', 'MEMBERS', 'ATLAS', 'BLOG', 'CHAT'] as const;
export const PageKey = z.enum(PAGE_KEYS);
export const BillingCycle = z.enum(['MONTHLY', 'QUARTERLY', 'YEARLY', 'ONE_TIME', 'INSTALLMENT_PLAN']);
export const DonationMode = z.enum(['fixed', 'pwyw']);
/** Features a community can have switched on; a feature that is off answers 403 FEATURE_NOT_ENABLED. */
export const Feature = z.enum(['atlas', 'marketplace', 'donations', 'broadcasts']);
export type Feature = z.infer<typeof Feature>;
