import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { BarcodeFormat } from '../../src/domain/order/barcode.ts';
import { type RenderJob, renderJob } from '../../src/print/render-job.ts';

/**
 * Print items that between them use every feature of the renderers: RGB, CMYK, grey and
 * translucent images, PNG, JPEG, WebP and SVG, text in several sizes, colours and
 * scripts, spot inks for screen and pad (named and unnamed), crop marks, a label's own
 * output profile, every barcode format, bleed mirroring and rotation, and the first
 * renderer of old orders. Every input is made here from constants, so two processes make
 * the same inputs.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const GS_CMYK = '/usr/share/color/icc/ghostscript/default_cmyk.icc';

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

/** A deterministic RGB(A) pattern: gradients and hard edges. */
function pattern(width: number, height: number, channels: 3 | 4): Buffer {
  const px = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      px[i] = (x * 255) / width;
      px[i + 1] = (y * 255) / height;
      px[i + 2] = (x ^ y) & 0xff;
      if (channels === 4) px[i + 3] = x < width / 3 ? 0 : x < (2 * width) / 3 ? 128 : 255;
    }
  return px;
}

async function images() {
  const raw = (w: number, h: number, c: 3 | 4) =>
    sharp(pattern(w, h, c), { raw: { width: w, height: h, channels: c } });
  const flat = (w: number, h: number, colours: [number, number, number][]) => {
    const px = Buffer.alloc(w * h * 4);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        const c = colours[Math.floor((x * colours.length) / w)]!;
        px.set([...c, y < h / 5 ? 0 : 255], i);
      }
    return sharp(px, { raw: { width: w, height: h, channels: 4 } })
      .png()
      .toBuffer();
  };
  return {
    rgbPng: dataUrl('image/png', await raw(600, 400, 3).png().toBuffer()),
    rgbaPng: dataUrl('image/png', await raw(300, 200, 4).png().toBuffer()),
    grayPng: dataUrl('image/png', await raw(240, 160, 3).grayscale().png().toBuffer()),
    rgbJpeg: dataUrl('image/jpeg', await raw(500, 300, 3).jpeg({ quality: 85 }).toBuffer()),
    webp: dataUrl('image/webp', await raw(320, 240, 4).webp({ quality: 80 }).toBuffer()),
    cmykJpeg: dataUrl('image/jpeg', readFileSync(path.join(FIXTURES, 'cmyk-k100.jpg'))),
    svg: dataUrl(
      'image/svg+xml',
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">' +
          '<defs><linearGradient id="g"><stop offset="0" stop-color="#0a7"/><stop offset="1" stop-color="#fd0"/></linearGradient></defs>' +
          '<rect width="200" height="100" fill="url(#g)"/><circle cx="60" cy="50" r="35" fill="#c00" fill-opacity="0.6"/>' +
          '<path d="M120 10 L190 90 L120 90 Z" fill="#123"/></svg>',
      ),
    ),
    twoInks: dataUrl(
      'image/png',
      await flat(200, 120, [
        [227, 6, 19],
        [0, 0, 0],
      ]),
    ),
    oneInk: dataUrl('image/png', await flat(160, 80, [[0, 45, 114]])),
  };
}

const ids = (n: number) => ({
  orderId: `determinism-${n}`,
  orderItemId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
});
const barcode = (format: BarcodeFormat, value: string) => ({ format, value });
const area = (code: string, widthMm: number, heightMm: number) => ({
  code,
  name: code,
  widthMm,
  heightMm,
});
const text = (t: string, x: number, y: number, fontSize: number, color: string) => ({
  type: 'text' as const,
  text: t,
  x,
  y,
  fontSize,
  color,
});
const image = (src: string, x: number, y: number, width: number, height: number, rotation = 0) => ({
  type: 'image' as const,
  src,
  x,
  y,
  width,
  height,
  rotation,
});

export interface RenderCase {
  name: string;
  /** the job as the worker sends it to a render process */
  job: RenderJob;
  /** the job rendered in this process */
  render(): Promise<Uint8Array>;
}

