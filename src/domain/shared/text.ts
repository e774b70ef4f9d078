/**
 * Text PostgreSQL cannot store: U+0000 (text columns refuse it) and lone UTF-16
 * surrogates (no UTF-8 encoding exists). Refused at the edge, once for every route, so
 * no such string is ever appended to an event a projection then cannot apply.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const NUL = /\u0000/;

export function badText(s: string): string | undefined {
  if (NUL.test(s)) return 'contains a NUL character (U+0000)';
  if (!s.isWellFormed()) return 'contains a lone surrogate (not valid Unicode)';
  return undefined;
}

/** The first string (value or key) in a JSON value that cannot be stored, with its path. */
export function findBadText(
  value: unknown,
  path: string[] = [],
): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = badText(value);
    return problem ? { path: path.join('.') || '(root)', problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findBadText(v, [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const keyProblem = badText(k);
      if (keyProblem) return { path: [...path, '(key)'].join('.'), problem: `a key ${keyProblem}` };
      const found = findBadText(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}
