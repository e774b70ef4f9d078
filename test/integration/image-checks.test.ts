import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  newLabel,
  settled,
  snapshot,
} from '../helpers/fixtures.ts';

/**
 * CPU seconds this process and its children have used: its own, its ended children's
 * (reaped: counted in its cutime/cstime) and its live image processes'.
 */
function treeCpuSeconds(t: TestApp): number {
  const stat = (path: string) => {
    try {
      const s = readFileSync(path, 'utf8');
      return s
        .slice(s.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
    } catch {
      return undefined; // ended meanwhile: its time is in ours once reaped
    }
  };
  const self = stat('/proc/self/stat')!;
  let ticks = self[11]! + self[12]! + self[13]! + self[14]!;
  for (const pid of t.app.context.imageChecks.pids) {
    const c = stat(`/proc/${pid}/stat`);
    if (c) ticks += c[11]! + c[12]!;
  }
  return ticks / 100;
}

/**
 * How busy the process tree is: cores used on average over a window, the lesser of two
 * windows one after the other. Work that holds a core holds it in both; a moment's work
 * of the test's own process (a collection, a reaped child's account) falls in one.
 */
async function coresBusy(t: TestApp, ms: number): Promise<number> {
  const windows: number[] = [];
  for (let i = 0; i < 2; i++) {
    const before = treeCpuSeconds(t);
    await new Promise((r) => setTimeout(r, ms));
    windows.push((treeCpuSeconds(t) - before) / (ms / 1000));
  }
  return Math.min(...windows);
}

const svgLayer = (svg: string, size: number) => ({
  type: 'image',
  src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
  x: 0,
  y: 0,
  width: size,
  height: size,
  rotation: 0,
});

/** The SVG of the outside look: 850 bytes of filters that held a core for minutes. */
const filterSvg = (rects: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f" x="0" y="0" width="1" height="1"><feTurbulence baseFrequency="0.9" numOctaves="30"/><feGaussianBlur stdDeviation="200"/></filter>${'<rect width="2000" height="2000" filter="url(#f)"/>'.repeat(rects)}</svg>`;

/** An SVG with nothing to refuse that still takes long to draw: 1,000 large translucent squares. */
const costlySvg = () =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">${Array.from(
    { length: 1000 },
    (_, i) =>
      `<rect width="1000" height="1000" fill="#${((i * 2654435761) % 0xffffff).toString(16).padStart(6, '0')}" fill-opacity="0.5" transform="rotate(${i % 90} 500 500)"/>`,
  ).join('')}</svg>`;

async function setUp(env: Record<string, string>) {
  const t = await startTestApp(env);
  const call = client(t.url);
  const label = await newLabel(call, t, 'Images');
  await importCatalog(call, t, 'supplier-a', [
    config('BIG-600', {
      printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 600, heightMm: 600 }],
    }),
  ]);
  const heavy = await editorUser(t, label.labelId, 'heavy-user');
  const plain = await editorUser(t, label.labelId, 'plain-user');
  const png = (
    await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3a7bd5' } })
      .png()
      .toBuffer()
  ).toString('base64');
  const save = (token: string, layer: unknown): Promise<Answer> =>
    call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: {
        name: 'P',
        sku: 'BIG-600',
        supplier: 'supplier-a',
        design: { areas: [{ printArea: 'FRONT', layers: [layer] }] },
      },
    });
  const savePng = async () => {
    const began = Date.now();
    const r = await save(plain.token, {
      type: 'image',
      src: `data:image/png;base64,${png}`,
      x: 0,
      y: 0,
      width: 100,
      height: 75,
      rotation: 0,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return Date.now() - began;
  };
  return { t, save, savePng, heavy };
}

describe('image checks at project save, with the default time limit', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    s = await setUp({});
  }, 120_000);
  afterAll(async () => s?.t.stop());

  it('refuses the filter SVG at once, naming the filter, and frees the core; a PNG saved meanwhile is quick', async () => {
    for (const rects of [10, 50]) {
      await settled(s.t);
      const before = await snapshot(s.t);
      const began = Date.now();
      const [refused, pngMs] = await Promise.all([
        s.save(s.heavy.token, svgLayer(filterSvg(rects), 600)),
        s.savePng(),
      ]);
      const answeredMs = Date.now() - began;
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'invalid_design',
        detail:
          'layer 1 on FRONT: the SVG uses a filter (<filter>), which cannot be printed at a bounded cost: flatten the effect into an image',
        errors: [{ path: 'design.areas.0.layers.0.src' }],
      });
      expect(answeredMs).toBeLessThan(35_000);
      expect(pngMs).toBeLessThan(5_000);
      // nothing of the refused save was recorded (the PNG project was)
      await settled(s.t);
      expect(await snapshot(s.t)).not.toBe(before);
      await new Promise((r) => setTimeout(r, 5_000 - Math.min(5_000, Date.now() - began)));
      expect(await coresBusy(s.t, 2_000)).toBeLessThan(0.25);
    }
  }, 120_000);

  it('refuses SVGs that point outside themselves or carry scripts, in plain words', async () => {
    const cases: [string, string][] = [
      [
        '<svg xmlns="http://www.w3.org/2000/svg"><image href="http://example.com/logo.png" width="10" height="10"/></svg>',
        'layer 1 on FRONT: the SVG refers to a file outside itself (<image href="http://example.com/logo.png">), which is not printed: embed what it shows in the SVG',
      ],
      [
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>',
        'layer 1 on FRONT: the SVG holds active content (onload="alert(1)" on <svg>): scripts, event handlers and script links are not allowed',
      ],
      [
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>',
        'layer 1 on FRONT: the SVG declares an external entity (<!ENTITY ... SYSTEM>), which would read a file: not allowed',
      ],
    ];
    for (const [svg, detail] of cases) {
      const r = await s.save(s.heavy.token, svgLayer(svg, 50));
      expect(r.status).toBe(400);
      expect(r.body.detail).toBe(detail);
      expect(JSON.stringify(r.body)).not.toMatch(/glib|vips|librsvg/i);
    }
  }, 60_000);
});

describe('image checks at project save, past their time limit', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    s = await setUp({ IMAGE_CHECK_TIMEOUT_MS: '3000', IMAGE_CHECKS_QUEUED: '3' });
  }, 120_000);
  afterAll(async () => s?.t.stop());

  it('kills a check at its deadline, takes one user’s images in turn, refuses more than the queue holds, and frees the core', async () => {
    const svg = svgLayer(costlySvg(), 300);
    const began = Date.now();
    // five at once from one user: one checked, three waiting, the fifth refused at once
    const heavy = Array.from({ length: 5 }, () => s.save(s.heavy.token, svg));
    await new Promise((r) => setTimeout(r, 500));
    const pngMs = await s.savePng();
    const answers = await Promise.all(heavy);
    const lastMs = Date.now() - began;
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const tooMany = answers.find((a) => a.status === 429)!;
    expect(tooMany.body.code).toBe('too_many_jobs');
    expect(tooMany.headers.get('retry-after')).toBe('5');
    for (const a of answers.filter((x) => x.status === 400))
      expect(a.body.detail).toMatch(/^layer 1 on FRONT: the image took longer than 3 s to check/);
    // another user's PNG did not wait for them
    expect(pngMs).toBeLessThan(5_000);
    // four checks one after another, each stopped at 3 s
    expect(lastMs).toBeGreaterThan(4 * 3_000);
    expect(lastMs).toBeLessThan(4 * 3_000 + 15_000);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await coresBusy(s.t, 2_000)).toBeLessThan(0.25);
  }, 120_000);
});
