// Payment settings, read from the environment once at start (see docs/payments.md).
import { z } from 'zod';
import { parseDuration } from '../shared/duration.ts';

export interface PaymentsConfig {
  /** `stripe` when STRIPE_SECRET_KEY is set; `local` (the hosted test checkout) on a development
   *  machine; `off` in production or on PostgreSQL without a Stripe key, unless SVC_PAYMENTS says. */
  gateway: 'stripe' | 'local' | 'off';
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  /** How long a checkout holds what it sells (seats, a founding price) before it expires. */
  checkoutTtlMs: number;
  /** How long after expires_at an open Stripe checkout is released by our own sweep, when
   *  Stripe's `checkout.session.expired` has not arrived: Stripe is the source of truth. */
  stripeExpiryGraceMs: number;
}

const Duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: 'a duration such as 30m, 2h or 45s' });
        return z.NEVER;
      }
      return ms;
    });

const PaymentsEnv = z.object({
  NODE_ENV: z.string().default('development'),
  DATABASE_URL: z.string().optional(),
  SVC_PAYMENTS: z.enum(['stripe', 'local', 'off']).optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(
      /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/,
      'a Stripe secret key (sk_test_..., sk_live_... or a restricted rk_ key)',
    )
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_]+$/, 'the whsec_... signing secret of the Stripe endpoint')
    .optional(),
  SVC_CHECKOUT_TTL: Duration('30m'),
});

/** Returns the settings, or the list of problems as lines for ConfigError. */
export function parsePaymentsConfig(env: Record<string, string | undefined>): PaymentsConfig | string[] {
  const parsed = PaymentsEnv.safeParse(env);
  if (!parsed.success) return parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const e = parsed.data;
  // The local checkout grants without money: only on a development machine (embedded SQLite, not
  // production) unless asked for by name.
  const development = e.NODE_ENV !== 'production' && !e.DATABASE_URL;
  const gateway = e.SVC_PAYMENTS ?? (e.STRIPE_SECRET_KEY ? 'stripe' : development ? 'local' : 'off');
  const problems: string[] = [];
  if (gateway === 'stripe' && !e.STRIPE_SECRET_KEY)
    problems.push('  STRIPE_SECRET_KEY: required when SVC_PAYMENTS=stripe');
  // Without the signing secret nothing could ever be fulfilled: every Stripe event would be refused.
  if (gateway === 'stripe' && !e.STRIPE_WEBHOOK_SECRET)
    problems.push(
      '  STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the whsec_ secret of your Stripe webhook endpoint)',
    );
  // Stripe accepts expires_at between 30 minutes and 24 hours from now.
  if (gateway === 'stripe' && (e.SVC_CHECKOUT_TTL < 30 * 60_000 || e.SVC_CHECKOUT_TTL > 24 * 3_600_000)) {
    problems.push('  SVC_CHECKOUT_TTL: must be between 30m and 24h with Stripe');
  }
  if (problems.length) return problems;
  return {
    gateway,
    stripeSecretKey: e.STRIPE_SECRET_KEY ?? null,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null,
    checkoutTtlMs: e.SVC_CHECKOUT_TTL,
    stripeExpiryGraceMs: 60 * 60_000,
  };
}
