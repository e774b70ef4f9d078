import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DomainError } from '../domain/shared/decider.ts';

/**
 * Counters behind the editor's signup, login and forgot password, in PostgreSQL so every
 * instance shares them. A bucket is a fixed window: an attempt takes a slot atomically
 * before the partner is called, so concurrent attempts cannot all slip through. Buckets
 * are named by a hash: no user name or address is stored in the clear.
 */
export const AUTH_THROTTLE_SCHEMA = `
CREATE TABLE IF NOT EXISTS auth_throttle (
  bucket      text PRIMARY KEY,
  hits        integer NOT NULL,
  window_ends timestamptz NOT NULL
);`;

const MINUTE = 60_000;

/** The limits, documented in docs/api.md. */
export const THROTTLE = {
  /** login attempts per label and user name, from anywhere; a success clears them */
  loginPerUser: { limit: 5, windowMs: 15 * MINUTE },
  /** failed logins per address before each further attempt from it is slowed down */
  loginFailuresPerAddress: { limit: 20, windowMs: 15 * MINUTE },
  /** how much each failure past that limit slows the next attempt, and the most */
  slowdownStepMs: 500,
  slowdownMaxMs: 10_000,
  signupPerAddress: { limit: 10, windowMs: 60 * MINUTE },
  signupPerUser: { limit: 3, windowMs: 60 * MINUTE },
  forgotPerAddress: { limit: 10, windowMs: 60 * MINUTE },
  forgotPerUser: { limit: 3, windowMs: 60 * MINUTE },
} as const;

type Limit = { limit: number; windowMs: number };

export class TooManyAttempts extends DomainError {
  constructor(what: string, retryAfterSeconds: number) {
    super(
      'rate_limited',
      `too many ${what}; try again in ${retryAfterSeconds} s`,
      'too_many_attempts',
      { retryAfterSeconds },
    );
  }
}

const bucketOf = (...parts: string[]) =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex');
const userKey = (labelId: string, userName: string) => [labelId, userName.trim().toLowerCase()];

export class AuthThrottle {
  constructor(
    private readonly pool: pg.Pool,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Takes a slot; answers how many the window holds now and when it ends (seconds). */
  private async take(bucket: string, windowMs: number): Promise<{ hits: number; endsIn: number }> {
    const r = await this.pool.query<{ hits: number; ends_in: number }>(
      `INSERT INTO auth_throttle (bucket, hits, window_ends) VALUES ($1, 1, now() + $2::interval)
       ON CONFLICT (bucket) DO UPDATE SET
         hits = CASE WHEN auth_throttle.window_ends <= now() THEN 1 ELSE auth_throttle.hits + 1 END,
         window_ends = CASE WHEN auth_throttle.window_ends <= now() THEN now() + $2::interval
                            ELSE auth_throttle.window_ends END
       RETURNING hits, ceil(extract(epoch FROM window_ends - now()))::int AS ends_in`,
      [bucket, `${windowMs} milliseconds`],
    );
    if (Math.random() < 0.01) {
      // now and then, the windows that are over
      await this.pool.query('DELETE FROM auth_throttle WHERE window_ends < now()');
    }
    const row = r.rows[0]!;
    return { hits: row.hits, endsIn: Math.max(1, row.ends_in) };
  }

  private async peek(bucket: string): Promise<number> {
    const r = await this.pool.query<{ hits: number }>(
      'SELECT hits FROM auth_throttle WHERE bucket = $1 AND window_ends > now()',
      [bucket],
    );
    return r.rows[0]?.hits ?? 0;
  }

  private async limited(what: string, bucket: string, l: Limit): Promise<void> {
    const { hits, endsIn } = await this.take(bucket, l.windowMs);
    if (hits > l.limit) throw new TooManyAttempts(what, endsIn);
  }

  /**
   * Before a login is sent to the partner: takes the user's slot (429 past the limit)
   * and waits the address's slowdown, if it has failed often. Returns what to call with
   * the outcome.
   */
  async beforeLogin(labelId: string, userName: string, address: string) {
    const user = bucketOf('login-user', ...userKey(labelId, userName));
    const addressFailures = bucketOf('login-failures-address', address);
    await this.limited('login attempts for this user', user, THROTTLE.loginPerUser);
    const failures = await this.peek(addressFailures);
    const over = failures - THROTTLE.loginFailuresPerAddress.limit;
    if (over >= 0) {
      await this.sleep(Math.min(THROTTLE.slowdownMaxMs, (over + 1) * THROTTLE.slowdownStepMs));
    }
    return {
      /** the partner knew the user: the user's count starts again */
      succeeded: async () => {
        await this.pool.query('DELETE FROM auth_throttle WHERE bucket = $1', [user]);
      },
      /** the partner said no: the attempt stays counted, and the address has one failure more */
      rejected: async () => {
        await this.take(addressFailures, THROTTLE.loginFailuresPerAddress.windowMs);
      },
      /** the partner could not answer: not the user's fault, the slot is given back */
      unanswered: async () => {
        await this.pool.query(
          'UPDATE auth_throttle SET hits = greatest(0, hits - 1) WHERE bucket = $1',
          [user],
        );
      },
    };
  }

  /** Before a signup is sent to the partner: per address and per user name. */
  async beforeSignup(labelId: string, userName: string, address: string): Promise<void> {
    await this.limited(
      'signups from this address',
      bucketOf('signup-address', address),
      THROTTLE.signupPerAddress,
    );
    await this.limited(
      'signups for this user name',
      bucketOf('signup-user', ...userKey(labelId, userName)),
      THROTTLE.signupPerUser,
    );
  }

  /** Before a password reset is sent to the partner: per address and per user name. */
  async beforeForgotPassword(labelId: string, userName: string, address: string): Promise<void> {
    await this.limited(
      'password resets from this address',
      bucketOf('forgot-address', address),
      THROTTLE.forgotPerAddress,
    );
    await this.limited(
      'password resets for this user name',
      bucketOf('forgot-user', ...userKey(labelId, userName)),
      THROTTLE.forgotPerUser,
    );
  }
}
