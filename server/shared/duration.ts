// Durations as the environment and the CLI spell them. Imports nothing of ours, so config of
// every part (mail, payments, webhooks) can read it without importing server/config.ts.
const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `250ms`, `30s`, `5m`, `2h`, `1d` -> milliseconds; null when it is none of those. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : null;
}
