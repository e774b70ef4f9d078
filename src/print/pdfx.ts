import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFDict, type PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import type { OutputProfile } from './profiles.ts';

export interface PdfXFacts {
  title: string;
  subject: string;
  /** the print file's dates: the order's, so the same order gives the same bytes */
  createdAt: Date;
  profile: OutputProfile;
  /** what the document is (its first trailer ID): the order item */
  documentKey: string;
  /** which version of it (the second trailer ID): changes with the barcode */
  versionKey: string;
  /** a PDF/VT-1 file (variable data): its version in the metadata too */
  vt?: boolean;
}

const deflated = new Map<string, Uint8Array>();
/** A profile is a megabyte; every file embeds it, compressed once per process. */
export function deflatedProfile(profile: OutputProfile): Uint8Array {
  let d = deflated.get(profile.sha256);
  if (!d) {
    d = deflateSync(profile.bytes, { level: 9 });
    deflated.set(profile.sha256, d);
  }
  return d;
}

export const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const uuidOf = (hex: string) =>
  `uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** XMP metadata as PDF/X-4 asks: the PDF/X version, trapping, title, dates, ids. */
export function xmp(f: PdfXFacts): string {
  const at = f.createdAt.toISOString().replace(/\.\d+Z$/, 'Z');
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
    xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/"${f.vt ? '\n    xmlns:pdfvtid="http://www.npes.org/pdfvt/ns/id/"' : ''}>
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlEscape(f.title)}</rdf:li></rdf:Alt></dc:title>
   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlEscape(f.subject)}</rdf:li></rdf:Alt></dc:description>
   <xmp:CreateDate>${at}</xmp:CreateDate>
   <xmp:ModifyDate>${at}</xmp:ModifyDate>
   <xmp:MetadataDate>${at}</xmp:MetadataDate>
   <xmp:CreatorTool>editor-platform</xmp:CreatorTool>
   <pdf:Producer>editor-platform</pdf:Producer>
   <pdf:Trapped>False</pdf:Trapped>
   <xmpMM:DocumentID>${uuidOf(md5(f.documentKey))}</xmpMM:DocumentID>
   <xmpMM:InstanceID>${uuidOf(md5(f.versionKey))}</xmpMM:InstanceID>
   <xmpMM:RenditionClass>default</xmpMM:RenditionClass>
   <xmpMM:VersionID>1</xmpMM:VersionID>
   <pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>${f.vt ? `\n   <pdfvtid:GTS_PDFVTVersion>PDF/VT-1</pdfvtid:GTS_PDFVTVersion>\n   <pdfvtid:GTS_PDFVTModDate>${at}</pdfvtid:GTS_PDFVTModDate>` : ''}
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

/**
 * pdf-lib writes every file with a PDF 1.7 header (its writer does not read the
 * document's); PDF/X-4 is PDF 1.6. The header has the same length, so it is rewritten in
 * place and no offset moves. Nothing the file holds needs more than 1.6.
 */
export function asPdf16(bytes: Uint8Array): Uint8Array {
  const head = Buffer.from(bytes.subarray(0, 8)).toString('latin1');
  if (head !== '%PDF-1.7') throw new Error(`unexpected PDF header ${head}`);
  bytes.set(Buffer.from('%PDF-1.6', 'latin1'), 0);
  return bytes;
}

/**
 * Makes a document PDF/X-4 (with `asPdf16` on its saved bytes): the output intent (GTS_PDFX) with
 * the CMYK profile as its destination profile; the document information dictionary with
 * GTS_PDFXVersion, Trapped, title and dates; XMP metadata saying the same; a trailer ID.
 * Everything derives from the facts, so the same order gives the same bytes.
 */
export function makePdfX4(doc: PDFDocument, f: PdfXFacts): void {
  const ctx = doc.context;
  doc.setTitle(f.title);
  doc.setSubject(f.subject);
  doc.setProducer('editor-platform');
  doc.setCreator('editor-platform');
  doc.setCreationDate(f.createdAt);
  doc.setModificationDate(f.createdAt);
  const info = ctx.lookup(ctx.trailerInfo.Info, PDFDict);
  info.set(PDFName.of('GTS_PDFXVersion'), PDFString.of('PDF/X-4'));
  info.set(PDFName.of('Trapped'), PDFName.of('False'));

  const profile = ctx.stream(deflatedProfile(f.profile), { N: 4, Filter: 'FlateDecode' });
  const text = f.profile.description || 'CMYK output condition';
  const condition = /^[\x20-\x7e]*$/.test(text) ? PDFString.of(text) : PDFHexString.fromText(text);
  const intent = ctx.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFX',
    OutputConditionIdentifier: condition,
    OutputCondition: condition,
    Info: condition,
    RegistryName: PDFString.of('http://www.color.org'),
    DestOutputProfile: ctx.register(profile),
  });
  doc.catalog.set(PDFName.of('OutputIntents'), ctx.obj([intent]));

  // XMP is left uncompressed, as PDF/X readers expect to find it
  const metadata = ctx.stream(new TextEncoder().encode(xmp(f)), {
    Type: 'Metadata',
    Subtype: 'XML',
  });
  doc.catalog.set(PDFName.of('Metadata'), ctx.register(metadata));

  ctx.trailerInfo.ID = ctx.obj([
    PDFHexString.of(md5(f.documentKey)),
    PDFHexString.of(md5(f.versionKey)),
  ]);
}
