import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORDER_COMMAND_TYPES } from '../../../src/domain/order/decider.ts';

/** Every order command has a given/when/then spec: a new command without one fails here. */
describe("the order decider's specs", () => {
  it('cover every command', () => {
    const dir = import.meta.dirname;
    const specs = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter(
        (f) =>
          /^order.*\.test\.ts$/.test(path.basename(f)) && !f.endsWith('order-commands.test.ts'),
      )
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    expect(ORDER_COMMAND_TYPES.length).toBeGreaterThan(20);
    const without = ORDER_COMMAND_TYPES.filter((t) => !specs.includes(`type: '${t}'`));
    expect(without).toEqual([]);
  });
});
