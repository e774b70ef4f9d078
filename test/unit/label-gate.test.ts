import { describe, expect, it } from 'vitest';
import { LabelGate } from '../../src/app/label-gate.ts';
import { DomainError } from '../../src/domain/shared/decider.ts';

describe('LabelGate', () => {
  it("runs one label's requests one at a time, in order, and refuses past its waiting room; other labels pass", async () => {
    const gate = new LabelGate('batch requests', 2);
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = gate.run('a', async () => {
      order.push('a1 start');
      await held;
      order.push('a1 end');
    });
    const second = gate.run('a', async () => void order.push('a2'));
    const third = gate.run('a', async () => void order.push('a3'));
    const refused = await gate.run('a', async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'rate_limited', code: 'too_many_requests' });
    expect((refused as DomainError).details.retryAfterSeconds).toBe(2);
    // another label is not held behind label a
    expect(await gate.run('b', async () => 'b ran')).toBe('b ran');
    release();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['a1 start', 'a1 end', 'a2', 'a3']);
    // a failure frees the gate for the next
    await expect(gate.run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await gate.run('a', async () => 'after')).toBe('after');
  });
});
