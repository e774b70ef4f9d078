import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { evaluate, NotReady } from '../../src/health/readiness.ts';

/** Keeps this process off its loop for `ms`, as a starved or stalled process is. */
const stall = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
};

describe('readiness', () => {
  it('takes an answer that came in time though the loop got to it late', async () => {
    // one request to the thread pool, done while the loop is stalled past the 2-s limit
    // (as a database's answer waits in its socket)
    const result = evaluate([
      { name: 'slow loop', check: async () => void (await stat(import.meta.filename)) },
    ]);
    stall(2300);
    expect(await result).toEqual({ ready: true, checks: { 'slow loop': { ok: true } } });
  });

  it('is not ready when a check does not answer within its limit, or fails, saying which', async () => {
    const result = await evaluate([
      { name: 'silent', check: () => new Promise<void>(() => {}) },
      {
        name: 'refusing',
        check: async () => {
          throw new NotReady('the database does not answer');
        },
      },
      { name: 'fine', check: async () => {} },
    ]);
    expect(result).toEqual({
      ready: false,
      checks: {
        silent: { ok: false, error: 'no answer within 2000 ms' },
        refusing: { ok: false, error: 'the database does not answer' },
        fine: { ok: true },
      },
    });
  });
});
