import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DatasetProblem, parseDataset } from '../../src/datasets/parse.ts';
import { SealedDataset, SealedDatasetWriter } from '../../src/datasets/sealed-file.ts';
import { codeProblem } from '../../src/print/code-fit.ts';
import { fitText } from '../../src/print/text-fit.ts';
import { checkRows } from '../../src/print/vdp/check.ts';

const key = Buffer.alloc(32, 3);
function sealed(fields: string[], rows: string[][]): SealedDataset {
  const parts: Buffer[] = [];
  const w = new SealedDatasetWriter(key, 'd1', (b) => parts.push(b));
  for (const r of rows) w.add(r);
  w.finish(fields);
  return new SealedDataset(Buffer.concat(parts), key, 'd1');
}

describe('data sets', () => {
  it('parses RFC 4180 CSV as a stream: quotes, commas and line breaks inside values, a BOM', async () => {
    const rows: string[][] = [];
    const parsed = await parseDataset(
      Readable.from([Buffer.from('\ufeffname,note\r\n"Zoë, Jr.","two\nlines"\r\nJosé,""\r\n')]),
      'csv',
      (v) => rows.push(v),
    );
    expect(parsed).toMatchObject({ fields: ['name', 'note'], rows: 2 });
    expect(rows).toEqual([
      ['Zoë, Jr.', 'two\nlines'],
      ['José', ''],
    ]);
  });
  it('refuses NUL, Latin-1 and rows of another length, naming them', async () => {
    const parse = (bytes: Buffer) => parseDataset(Readable.from([bytes]), 'csv', () => {});
    await expect(parse(Buffer.from('a\nx\u0000\n'))).rejects.toThrow(DatasetProblem);
    await expect(parse(Buffer.from('a\nM\xfcller\n', 'latin1'))).rejects.toThrow('not UTF-8');
    await expect(parse(Buffer.from('a,b\n1\n'))).rejects.toThrow('line 2');
  });
  it('keeps rows sealed in chunks: any row read back alone, a changed byte refused', () => {
    const rows = Array.from({ length: 1203 }, (_, i) => [`n${i + 1}`]);
    const d = sealed(['name'], rows);
    expect(d.row(1)).toEqual(['n1']);
    expect(d.row(1203)).toEqual(['n1203']);
    expect([...d.each()].length).toBe(1203);
    const parts: Buffer[] = [];
    const w = new SealedDatasetWriter(key, 'd1', (b) => parts.push(b));
    w.add(['secret']);
    w.finish(['name']);
    const file = Buffer.concat(parts);
    expect(file.includes(Buffer.from('secret'))).toBe(false);
    file[30] = file[30]! ^ 1;
    expect(() => new SealedDataset(file, key, 'd1').row(1)).toThrow();
  });
});

describe('the check of rows against a design', () => {
  const design = {
    areas: [
      {
        printArea: 'FRONT',
        layers: [
          {
            type: 'text' as const,
            text: 'Hi {{name}}',
            x: 1,
            y: 1,
            fontSize: 12,
            color: '#000000',
            box: { width: 30, fit: 'shrink' as const, minFontSize: 6 },
          },
          {
            type: 'code' as const,
            symbology: 'qrcode' as const,
            data: '{{url}}',
            x: 40,
            y: 1,
            width: 20,
            height: 20,
          },
          {
            type: 'image' as const,
            src: '{{pic}}',
            x: 1,
            y: 20,
            width: 10,
            height: 10,
            rotation: 0,
          },
        ],
      },
    ],
  };
  it('reports each code where it applies, and nothing for good rows', () => {
    const d = sealed(
      ['name', 'url', 'pic'],
      [
        ['Anna', 'https://e.com/1', 'logo'],
        ['A very very long name that cannot fit in thirty mm', 'https://e.com/2', 'logo'],
        ['', 'https://e.com/3', 'logo'],
        ['漢字', 'https://e.com/4', 'logo'],
        ['Bob', 'x'.repeat(3000), 'logo'],
        ['Eve', 'https://e.com/6', 'nope'],
      ],
    );
    const r = checkRows(design, d, new Set(['logo']));
    expect(r.problems.map((p) => [p.row, p.field, p.code])).toEqual([
      [2, 'name', 'overflow'],
      [3, 'name', 'missing_field'],
      [4, 'name', 'missing_glyph'],
      [5, 'url', 'code_data'],
      [6, 'pic', 'unknown_image'],
    ]);
    expect(r.ok).toBe(false);
  });
  it('names a field the data set lacks once, not once a row', () => {
    const r = checkRows(design, sealed(['name', 'url'], [['a', 'b']]), new Set());
    expect(r.problems).toEqual([
      { row: 0, field: 'pic', code: 'missing_field', detail: 'the data set has no field pic' },
    ]);
  });
  it('shrinks a text to its box, down to its smallest size', () => {
    expect(fitText({ fontSize: 12, box: undefined }, 'x'.repeat(200))).toEqual({ size: 12 });
    const shrunk = fitText(
      { fontSize: 12, box: { width: 30, fit: 'shrink', minFontSize: 4 } },
      'Maximiliana Wolkenstein',
    );
    expect('size' in shrunk && shrunk.size < 12).toBe(true);
    expect(
      'overflow' in
        fitText({ fontSize: 12, box: { width: 5, fit: 'error', minFontSize: 4 } }, 'Maximiliana'),
    ).toBe(true);
  });
  it('counts a QR code dense past its size as a problem', () => {
    expect(
      codeProblem({ symbology: 'qrcode', width: 20 }, 'https://example.com/r/1'),
    ).toBeUndefined();
    expect(codeProblem({ symbology: 'qrcode', width: 10 }, 'x'.repeat(500))).toMatch(/module/);
    expect(codeProblem({ symbology: 'ean13', width: 30 }, '4006381333931')).toBeUndefined();
    expect(codeProblem({ symbology: 'ean13', width: 30 }, '4006381333932')).toMatch(/check digit/);
  });
});
