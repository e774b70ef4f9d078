import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORDER_COMMAND_TYPES } from '../../../src/domain/order/decider.ts';

/**
 * Every order command has a given/when/then spec (test/unit/deciders/order/, one file per
 * part of the order's life): a new command without one fails here.
 */
describe("the order decider's specs", () => {
  it('cover every command', () => {
    const dir = path.join(import.meta.dirname, 'order');
    const specs = readdirSync(dir)
      .filter((f) => f.endsWith('.ts')) // the specs, and the commands their fixtures build
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    expect(ORDER_COMMAND_TYPES.length).toBeGreaterThan(20);
    const without = ORDER_COMMAND_TYPES.filter((t) => !specs.includes(`type: '${t}'`));
    expect(without).toEqual([]);
  });
});
