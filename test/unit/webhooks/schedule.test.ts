import { describe, expect, it } from 'vitest';
import {
  ATTEMPTS,
  delayBefore,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  RETRY_DELAYS_MS,
} from '../../../src/webhooks/schedule.ts';

const H = 3_600_000;

describe('the webhook retry schedule', () => {
  it('is the Standard Webhooks one: at once, 5 s, 5 min, 30 min, 2, 5, 10, 14, 20 and 24 h', () => {
    expect(RETRY_DELAYS_MS).toEqual([
      0,
      5_000,
      300_000,
      1_800_000,
      2 * H,
      5 * H,
      10 * H,
      14 * H,
      20 * H,
      24 * H,
    ]);
    expect(ATTEMPTS).toBe(10);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / (24 * H)).toBeCloseTo(3.15, 2); // 75.6 hours: over three days
  });

  it('jitters each wait by at most 10% either way', () => {
    expect(delayBefore(2, 0)).toBe(4_500);
    expect(delayBefore(2, 0.5)).toBe(5_000);
    expect(delayBefore(2, 0.999_999)).toBe(5_500);
    expect(delayBefore(10, 0)).toBe(Math.round(24 * H * 0.9));
  });

  it('tries the first time at once and stops after the tenth', () => {
    expect(delayBefore(1, 0.7)).toBe(0);
    expect(delayBefore(11, 0.5)).toBeUndefined();
    expect(delayBefore(0, 0.5)).toBeUndefined();
  });

  it("takes a receiver's Retry-After when it is longer, up to a day", () => {
    expect(delayBefore(2, 0.5, { retryAfterMs: 60_000 })).toBe(60_000);
    expect(delayBefore(4, 0.5, { retryAfterMs: 60_000 })).toBe(1_800_000);
    expect(delayBefore(2, 0.5, { retryAfterMs: 10 * 24 * H })).toBe(MAX_RETRY_AFTER_MS);
  });

  it('compresses by the scale, but not the Retry-After', () => {
    expect(delayBefore(3, 0.5, { scale: 0.001 })).toBe(300);
    expect(delayBefore(3, 0.5, { scale: 0.001, retryAfterMs: 2_000 })).toBe(2_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
