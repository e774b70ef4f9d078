import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The layers of the code, lowest first. A file may import its own layer and those below
 * it, never one above: imports run one way, down.
 */
const LAYERS: [name: string, folders: string[]][] = [
  ['domain', ['src/domain']],
  [
    'infrastructure',
    [
      'src/db',
      'src/eventstore',
      'src/storage',
      'src/print',
      'src/datasets',
      'src/mockup',
      'src/production',
      'src/webhooks',
      'src/partner',
      'src/outgoing',
      'src/metrics',
      'src/shares',
      'src/files',
      'src/telemetry',
      'src/errors.ts',
      'src/processes.ts',
      'src/config.ts',
      'src/temporal/contract.ts',
      'src/temporal/calls.ts',
      'src/temporal/pollers.ts',
      'src/temporal/dev-server.ts',
    ],
  ],
  ['read models and runners', ['projections', 'src/subscriptions']],
  ['use cases', ['src/app']],
  [
    'workflows, activities, reactions',
    // webhook delivery sends from the queue and records through the use cases' command
    // handler: a worker's part, above the webhooks' infrastructure (src/webhooks)
    ['workflows', 'src/activities', 'src/reactions', 'src/temporal', 'src/webhooks/delivery'],
  ],
  ['health, HTTP', ['src/health', 'src/http']],
  ['composition', ['src/bootstrap', 'src/cli', 'src/main.ts']],
];

function layerOf(file: string): number {
  const rel = path.relative(root, file);
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach(([, folders], i) => {
    for (const f of folders) {
      if ((rel === f || rel.startsWith(`${f}/`)) && f.length > bestLength) {
        best = i;
        bestLength = f.length;
      }
    }
  });
  return best;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const full = path.join(dir, e);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) out.push(path.resolve(path.dirname(file), spec));
    else if (spec.startsWith('#projections/'))
      out.push(path.join(root, 'projections', spec.slice('#projections/'.length)));
  }
  return out;
}

describe('layering', () => {
  it('has no import that runs up: domain < infrastructure < read models < use cases < workflows < HTTP < composition', () => {
    const files = ['src', 'projections', 'workflows'].flatMap((d) => sources(path.join(root, d)));
    const upward: string[] = [];
    const unplaced: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from < 0) unplaced.push(path.relative(root, file));
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (to > from)
          upward.push(
            `${path.relative(root, file)} (${LAYERS[from]?.[0] ?? 'unplaced'}) -> ${path.relative(root, target)} (${LAYERS[to]?.[0]})`,
          );
      }
    }
    expect(unplaced).toEqual([]);
    expect(upward).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it('keeps the Temporal border one contract: workflows import only it, activities no workflow', () => {
    const contract = path.join(root, 'src/temporal/contract.ts');
    const wrong: string[] = [];
    for (const file of sources(path.join(root, 'workflows'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1]!;
        const target = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : undefined;
        const allowed = target
          ? target === contract || target.startsWith(path.join(root, 'workflows') + path.sep)
          : ['@temporalio/workflow', '@temporalio/common'].includes(spec);
        if (!allowed) wrong.push(`${path.relative(root, file)} -> ${spec}`);
      }
    }
    for (const dir of ['src/activities', 'src/temporal']) {
      for (const file of sources(path.join(root, dir))) {
        if (file === contract || file.endsWith('workflow-starts.ts') || file.endsWith('worker.ts'))
          continue;
        for (const target of importsOf(file))
          if (target.startsWith(path.join(root, 'workflows') + path.sep))
            wrong.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
      }
    }
    // the contract stands on its own: nothing of the service below it to drag along
    const own = importsOf(contract);
    expect(own).toEqual([]);
    expect(wrong).toEqual([]);
  });

  it('has no import cycle', () => {
    const files = ['src', 'projections', 'workflows'].flatMap((d) => sources(path.join(root, d)));
    const edges = new Map(
      files.map((f) => [f, importsOf(f).map((t) => (t.endsWith('.ts') ? t : `${t}.ts`))]),
    );
    // Tarjan's strongly connected components: a component of more than one file is a cycle
    let index = 0;
    const at = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      at.set(v, index);
      low.set(v, index++);
      stack.push(v);
      onStack.add(v);
      for (const w of edges.get(v) ?? []) {
        if (!edges.has(w)) continue;
        if (!at.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, at.get(w)!));
      }
      if (low.get(v) === at.get(v)) {
        const component: string[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          component.push(path.relative(root, w));
          if (w === v) break;
        }
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const f of files) if (!at.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('keeps the domain free of anything but zod and node:crypto', () => {
    const outside = sources(path.join(root, 'src/domain')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(IMPORT)]
        .map((m) => m[1]!)
        .filter((spec) => !spec.startsWith('.') && !['zod', 'node:crypto'].includes(spec))
        .map((spec) => `${path.relative(root, file)}: ${spec}`),
    );
    expect(outside).toEqual([]);
  });
});
