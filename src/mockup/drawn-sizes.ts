import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFObject,
  type PDFPage,
  PDFRawStream,
  PDFRef,
} from 'pdf-lib';

/**
 * How large a page draws an image: its longest extent on the page along its width and
 * height, in points, or in pixels when the page is drawn at `scale` px per point.
 */
export interface DrawnSize {
  width: number;
  height: number;
}

/**
 * The sizes at which each page draws its images, read from the pages' content streams
 * (the `cm` in force at each `Do`), by the image's object number. An image is missing
 * from the answer when its use cannot be told (drawn from a form, a pattern or an
 * annotation, or a content stream this reader does not follow): it is then decoded at
 * its full size, as before. So a mockup decodes a 300 dpi photo only at the resolution
 * the mockup can show, and never less.
 */
export function drawnImageSizes(
  doc: PDFDocument,
  scale: { x: number; y: number } = { x: 1, y: 1 },
): Map<number, DrawnSize> {
  const sizes = new Map<number, DrawnSize>();
  const unsure = new Set<number>();
  for (const page of doc.getPages()) {
    const xobjects = xobjectsOf(doc, page);
    const content = contentOf(doc, page);
    if (!content) return new Map();
    if (!scan(content, xobjects, scale, sizes, unsure)) return new Map();
  }
  // an image a form draws is drawn at a size this reader does not follow
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    if (object.dict.get(PDFName.of('Subtype')) !== PDFName.of('Form')) continue;
    const resources = doc.context.lookupMaybe(object.dict.get(PDFName.of('Resources')), PDFDict);
    const inner =
      resources && doc.context.lookupMaybe(resources.get(PDFName.of('XObject')), PDFDict);
    for (const value of inner?.values() ?? [])
      if (value instanceof PDFRef) unsure.add(value.objectNumber);
  }
  for (const n of unsure) sizes.delete(n);
  return sizes;
}

function xobjectsOf(doc: PDFDocument, page: PDFPage): Map<string, PDFRef | undefined> {
  const found = new Map<string, PDFRef | undefined>();
  const resources = page.node.Resources();
  const dict = resources && doc.context.lookupMaybe(resources.get(PDFName.of('XObject')), PDFDict);
  for (const [name, value] of dict?.entries() ?? [])
    found.set(name.decodeText(), value instanceof PDFRef ? value : undefined);
  return found;
}

function contentOf(doc: PDFDocument, page: PDFPage): Uint8Array | undefined {
  const contents: PDFObject | undefined = page.node.get(PDFName.of('Contents'));
  const refs = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
  const parts: Uint8Array[] = [];
  for (const ref of refs) {
    const stream = doc.context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) return undefined;
    try {
      parts.push(decodePDFRawStream(stream).decode());
    } catch {
      return undefined; // a filter pdf-lib cannot decode
    }
    parts.push(new Uint8Array([0x0a]));
  }
  return Buffer.concat(parts);
}

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const times = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

const isSpace = (c: number) =>
  c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0;
const isDelimiter = (c: number) =>
  c === 0x28 ||
  c === 0x29 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x5b ||
  c === 0x5d ||
  c === 0x7b ||
  c === 0x7d ||
  c === 0x2f ||
  c === 0x25;

/**
 * Follows q, Q and cm to each Do; false when the stream holds what this reader does not
 * follow (an inline image, whose bytes are not tokens).
 */
function scan(
  s: Uint8Array,
  xobjects: Map<string, PDFRef | undefined>,
  scale: { x: number; y: number },
  sizes: Map<number, DrawnSize>,
  unsure: Set<number>,
): boolean {
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  let operands: (number | string)[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (isSpace(c)) {
      i++;
    } else if (c === 0x25) {
      while (i < s.length && s[i] !== 0x0a && s[i] !== 0x0d) i++; // a comment
    } else if (c === 0x28) {
      // a string: balanced parentheses, a backslash escapes the next byte
      let depth = 0;
      for (; i < s.length; i++) {
        if (s[i] === 0x5c) i++;
        else if (s[i] === 0x28) depth++;
        else if (s[i] === 0x29 && --depth === 0) break;
      }
      i++;
      operands.push('');
    } else if ((c === 0x3c && s[i + 1] === 0x3c) || (c === 0x3e && s[i + 1] === 0x3e)) {
      i += 2; // a dict's brackets
    } else if (c === 0x3c) {
      while (i < s.length && s[i] !== 0x3e) i++; // a hex string
      i++;
      operands.push('');
    } else if (c === 0x2f) {
      let j = i + 1;
      while (j < s.length && !isSpace(s[j]!) && !isDelimiter(s[j]!)) j++;
      operands.push(`/${Buffer.from(s.subarray(i + 1, j)).toString('latin1')}`);
      i = j;
    } else if (isDelimiter(c)) {
      i++; // [ ] << >> { }: arrays and dicts are operands this reader has no use for
    } else {
      let j = i;
      while (j < s.length && !isSpace(s[j]!) && !isDelimiter(s[j]!)) j++;
      const token = Buffer.from(s.subarray(i, j)).toString('latin1');
      i = j;
      const n = Number(token);
      if (token !== '' && Number.isFinite(n)) {
        operands.push(n);
        continue;
      }
      if (token === 'BI') return false;
      if (token === 'q') stack.push(ctm);
      else if (token === 'Q') ctm = stack.pop() ?? IDENTITY;
      else if (token === 'cm') {
        const m = operands.slice(-6);
        if (m.length !== 6 || m.some((v) => typeof v !== 'number')) return false;
        ctm = times(m as Matrix, ctm);
      } else if (token === 'Do') {
        const name = operands.at(-1);
        const ref = typeof name === 'string' ? xobjects.get(name.slice(1)) : undefined;
        if (!ref) return false;
        const width = Math.hypot(ctm[0] * scale.x, ctm[1] * scale.y);
        const height = Math.hypot(ctm[2] * scale.x, ctm[3] * scale.y);
        const seen = sizes.get(ref.objectNumber);
        sizes.set(ref.objectNumber, {
          width: Math.max(width, seen?.width ?? 0),
          height: Math.max(height, seen?.height ?? 0),
        });
        if (!Number.isFinite(width) || !Number.isFinite(height)) unsure.add(ref.objectNumber);
      }
      operands = [];
    }
  }
  return true;
}
