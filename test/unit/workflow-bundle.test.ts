import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bundleKey,
  KEPT_BUNDLES,
  prune,
  workflowBundleFor,
} from '../../src/temporal/workflow-bundle.ts';

// a project's tree as the bundle's key reads it: workflows/, src/, the lock file
let root: string;
let workflows: string;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'bundle-key-'));
  write('workflows/index.ts', 'export * from "./sale";');
  write('workflows/sale.ts', 'export async function sale() {}');
  write('src/temporal/contract.ts', 'export const a = 1;');
  write('package-lock.json', '{"lockfileVersion":3}');
  workflows = path.join(root, 'workflows/index.ts');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the kept workflow bundle', () => {
  it('has the same name while nothing that goes into it changes', () => {
    const before = bundleKey(workflows, []);
    write('README.md', 'not a source');
    write('src/print/profiles/x.icc', 'not a source either');
    expect(bundleKey(workflows, [])).toBe(before);
  });

  it('is named anew by a change to a workflow, to any source under src/, to the lock file or to the interceptors', () => {
    const keys = new Set([bundleKey(workflows, [])]);
    write('workflows/sale.ts', 'export async function sale() { return 1; }');
    keys.add(bundleKey(workflows, []));
    write('src/temporal/contract.ts', 'export const a = 2;');
    keys.add(bundleKey(workflows, []));
    write('src/deep/new-file.ts', 'export const b = 1;');
    keys.add(bundleKey(workflows, []));
    write('package-lock.json', '{"lockfileVersion":3,"x":1}');
    keys.add(bundleKey(workflows, []));
    keys.add(bundleKey(workflows, [path.join(root, 'workflows/tracing.ts')]));
    expect(keys.size).toBe(6);
  });

  it('is read from node_modules/.cache when one was kept for these sources', async () => {
    mkdirSync(path.join(root, 'node_modules'));
    const kept = path.join(
      root,
      'node_modules/.cache/editor-platform/workflow-bundles',
      `${bundleKey(workflows, [])}.js`,
    );
    mkdirSync(path.dirname(kept), { recursive: true });
    writeFileSync(kept, '/* a bundle */');
    expect(await workflowBundleFor(workflows, [])).toEqual({ codePath: kept });
  });

  it(`keeps the newest ${KEPT_BUNDLES} bundles and no more`, () => {
    const dir = path.join(root, 'kept');
    mkdirSync(dir);
    for (let i = 0; i < KEPT_BUNDLES + 5; i++) {
      writeFileSync(path.join(dir, `b${i}.js`), '');
      utimesSync(path.join(dir, `b${i}.js`), 1_000 + i, 1_000 + i);
    }
    prune(dir);
    const left = readdirSync(dir).sort((a, b) => Number(a.slice(1, -3)) - Number(b.slice(1, -3)));
    expect(left).toEqual(Array.from({ length: KEPT_BUNDLES }, (_, i) => `b${i + 5}.js`));
  });
});