/** Every case, built once per process. */
export async function renderCases(): Promise<RenderCase[]> {
  const img = await images();
  const ownBytes = existsSync(GS_CMYK) ? readFileSync(GS_CMYK) : undefined;
  const createdAt = '2026-11-24T10:00:00.000Z';
  type Options = { inks?: boolean; cropMarks?: boolean; profile?: RenderJob['profile'] };
  const base = (n: number, sku: string, printMethod: string, printColors: number) => ({
    ...ids(n),
    sku,
    printMethod,
    printColors,
    createdAt,
  });
  const job = (
    item: RenderJob['item'] & Options,
    renderer = 2,
  ): Pick<RenderCase, 'job' | 'render'> => {
    const { inks = false, cropMarks = false, profile, ...rest } = item;
    const j: RenderJob = {
      renderer,
      item: rest,
      images: [],
      profile,
      inks,
      cropMarks,
      maxInkCoverage: 300,
    };
    return { job: j, render: async () => (await renderJob(j)).file.bytes };
  };
  const v2 = (item: RenderJob['item'] & Options) => job(item);

  const cases: RenderCase[] = [
    {
      name: 'digital, RGB PNG and text on two areas, code128',
      ...v2({
        ...base(1, 'DIG-FB', 'digital', 4),
        printAreas: [area('FRONT', 100, 70), area('BACK', 100, 70)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                image(img.rgbPng, 5, 5, 60, 40),
                text('Front #000000', 5, 50, 14, '#000000'),
              ],
            },
            { printArea: 'BACK', layers: [text('Back', 10, 10, 20, '#000000')] },
          ],
        },
        barcode: barcode('code128', 'ITEM-0001'),
      }),
    },
    {
      name: 'digital, CMYK JPEG kept, RGB JPEG, ean13',
      ...v2({
        ...base(2, 'DIG-JPEG', 'digital', 4),
        printAreas: [area('FRONT', 90, 60)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.cmykJpeg, 5, 5, 30, 30), image(img.rgbJpeg, 40, 5, 45, 27)],
            },
          ],
        },
        barcode: barcode('ean13', '4006381333931'),
      }),
    },
    {
      name: 'digital, grey and translucent PNGs, WebP, qrcode',
      ...v2({
        ...base(3, 'DIG-ALPHA', 'digital', 4),
        printAreas: [area('FRONT', 80, 80)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                image(img.grayPng, 0, 0, 40, 26),
                image(img.rgbaPng, 20, 20, 45, 30),
                image(img.webp, 10, 50, 32, 24),
              ],
            },
          ],
        },
        barcode: barcode('qrcode', 'https://shop.example/o/3?item=ä'),
      }),
    },
    {
      name: 'digital, SVG, rotation, bleed mirroring on every side, datamatrix',
      ...v2({
        ...base(4, 'DIG-SVG', 'digital', 4),
        printAreas: [area('FRONT', 70, 50)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.rgbPng, 0, 0, 70, 50), image(img.svg, 10, 10, 40, 20, 30)],
            },
          ],
        },
        barcode: barcode('datamatrix', 'DM-0004'),
      }),
    },
    {
      name: 'digital, text options: sizes, colours, scripts',
      ...v2({
        ...base(5, 'DIG-TEXT', 'digital', 4),
        printAreas: [area('FRONT', 120, 80)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                text('Tiny 4 pt', 2, 2, 4, '#000000'),
                text('Grüße · Ελληνικά · Кириллица · №', 2, 10, 12, '#1a2b3c'),
                text('Large red', 2, 30, 48, '#e30613'),
                text('Pale', 2, 70, 9, '#f0f0f0'),
              ],
            },
          ],
        },
        barcode: barcode('code128', 'TEXT 5'),
      }),
    },
    {
      name: 'digital, crop marks',
      ...v2({
        ...base(6, 'DIG-MARKS', 'digital', 4),
        cropMarks: true,
        printAreas: [area('FRONT', 85, 55)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.rgbPng, 0, 0, 85, 55), text('Card', 5, 5, 12, '#000000')],
            },
          ],
        },
        barcode: barcode('code128', 'MARKS-6'),
      }),
    },
    {
      name: 'screen, two inks from text (the order of issue 21), product colour black',
      ...v2({
        ...base(8, 'SCR-2', 'screen', 2),
        inks: true,
        printAreas: [area('FRONT', 80, 50)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                text('Red ink', 5, 5, 14, '#e30613'),
                text('Black ink', 5, 25, 14, '#000000'),
              ],
            },
          ],
        },
        barcode: barcode('code128', 'SCR-8'),
      }),
    },
    {
      name: 'screen, two inks from an image and named inks, crop marks',
      ...v2({
        ...base(9, 'SCR-IMG', 'screen', 3),
        inks: true,
        cropMarks: true,
        printAreas: [area('FRONT', 80, 50)],
        design: {
          inks: [{ color: '#e30613', name: 'PANTONE 185 C' }],
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.twoInks, 0, 0, 80, 48), text('Named', 5, 40, 10, '#000000')],
            },
          ],
        },
        barcode: barcode('qrcode', 'SCR-9'),
      }),
    },
    {
      name: 'pad, one ink',
      ...v2({
        ...base(10, 'PAD-1', 'pad', 1),
        inks: true,
        printAreas: [area('FRONT', 40, 20)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.oneInk, 2, 2, 30, 15), text('Pad', 2, 2, 8, '#002d72')],
            },
          ],
        },
        barcode: barcode('datamatrix', 'PAD-10'),
      }),
    },
    {
      name: 'first renderer (orders recorded before PDF/X)',
      ...job(
        {
          ...ids(11),
          sku: 'OLD-1',
          printMethod: 'digital',
          printColors: 4,
          createdAt,
          printAreas: [area('FRONT', 80, 50)],
          design: {
            areas: [
              {
                printArea: 'FRONT',
                layers: [image(img.rgbPng, 5, 5, 40, 30), text('Old', 50, 5, 12, '#336699')],
              },
            ],
          },
          barcode: barcode('code128', 'OLD-11'),
        },
        1,
      ),
    },
  ];
  if (ownBytes)
    cases.push({
      name: "digital, the label's own output profile",
      ...v2({
        ...base(7, 'DIG-OWN', 'digital', 4),
        profile: {
          sha256: sha256(ownBytes),
          description: 'Ghostscript default CMYK',
          bytes: ownBytes,
        },
        printAreas: [area('FRONT', 80, 50)],
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [image(img.rgbaPng, 0, 0, 80, 50), text('Own profile', 5, 5, 12, '#0055aa')],
            },
          ],
        },
        barcode: barcode('ean13', '4006381333931'),
      }),
    });
  return cases;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Every case's sha256, each case rendered twice. `first` is rendered before all others,
 * so it finds nothing cached by another render (a process per case shows whether what a
 * render finds cached changes its bytes: the ink order of issue 21 did); `concurrent`
 * renders all at once, every lookup racing every other. Two renders of a case that differ
 * within the run are reported as such.
 */
export async function renderAll(
  opts: { first?: number; concurrent?: boolean } = {},
): Promise<Record<string, string>> {
  const cases = await renderCases();
  const order =
    opts.first === undefined
      ? cases
      : [cases[opts.first]!, ...cases.filter((_, i) => i !== opts.first)];
  const twice = [...order, ...order];
  const runs: (readonly [string, string])[] = [];
  if (!opts.concurrent) for (const c of twice) runs.push([c.name, sha256(await c.render())]);
  else
    runs.push(
      ...(await Promise.all(twice.map(async (c) => [c.name, sha256(await c.render())] as const))),
    );
  const out: Record<string, string> = {};
  for (const c of cases) {
    const hashes = [...new Set(runs.filter(([name]) => name === c.name).map(([, h]) => h))];
    out[c.name] = hashes.length === 1 ? hashes[0]! : `differs within the run: ${hashes.join(' ')}`;
  }
  return out;
}
