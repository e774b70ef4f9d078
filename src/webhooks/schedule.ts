import { createHash } from 'node:crypto';

/**
 * When a webhook delivery is tried (the Standard Webhooks schedule): at once, then 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the attempt before, each
 * +-10% at random: ten attempts over 75.6 hours (a little over three days).
 */
export const RETRY_DELAYS_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

export const ATTEMPTS = RETRY_DELAYS_MS.length;

/** A receiver's `Retry-After` is honoured up to this (a day: the schedule's longest wait). */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * The wait before attempt `attempt` (1-based; 1 is at once), or undefined when no
 * attempt is left. `random` is in [0, 1) (the workflow's deterministic one); `scale`
 * compresses the schedule (tests, benchmarks); `retryAfterMs` is a receiver's wish
 * (not compressed: it is the receiver's clock), which replaces the wait when longer.
 */
export function delayBefore(
  attempt: number,
  random: number,
  options: { retryAfterMs?: number | undefined; scale?: number } = {},
): number | undefined {
  if (attempt < 1 || attempt > ATTEMPTS) return undefined;
  const base = RETRY_DELAYS_MS[attempt - 1]!;
  const jittered = base * (0.9 + 0.2 * random);
  const wished = Math.min(options.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return Math.round(Math.max(jittered * (options.scale ?? 1), wished));
}

/** An endpoint that has failed every delivery for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** A `Retry-After` header (seconds, or an HTTP date) in milliseconds from `now`. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * When attempt `attempt + 1` of a delivery run is due, after attempt `attempt` ended at
 * `at` without delivering; undefined when none is left. The jitter comes from the run's
 * own name, so the same attempt always gets the same time.
 */
export function nextAttemptAt(
  run: { deliveryId: string; run: number },
  attempt: number,
  at: Date,
  options: { retryAfterMs?: number | undefined; scale?: number } = {},
): Date | undefined {
  const digest = createHash('sha256')
    .update(`${run.deliveryId}:${run.run}:${attempt + 1}`)
    .digest();
  const wait = delayBefore(attempt + 1, digest.readUInt32BE(0) / 2 ** 32, options);
  return wait === undefined ? undefined : new Date(at.getTime() + wait);
}
