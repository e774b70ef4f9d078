import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROOF_PX, renderProof } from '../../src/print/proof.ts';
import { renderJob } from '../../src/print/render-job.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A two-page print file (front and back of a 85 x 55 mm card), rendered as orders are. */
async function twoPagePrintFile() {
  const { file } = await renderJob({
    renderer: 2,
    item: {
      orderId: 'PROOF-1',
      orderItemId: '00000000-0000-4000-8000-000000000001',
      sku: 'CARD-2',
      printMethod: 'digital',
      printColors: 4,
      printAreas: [
        { code: 'FRONT', name: 'Front', widthMm: 85, heightMm: 55 },
        { code: 'BACK', name: 'Back', widthMm: 85, heightMm: 55 },
      ],
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              { type: 'text', text: 'Ada Lovelace', x: 5, y: 5, fontSize: 12, color: '#1a1a1a' },
            ],
          },
          {
            printArea: 'BACK',
            layers: [
              { type: 'text', text: 'ada@example.com', x: 5, y: 5, fontSize: 10, color: '#1a1a1a' },
            ],
          },
        ],
      },
      barcode: { format: 'code128', value: '00000000-0000-4000-8000-000000000001' },
      createdAt: '2026-11-26T10:00:00.000Z',
    },
    images: [],
    profile: undefined,
    inks: false,
    cropMarks: false,
    maxInkCoverage: 300,
  });
  return file;
}

describe('proofs', () => {
  let pdf: Uint8Array;
  beforeAll(async () => {
    pdf = (await twoPagePrintFile()).bytes;
  }, 60_000);

  it('draws a PNG per page of the print file at screen size, the same bytes every time', async () => {
    const request = { pdf, printFileSha256: sha256(pdf), version: 2 };
    const first = await renderProof(request);
    const again = await renderProof(request);
    expect(first.map((p) => p.page)).toEqual([1, 2]);
    expect(first.map((p) => sha256(p.png))).toEqual(again.map((p) => sha256(p.png)));
    for (const p of first) {
      const meta = await sharp(p.png).metadata();
      expect(meta.format).toBe('png');
      expect(Math.max(meta.width!, meta.height! - 36)).toBeLessThanOrEqual(PROOF_PX);
      expect([meta.width, meta.height]).toEqual([p.width, p.height]);
    }
    // another version or another file is another proof
    const v3 = await renderProof({ ...request, version: 3 });
    expect(sha256(v3[0]!.png)).not.toBe(sha256(first[0]!.png));
  });

  it('marks the page PROOF and draws the trim, bleed and safe lines and the caption', async () => {
    const [page] = await renderProof({ pdf, printFileSha256: sha256(pdf), version: 1 });
    const { data, info } = await sharp(page!.png)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => {
      const i = (y * info.width + x) * 3;
      return [data[i]!, data[i + 1]!, data[i + 2]!] as const;
    };
    let red = 0;
    let blue = 0;
    let green = 0;
    let tinted = 0;
    const drawnHeight = info.height - 36;
    for (let y = 0; y < drawnHeight; y++)
      for (let x = 0; x < info.width; x++) {
        const [r, g, b] = at(x, y);
        if (r > 180 && g < 60 && b < 60)
          red++; // the bleed line
        else if (b > 150 && r < 40 && g < 120)
          blue++; // the trim line
        else if (g > 120 && r < 80 && b < 80)
          green++; // the safe area
        else if (r > 200 && g > 150 && g < 215 && b > 150 && b < 215) tinted++; // the PROOF mark over white
      }
    expect(red).toBeGreaterThan(500);
    expect(blue).toBeGreaterThan(500);
    expect(green).toBeGreaterThan(200);
    expect(tinted).toBeGreaterThan(5000);
    // the caption: a dark strip with light text in it
    let light = 0;
    for (let y = drawnHeight + 4; y < info.height - 4; y++)
      for (let x = 0; x < info.width; x++) if (at(x, y)[0]! > 200) light++;
    expect(light).toBeGreaterThan(300);
  });
});
