import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleOption } from '@temporalio/worker';

/*
 * The workflow bundle, made once per set of sources and kept on disk. Bundling workflows/
 * with webpack costs about 3 s of CPU; every process that runs a worker did it at its
 * start (each `npm start`, each restart, each test file's app). The bundle is kept under
 * node_modules/.cache, named by a hash of everything that can go into it: every source
 * file under workflows/ and src/ beside the workflows (a workflow may import from src/),
 * the lock file that fixes the versions of the packages it inlines, and the interceptor
 * modules. A change to any of them names another bundle, so a stale one is never used.
 * Where the cache cannot be written (a read-only image), the bundle is made in memory.
 */

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|json)$/;

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) hashTree(hash, file);
    else if (entry.isFile() && SOURCE.test(entry.name)) {
      hash.update(file);
      hash.update('\0');
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
}

/** the nearest folder at or above `dir` that holds `name` */
function findUp(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, name))) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * the name of the bundle that `workflowsPath` and `modules` make with the sources as they are now
 */
export function bundleKey(workflowsPath: string, modules: readonly string[]): string {
  const hash = createHash('sha256');
  // workflows/index.ts in the sources, dist/workflows/index.js compiled: its tree's root
  const tree = path.resolve(path.dirname(workflowsPath), '..');
  hash.update(JSON.stringify({ workflowsPath, modules }));
  hashTree(hash, path.join(tree, 'workflows'));
  hashTree(hash, path.join(tree, 'src'));
  const lockAt = findUp(tree, 'package-lock.json');
  if (lockAt) hash.update(readFileSync(path.join(lockAt, 'package-lock.json')));
  return hash.digest('hex').slice(0, 32);
}

/** where bundles are kept: node_modules/.cache of the project, if it has node_modules */
function cacheDir(workflowsPath: string): string | undefined {
  const at = findUp(path.dirname(workflowsPath), 'node_modules');
  return at
    ? path.join(at, 'node_modules', '.cache', 'editor-platform', 'workflow-bundles')
    : undefined;
}

/** bundles kept at most: each change of the sources makes one of about 1.6 MB */
export const KEPT_BUNDLES = 8;

/** the newest KEPT_BUNDLES stay, the rest go */
export function prune(dir: string): void {
  const bundles = readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ file: path.join(dir, name), at: statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of bundles.slice(KEPT_BUNDLES)) rmSync(old.file, { force: true });
}

/**
 * The bundle for a worker: the kept one when the sources have not changed since it was
 * made, else a new one, kept for the next process.
 */
export async function workflowBundleFor(
  workflowsPath: string,
  modules: readonly string[],
): Promise<WorkflowBundleOption> {
  const dir = cacheDir(workflowsPath);
  const key = bundleKey(workflowsPath, modules);
  const codePath = dir ? path.join(dir, `${key}.js`) : undefined;
  if (codePath && existsSync(codePath)) return { codePath };
  const made = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [...modules],
    logger: new DefaultLogger('WARN'),
  });
  if (dir && codePath) {
    // written aside and renamed: a process starting meanwhile sees the whole file or none
    const aside = `${codePath}.${process.pid}.tmp`;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(aside, made.code);
      renameSync(aside, codePath);
      prune(dir);
    } catch {
      rmSync(aside, { force: true });
    }
  }
  return made;
}
