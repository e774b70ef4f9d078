import { describe, expect, it } from 'vitest';
import { LoginGuard } from '../../src/app/login-guard.ts';

describe('login guard', () => {
  const label = 'l1';
  const setup = () => {
    let now = 1_000_000;
    const guard = new LoginGuard({ windowMs: 60_000, perUser: 3, perAddress: 5 }, () => now);
    return { guard, advance: (ms: number) => (now += ms) };
  };

  it('lets a user try until the limit, then names the wait', () => {
    const { guard, advance } = setup();
    for (let i = 0; i < 3; i++) {
      expect(guard.retryAfter(label, 'Ada', '10.0.0.1')).toBeUndefined();
      guard.recordFailure(label, 'Ada', '10.0.0.1');
      advance(1000);
    }
    expect(guard.retryAfter(label, 'ada ', '10.0.0.2')).toBe(57); // same user, other address
    advance(57_000);
    expect(guard.retryAfter(label, 'ada', '10.0.0.2')).toBeUndefined();
  });

  it('counts per address across user names, and per label', () => {
    const { guard } = setup();
    for (let i = 0; i < 5; i++) guard.recordFailure(label, `u${i}`, '10.0.0.9');
    expect(guard.retryAfter(label, 'fresh', '10.0.0.9')).toBe(60);
    expect(guard.retryAfter(label, 'fresh', '10.0.0.8')).toBeUndefined();
    guard.recordFailure('l2', 'x', '10.0.0.7');
    expect(guard.retryAfter(label, 'x', '10.0.0.6')).toBeUndefined();
  });

  it("forgets a user's failures after a successful login", () => {
    const { guard } = setup();
    for (let i = 0; i < 3; i++) guard.recordFailure(label, 'bob', `10.0.0.${i}`);
    expect(guard.retryAfter(label, 'bob', '10.0.1.1')).toBeDefined();
    guard.recordSuccess(label, 'bob');
    expect(guard.retryAfter(label, 'bob', '10.0.1.1')).toBeUndefined();
  });
});
