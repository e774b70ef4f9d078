import { describe, expect, it } from 'vitest';
import type { BatchItem, BatchSpec, SheetPlacement } from '../../src/domain/batch/events.ts';
import { jobTicket } from '../../src/production/xjdf.ts';
import { XJDF_SCHEMAS, xjdfErrors } from '../helpers/xjdf.ts';

const item = (n: number, pages = 1): BatchItem => ({
  orderItemId: `00000000-0000-4000-8000-00000000000${n}`,
  stream: `Order-x-${n}`,
  orderId: `O-${n}`,
  itemId: `i${n}`,
  sku: 'ST-26',
  quantity: 2,
  copies: 2,
  printMethod: 'digital',
  file: { storageKey: `k${n}`, sha256: 'a'.repeat(64), pages },
  barcode: { format: 'code128', value: `V${n}` },
  preflight: { plates: [], maxInkCoverage: 0 },
});

const placements: SheetPlacement[] = [1, 2].flatMap((n) =>
  [1, 2].map((copy) => ({
    orderItemId: item(n).orderItemId,
    copy,
    page: 1,
    xMm: 5 + copy * 30,
    yMm: 5 + n * 30,
    widthMm: 26,
    heightMm: 26,
    rotated: copy === 2,
  })),
);

const spec = (mode: BatchSpec['mode'], kind: 'sheet' | 'roll'): BatchSpec => ({
  mode,
  media:
    kind === 'sheet'
      ? { kind, preset: 'SRA3', widthMm: 320, heightMm: 450 }
      : { kind, widthMm: 560, heightMm: 1000 },
  gutterMm: 0,
  marginMm: 5,
  allowRotation: true,
  copies: 'quantity',
});

/** Job tickets of every kind of press run, validated by xmllint against CIP4's own XJDF schemas. */
describe('XJDF job tickets', () => {
  for (const mode of ['gang', 'step-repeat'] as const)
    for (const kind of ['sheet', 'roll'] as const)
      it(`validates against XJDF ${XJDF_SCHEMAS.join(', ')}: ${mode} on a ${kind}`, () => {
        const xml = jobTicket({
          batchId: '3f1c2b9e-8d4a-4f7e-9b1a-2c3d4e5f6a7b',
          spec: spec(mode, kind),
          items: [item(1), item(2)],
          sheets: [
            { n: 1, widthMm: 320, heightMm: 450, placements },
            { n: 2, widthMm: 320, heightMm: 450, placements: placements.slice(0, 1) },
          ],
          createdAt: new Date('2026-11-26T00:00:00Z'),
          sheetFile: (n) => `sheet-${n}.pdf`,
        });
        for (const version of XJDF_SCHEMAS) expect(xjdfErrors(xml, version), version).toEqual([]);
      });

  it('is refused by the schema when it breaks it (the check can fail)', () => {
    const bad = `<?xml version="1.0"?><XJDF xmlns="http://www.CIP4.org/JDFSchema_2_0" JobID="j" Types="Cutting" Version="2.0"><ResourceSet Name="CuttingParams" Usage="Input"><Resource><CuttingParams><CutBlock BlockName="b" BlockTrf="1 0 0 1 0 0"/></CuttingParams></Resource></ResourceSet></XJDF>`;
    expect(xjdfErrors(bad).join('\n')).toMatch(/BlockTrf/);
  });
});
