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

type Found = { path: string; problem: string };
/** A place in the value: its key and its parent's place (shared, never copied). */
type Place = { key: string; parent: Place | undefined } | undefined;

const pathOf = (place: Place): string[] => {
  const keys: string[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return keys.reverse();
};

/**
 * The first string (value or key) in a JSON value that cannot be stored, with its path.
 * Walked with a stack of its own, not by recursion, and places kept as links to their
 * parents: any depth of nesting costs time and memory in proportion to the value's size.
 */
/** a stream (a body a route reads itself): its own parser refuses bad text as it reads */
const isStream = (v: object) => typeof (v as { pipe?: unknown }).pipe === 'function';

export function findBadText(value: unknown, path: string[] = []): Found | undefined {
  const root = path.reduce<Place>((parent, key) => ({ key, parent }), undefined);
  const at = (place: Place) => pathOf(place).join('.') || '(root)';
  // each entry is a value still to look into, or a bad key already found, in document order
  const stack: ({ value: unknown; place: Place } | { found: Found })[] = [{ value, place: root }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ('found' in next) return next.found;
    const { value: v, place } = next;
    if (typeof v === 'string') {
      const problem = badText(v);
      if (problem) return { path: at(place), problem };
    } else if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      // bytes (an image body) hold no text: walking a 1.5 MB Buffer as an object made
      // 1.5 million entries on the event loop (250 MB of heap, a second and more)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], place: { key: String(i), parent: place } });
    } else if (v && typeof v === 'object' && !isStream(v)) {
      // walking a stream body (a data set) would walk its socket and the server behind it
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        stack.push({ value: x, place: { key: k, parent: place } });
        const keyProblem = badText(k);
        if (keyProblem)
          stack.push({
            found: { path: at({ key: '(key)', parent: place }), problem: `a key ${keyProblem}` },
          });
      }
    }
  }
  return undefined;
}
