import { ParseSpeeds, PDFArray, PDFDocument, PDFName, type PDFNumber, type PDFPage } from 'pdf-lib';

/**
 * A page box as [left, bottom, right, top] in points; a missing trim box falls back to the
 * bleed box, a missing bleed box to the media box, as PDF says. Undefined only when the
 * page has no media box at all.
 */
export function pageBox(
  page: PDFPage,
  key: 'TrimBox' | 'BleedBox' | 'MediaBox',
): number[] | undefined {
  const a = page.node.lookupMaybe(PDFName.of(key), PDFArray);
  if (!a)
    return key === 'MediaBox'
      ? undefined
      : pageBox(page, key === 'TrimBox' ? 'BleedBox' : 'MediaBox');
  const v = a.asArray().map((n) => (n as PDFNumber).asNumber());
  return [
    Math.min(v[0]!, v[2]!),
    Math.min(v[1]!, v[3]!),
    Math.max(v[0]!, v[2]!),
    Math.max(v[1]!, v[3]!),
  ];
}

/**
 * A print file parsed (no pause every few objects: a print file is small, and the pauses were half
 * the time).
 */
export const parsePrintFile = (bytes: Uint8Array) =>
  PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
