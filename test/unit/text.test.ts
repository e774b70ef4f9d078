import { describe, expect, it } from 'vitest';
import { findBadText } from '../../src/domain/shared/text.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-depth.ts';

describe('text a store cannot hold', () => {
  it('finds the first bad string or key in document order, with its path', () => {
    expect(findBadText({ a: 'fine', b: ['ok', { 'k\u0000': 1 }], c: 'x\u0000' })).toEqual({
      path: 'b.1.(key)',
      problem: 'a key contains a NUL character (U+0000)',
    });
    expect(findBadText({ a: { c: ['x', 'y\ud800'] } }, ['body'])).toEqual({
      path: 'body.a.c.1',
      problem: 'contains a lone surrogate (not valid Unicode)',
    });
    expect(findBadText({ a: ['fine', { b: 'ü 🙂' }] })).toBeUndefined();
  });

  it('walks a value nested 100,000 deep without overflowing the stack', () => {
    let deep: unknown = 'bad\u0000';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const found = findBadText(deep);
    expect(found?.problem).toMatch(/NUL/);
    expect(found?.path.split('.')).toHaveLength(100_000);
  });
});

describe('JSON nesting depth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`)).toBe(true);
    expect(nestsDeeperThan(`{"s":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`)).toBe(false);
    // a deep body cut short is still deep (the parser refuses the rest)
    expect(nestsDeeperThan('['.repeat(200))).toBe(true);
  });
});
