import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The rule of "What runs where" (docs/design-notes.md) as a fence: the code of the
 * processes that answer HTTP or run workflow tasks imports no library that decodes
 * images or draws PDFs, and none of the modules that draw; that work is a job of a pool
 * process (src/print/image-process.ts). An exception names why it is bounded.
 */
const MAIN_PROCESS = [
  'src/app',
  'src/http',
  'src/activities',
  'src/reactions',
  'src/webhooks/delivery',
  'src/bootstrap',
  'src/subscriptions',
  'src/temporal',
  'projections',
  'workflows',
];
const DRAWING = [
  /^sharp$/,
  /^@napi-rs\/canvas$/,
  /^pdfjs-dist/,
  /^pdf-lib$/,
  /^@pdf-lib\/fontkit$/,
  /^bwip-js$/,
  /\/print\/(packing-slip|render-job|preview|proof|pdf|images|slip-job|stored-render)\.ts$/,
  /\/production\/(impose|stored-imposition|job-sheet|xjdf|sheet|embed)\.ts$/,
  /\/mockup\/draw\.ts$/,
];
const ALLOWED: Record<string, string> = {
  'src/app/mockups.ts sharp':
    "reads the header of a mockup this service's own pool drew, never a client's upload",
  'src/app/batching-rules.ts ../production/impose.ts':
    "a rule's layout runs only when its pieces' area is under one sheet's (fillsASheet)",
  'src/activities/batches.ts ../production/impose.ts':
    'only the ImpositionError class, to tell a lasting failure; the imposition runs in the pool',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const full = path.join(dir, e);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Value imports (not `import type`) and dynamic imports of a file. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*import\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gm))
    out.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) out.push(m[1]!);
  return out;
}

describe('work off the event loop', () => {
  it('keeps image decoding and PDF drawing out of the processes that answer HTTP or run workflow tasks', () => {
    const found: string[] = [];
    for (const folder of MAIN_PROCESS)
      for (const file of sources(path.join(root, folder))) {
        const rel = path.relative(root, file);
        for (const spec of valueImports(file)) {
          const resolved = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : spec;
          if (!DRAWING.some((d) => d.test(resolved))) continue;
          if (!ALLOWED[`${rel} ${spec}`]) found.push(`${rel} imports ${spec}`);
        }
      }
    expect(found).toEqual([]);
  });

  it('fails when a main-process module imports a drawing library (the fence can fail)', () => {
    const spec = 'sharp';
    expect(DRAWING.some((d) => d.test(spec))).toBe(true);
    expect(ALLOWED[`src/http/routes/admin/branding.ts ${spec}`]).toBeUndefined();
  });
});
