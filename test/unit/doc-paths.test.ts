import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Docs that cannot go stale: every repository path the README, docs/ and the code's
// comments name must exist, and the README's layout names every folder of src/.

const root = fileURLToPath(new URL('../..', import.meta.url));
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const srcFolders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const GENERATED = ['dist', 'data', 'node_modules', 'test-results', 'coverage'];
const TOP = [
  'src',
  'workflows',
  'projections',
  'test',
  'bench',
  'scripts',
  'docs',
  'clients',
  '.ci',
];

/** The text of a file's comments: `//` and block comments in code, `#` lines in shell. */
function commentsOf(file: string, text: string): string {
  if (/\.(sh|py)$/.test(file) || file === '.ci/run')
    return text
      .split('\n')
      .filter((l) => /^\s*#/.test(l))
      .join('\n');
  // a `//` inside a string or a URL (`'http://'`, `` `//` ``) is not a comment
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w\\])\/\/.*$/gm)]
    .map((m) => m[0])
    .join('\n');
}

/**
 * The repository paths a text names: words that start with a top-level folder of the
 * repository (or, as the design notes write them, a folder of src/) and a slash. A word
 * with a placeholder or a glob (`<name>`, `*`, `${…}`) names a pattern, not a path.
 */
function pathsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w./@#:~-])([.\w][\w./<>*{}$-]*)/g)) {
    const word = m[1]!.replace(/[.,:;]+$/, '').replace(/^\.\//, '');
    const [top, ...rest] = word.split('/');
    if (rest.length === 0 || /[<>*{}$]/.test(word)) continue;
    // made by a build or a run (dist/, data/), under a setting (`DATA_DIR/…`), or relative
    // to a file's own folder (`../pdf.ts`): not the repository's
    if (GENERATED.includes(top!) || /^[A-Z_]+$/.test(top!) || top === '..') continue;
    if (TOP.includes(top!)) out.push(word);
    // `routes/orders/admin.ts`: a file named by the end of its path
    else if (/\.(ts|mjs|js|md|json|sh|sql)$/.test(word)) out.push(word);
  }
  return out;
}

/**
 * Whether a named path exists: from the repository's root, as a file, a folder or a module
 * named without `.ts`; a file named by the end of its path, as the end of a tracked file's.
 */
const exists = (p: string) =>
  TOP.includes(p.split('/')[0]!)
    ? [p, `${p}.ts`, `${p}.mjs`].some((c) => existsSync(path.join(root, c)))
    : tracked.some((f) => f.endsWith(`/${p}`));

describe('paths named in docs and comments', () => {
  it('finds a path that does not exist, and passes one that does', () => {
    // the block comment is put together, so this file holds no comment naming them
    const text = commentsOf(
      'x.ts',
      `// see src/app/nowhere.ts and src/config.ts; 'http://x/src/app/y.ts' is no path\n${'/'}* and docs/nothing.md *${'/'}`,
    );
    expect(pathsIn(text)).toEqual(['src/app/nowhere.ts', 'src/config.ts', 'docs/nothing.md']);
    expect(
      pathsIn('routes/orders/admin.ts and routes/orders/gone.ts').filter((p) => !exists(p)),
    ).toEqual(['routes/orders/gone.ts']);
    expect(pathsIn(text).filter((p) => !exists(p))).toEqual([
      'src/app/nowhere.ts',
      'docs/nothing.md',
    ]);
    expect(pathsIn('scripts/install-*.sh, test/<kind>/ and 12 files/s')).toEqual([]);
  });

  it('names only paths that exist, in README.md, docs/ and every comment of the code', () => {
    const stale: string[] = [];
    for (const file of tracked) {
      const doc = /^(README\.md|docs\/.+\.md)$/.test(file);
      const code =
        /^(src|workflows|projections|test|bench|scripts)\/.+\.(ts|mjs|js|sh|py)$/.test(file) ||
        file === '.ci/run';
      if (!doc && !code) continue;
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const p of pathsIn(doc ? text : commentsOf(file, text)))
        if (!exists(p)) stale.push(`${file}: ${p}`);
    }
    expect(stale).toEqual([]);
  });

  it('keeps every comment line within 100 columns, as biome keeps the code', () => {
    const long: string[] = [];
    // a single word (an example URL) is not broken
    for (const file of tracked.filter((f) =>
      /^(src|workflows|projections|test|bench|scripts)\/.+\.(ts|mjs)$/.test(f),
    ))
      for (const [i, line] of readFileSync(path.join(root, file), 'utf8').split('\n').entries())
        if (line.length > 100 && /^\s*(\/\/|\*|\/\*)\s*\S+\s\S/.test(line))
          long.push(`${file}:${i + 1}`);
    expect(long).toEqual([]);
  });

  it("lists every folder of src/ in the README's layout, one line each", () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const listed = new Set([...readme.matchAll(/^src\/([\w-]+)\//gm)].map((m) => m[1]!));
    expect(srcFolders.filter((f) => !listed.has(f))).toEqual([]);
  });
});
