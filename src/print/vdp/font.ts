import { deflateSync } from 'node:zlib';
import { FONT } from '../fonts.ts';
import { ASCENT, advanceOf, DESCENT, FONT_BBOX, GLYPH_COUNT, UNITS_PER_EM } from '../text-fit.ts';
import type { StreamingPdf } from './writer.ts';

/**
 * DejaVu Sans embedded whole, as a Type 0 font over its glyph ids (Identity-H): a
 * record's text is its glyph ids, whatever the other records hold, so a record rendered
 * alone has the same bytes as in the whole file. The font program (about 330 KB
 * compressed) is part of what the records share; the widths and the ToUnicode map (for
 * text extraction) list the glyphs used and are written last.
 */
export interface FontObjects {
  type0: number;
  cidFont: number;
  descriptor: number;
  file: number;
  toUnicode: number;
}
export const FONT_OBJECTS = 5;

let deflated: Buffer | undefined;
const scale = (v: number) => Math.round((v * 1000) / UNITS_PER_EM);

/** The objects known before any record: the font program, its descriptor, the Type 0 font. */
export function writeFontHead(pdf: StreamingPdf, o: FontObjects): void {
  deflated ??= deflateSync(FONT, { level: 9 });
  pdf.stream(o.file, ` /Length1 ${FONT.length} /Filter /FlateDecode`, deflated);
  const b = FONT_BBOX;
  pdf.object(
    o.descriptor,
    `<</Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [${scale(b.minX)} ${scale(b.minY)} ${scale(b.maxX)} ${scale(b.maxY)}] /ItalicAngle 0 /Ascent ${scale(ASCENT)} /Descent ${scale(DESCENT)} /CapHeight ${scale(1493)} /StemV 80 /FontFile2 ${o.file} 0 R>>`,
  );
  pdf.object(
    o.type0,
    `<</Type /Font /Subtype /Type0 /BaseFont /DejaVuSans /Encoding /Identity-H /DescendantFonts [${o.cidFont} 0 R] /ToUnicode ${o.toUnicode} 0 R>>`,
  );
}

const utf16 = (cp: number) =>
  String.fromCodePoint(cp)
    .split('')
    .map((c) => c.charCodeAt(0).toString(16).padStart(4, '0'))
    .join('');

/** The objects that list the glyphs used (glyph id -> its character), after the records. */
export function writeFontTail(pdf: StreamingPdf, o: FontObjects, used: Map<number, number>): void {
  const ids = [...used.keys()].filter((g) => g < GLYPH_COUNT).sort((a, b) => a - b);
  const widths = ids.map((g) => `${g} [${scale(advanceOf(g))}]`).join(' ');
  pdf.object(
    o.cidFont,
    `<</Type /Font /Subtype /CIDFontType2 /BaseFont /DejaVuSans /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor ${o.descriptor} 0 R /CIDToGIDMap /Identity /DW 1000 /W [${widths}]>>`,
  );
  const lines = [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
  ];
  for (let i = 0; i < ids.length; i += 100) {
    const block = ids.slice(i, i + 100);
    lines.push(`${block.length} beginbfchar`);
    for (const g of block)
      lines.push(`<${g.toString(16).padStart(4, '0')}> <${utf16(used.get(g)!)}>`);
    lines.push('endbfchar');
  }
  lines.push('endcmap', 'CMapName currentdict /CMap defineresource pop', 'end', 'end');
  pdf.stream(o.toUnicode, ' /Filter /FlateDecode', deflateSync(lines.join('\n')));
}
