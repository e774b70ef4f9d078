import { deflateSync, inflateSync } from 'node:zlib';
import {
  PDFArray,
  type PDFDocument,
  PDFName,
  PDFObjectCopier,
  type PDFPage,
  PDFRawStream,
  type PDFRef,
} from 'pdf-lib';

/** The page's content as one FlateDecode stream: as it is when it is one already. */
export function pageContent(page: PDFPage): Uint8Array {
  const ctx = page.doc.context;
  const contents = page.node.Contents();
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((r) => ctx.lookup(r)) : [contents];
  const parts: Buffer[] = [];
  for (const s of streams) {
    if (!(s instanceof PDFRawStream)) throw new Error('a page content that is not a stream');
    const filter = s.dict.get(PDFName.of('Filter'));
    if (filter === undefined) parts.push(Buffer.from(s.contents));
    else if (filter === PDFName.of('FlateDecode')) {
      // one compressed stream: its bytes serve as they are
      if (streams.length === 1 && !s.dict.has(PDFName.of('DecodeParms'))) return s.contents;
      parts.push(inflateSync(s.contents));
    } else throw new Error(`a page content filtered by ${filter.toString()}`);
  }
  return deflateSync(Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')])));
}

/**
 * Copies objects of other documents into `doc`, one copier per source document: what
 * pages of one source share (a variable item's records share its photo, fonts and fixed
 * art as form XObjects) is copied into `doc` once, not once per page.
 */
export function copiersInto(doc: PDFDocument): (source: PDFDocument) => PDFObjectCopier {
  const copiers = new Map<PDFDocument, PDFObjectCopier>();
  return (source) => {
    let copier = copiers.get(source);
    if (!copier) {
      copier = PDFObjectCopier.for(source.context, doc.context);
      copiers.set(source, copier);
    }
    return copier;
  };
}

/**
 * A page of another document as a form XObject of `doc`, clipped to `box` ([left, bottom,
 * right, top]) with that box's lower left at the form's origin: what pdf-lib's embedPage
 * makes, without decoding and compressing the content again in JavaScript (a press sheet
 * embeds some twenty pages; that was most of its time).
 */
export function embedPageAsForm(
  doc: PDFDocument,
  page: PDFPage,
  box: number[],
  content: Uint8Array,
  copierFor: (source: PDFDocument) => PDFObjectCopier = copiersInto(doc),
): PDFRef {
  const resources = copierFor(page.doc).copy(page.node.normalizedEntries().Resources);
  const form = doc.context.stream(content, {
    Type: 'XObject',
    Subtype: 'Form',
    FormType: 1,
    BBox: box,
    Matrix: [1, 0, 0, 1, -box[0]!, -box[1]!],
    Resources: resources,
    Filter: 'FlateDecode',
  });
  return doc.context.register(form);
}
