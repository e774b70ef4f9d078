/**
 * Brute-force guard for logins: failed attempts are counted per label + user name and
 * per client address in a sliding window; past the limit the next attempt waits.
 * In memory, so per process: behind a load balancer each instance counts on its own.
 */
export interface GuardLimits {
  windowMs: number;
  perUser: number;
  perAddress: number;
}

export const DEFAULT_LIMITS: GuardLimits = { windowMs: 15 * 60_000, perUser: 5, perAddress: 20 };

export class LoginGuard {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: GuardLimits = DEFAULT_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const cutoff = this.now() - this.limits.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (kept.length > 0) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  private keys(labelId: string, userName: string, address: string) {
    return [
      { key: `u:${labelId}:${userName.trim().toLowerCase()}`, limit: this.limits.perUser },
      { key: `a:${address}`, limit: this.limits.perAddress },
    ];
  }

  /** Seconds to wait before another attempt, or undefined when one may be made now. */
  retryAfter(labelId: string, userName: string, address: string): number | undefined {
    let wait = 0;
    for (const { key, limit } of this.keys(labelId, userName, address)) {
      const recent = this.recent(key);
      if (recent.length >= limit) {
        const oldest = recent[recent.length - limit]!;
        wait = Math.max(wait, oldest + this.limits.windowMs - this.now());
      }
    }
    return wait > 0 ? Math.ceil(wait / 1000) : undefined;
  }

  recordFailure(labelId: string, userName: string, address: string): void {
    for (const { key } of this.keys(labelId, userName, address)) {
      this.failures.set(key, [...this.recent(key), this.now()]);
    }
  }

  /** A successful login clears the user's count (not the address's). */
  recordSuccess(labelId: string, userName: string): void {
    this.failures.delete(this.keys(labelId, userName, '')[0]!.key);
  }
}
