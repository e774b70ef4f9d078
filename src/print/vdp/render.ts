import { createHash, type Hash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { SealedDataset } from '../../datasets/sealed-file.ts';
import {
  type Design,
  fillFields,
  imageField,
  layerFields,
  layerName,
} from '../../domain/project/design.ts';
import { barcodeShapes } from '../barcode.ts';
import { codeContent, codeOps, codeProblem } from '../code-fit.ts';
import { RenderError } from '../errors.ts';
import { NO_EXTENSION, type PlacedImage, prepareImage } from '../images.ts';
import {
  type AreaPage,
  areaPage,
  cropMarkLines,
  printAreaOf,
  SLUG_LINE_Y,
  slugBarcodeMatrix,
  slugLineSize,
} from '../page-layout.ts';
import { type ImageLoader, type PrintItem, placement, type RenderFacts, toBleed } from '../pdf.ts';
import { deflatedProfile, md5, xmp } from '../pdfx.ts';
import { cmykOf } from '../profiles.ts';
import { ASCENT, fitText, glyphHex, UNITS_PER_EM, widthAt1pt } from '../text-fit.ts';
import { MIN_DPI, PT_PER_MM } from '../units.ts';
import { FONT_OBJECTS, type FontObjects, writeFontHead, writeFontTail } from './font.ts';
import { num, pdfText, StreamingPdf } from './writer.ts';

/** A variable item: what a print item is, printed in CMYK (variable data never with inks). */
export type VariableItem = Omit<PrintItem, 'inks'>;

export interface VariableSource {
  dataset: SealedDataset;
  /** the design's own images (its references into the image store, or data URLs) */
  loadImage: ImageLoader;
  /** an image of the label's image store by the name a row gives, as it was at the sale */
  labelImage: (name: string) => Promise<{ type: string; bytes: Buffer } | undefined>;
}

export interface VariableFile {
  records: number;
  pages: number;
  sha256: string;
  bytes: number;
  warnings: string[];
  facts: RenderFacts;
  /** where each record's bytes lie in the file: [first byte, end) */
  segments: Map<number, [number, number]>;
  /** the sha256 of each record's bytes that `hashRecords` named */
  segmentSha256: Map<number, string>;
}

/** Records under one node of the page tree (a record's pages stay under one node). */
const RECORDS_PER_GROUP = 1000;
/** Page-tree nodes the numbering keeps room for: 100,000 records, a data set's most. */
const MAX_GROUPS = 100;
/** DPart references in one inner array of a DParts array, as ISO 32000-2 allows at most. */
const MAX_DPARTS_PER_ARRAY = 8191;

const mm = (v: number) => v * PT_PER_MM;

// the objects every file has, by number; the rest follow from the design and the data set
const CATALOG = 1;
const PAGES = 2;
const INFO = 3;
const DPART_ROOT = 4;
const DPART_NODE = 5;
const PROFILE = 6;
const METADATA = 7;
const FONT: FontObjects = { type0: 8, cidFont: 9, descriptor: 10, file: 11, toUnicode: 12 };
const REGISTRATION = 8 + FONT_OBJECTS;
const FIRST_GROUP = REGISTRATION + 1;

type Layer = Design['areas'][number]['layers'][number];
type Piece =
  | { fixed: true; form: number; key: string }
  | { fixed: false; layer: Layer; li: number };

interface AreaPlan {
  area: { code: string; widthMm: number; heightMm: number };
  layout: AreaPage;
  boxes: string;
  clip: string;
  left: number;
  top: number;
  slugForm: number;
  pieces: Piece[];
  /** the page is a transparency group when an image may have alpha */
  images: boolean;
}

const pdfDate = (d: Date) =>
  `D:${d
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, '')}Z`;

/**
 * The print file of a variable item as PDF/VT-1 over PDF/X-4, written as a stream to
 * `sink`: one record per data set row (or the rows `records` names), each a DPart
 * with the record number and the row's first field in its metadata; what the records
 * share (fixed images, text and codes; the slug's barcode and crop marks) drawn once
 * as form XObjects every record's page uses. Object numbers follow from the design, the
 * data set and the record's number alone, so a record has the same bytes in the whole
 * file and in a file of itself (its segment). Memory holds one record, the images a
 * row names (each once, written before its first record) and the glyphs used.
 */
export async function renderVariable(
  item: VariableItem,
  source: VariableSource,
  sink: (bytes: Buffer) => void,
  options: { records?: number[]; hashRecords?: ReadonlySet<number>; onRecord?: () => void } = {},
): Promise<VariableFile> {
  const { dataset } = source;
  const R = dataset.rows;
  if (R > RECORDS_PER_GROUP * MAX_GROUPS)
    throw new RenderError(`${R} records: a variable item has at most 100,000`);
  const records = options.records ?? null;
  // a record's own bytes hashed as they pass, where `hashRecords` asks for them
  let recordHash: Hash | undefined;
  const pdf = new StreamingPdf((bytes) => {
    recordHash?.update(bytes);
    sink(bytes);
  });
  const segmentSha256 = new Map<number, string>();
  const used = new Map<number, number>();
  const warnings: string[] = [];
  const facts = { coverage: 0, process: [false, false, false, false] };
  const cmykCache = new Map<string, string>();
  const cmyk = async (hex: string) => {
    let c = cmykCache.get(hex);
    if (c === undefined) {
      const v = await cmykOf(item.profile, hex);
      v.forEach((x, i) => {
        if (x > 0) facts.process[i] = true;
      });
      facts.coverage = Math.max(facts.coverage, v[0] + v[1] + v[2] + v[3]);
      c = v.map(num).join(' ');
      cmykCache.set(hex, c);
    }
    return c;
  };
  let minDpi: number | undefined;
  const noteImage = (placed: PlacedImage, path: string) => {
    facts.coverage = Math.max(facts.coverage, placed.maxCoverage);
    for (const i of [0, 1, 2, 3]) facts.process[i] = true;
    minDpi = Math.min(minDpi ?? Number.POSITIVE_INFINITY, placed.effectiveDpi);
    if (placed.effectiveDpi < MIN_DPI)
      warnings.push(`${path}: ${placed.effectiveDpi} dpi at its placed size (under ${MIN_DPI})`);
  };

  // ---- the shared part, numbered in the design's order ----
  let next = FIRST_GROUP + MAX_GROUPS;
  const createdAt = item.createdAt;
  const profile = item.profile;
  pdf.object(
    CATALOG,
    `<</Type /Catalog /Pages ${PAGES} 0 R /DPartRoot ${DPART_ROOT} 0 R /Metadata ${METADATA} 0 R /OutputIntents [<</Type /OutputIntent /S /GTS_PDFX /OutputConditionIdentifier ${pdfText(profile.description || 'CMYK output condition')} /OutputCondition ${pdfText(profile.description || 'CMYK output condition')} /Info ${pdfText(profile.description || 'CMYK output condition')} /RegistryName (http://www.color.org) /DestOutputProfile ${PROFILE} 0 R>>]>>`,
  );
  const title = `Print file ${item.orderItemId}`;
  const subject = `Order ${item.orderId}, ${item.sku}, ${R} records`;
  pdf.object(
    INFO,
    `<</Title ${pdfText(title)} /Subject ${pdfText(subject)} /Producer (editor-platform) /Creator (editor-platform) /CreationDate (${pdfDate(createdAt)}) /ModDate (${pdfDate(createdAt)}) /GTS_PDFXVersion (PDF/X-4) /GTS_PDFVTVersion (PDF/VT-1) /Trapped /False>>`,
  );
  pdf.object(
    DPART_ROOT,
    `<</Type /DPartRoot /DPartRootNode ${DPART_NODE} 0 R /RecordLevel 1 /NodeNameList [/Job /Record]>>`,
  );
  pdf.stream(PROFILE, ' /N 4 /Filter /FlateDecode', Buffer.from(deflatedProfile(profile)));
  const versionKey = `${item.orderItemId}:${item.barcode.format}:${item.barcode.value}:${dataset.rows}`;
  pdf.stream(
    METADATA,
    ' /Type /Metadata /Subtype /XML',
    Buffer.from(
      xmp({
        title,
        subject,
        createdAt,
        profile,
        documentKey: item.orderItemId,
        versionKey,
        vt: true,
      }),
      'utf8',
    ),
  );
  writeFontHead(pdf, FONT);
  if (item.cropMarks)
    pdf.object(
      REGISTRATION,
      `[/Separation /All /DeviceCMYK <</FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [1 1 1 1] /N 1>>]`,
    );

  const writeImage = (n: number, placed: PlacedImage) => {
    const common = `/Type /XObject /Subtype /Image /Width ${placed.width} /Height ${placed.height} /ColorSpace /DeviceCMYK /BitsPerComponent 8`;
    let smask = '';
    if (placed.alpha) {
      pdf.stream(
        n + 1,
        ` /Type /XObject /Subtype /Image /Width ${placed.width} /Height ${placed.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
        deflateSync(placed.alpha),
      );
      smask = ` /SMask ${n + 1} 0 R`;
    }
    if (placed.data.filter === 'DCTDecode')
      pdf.stream(
        n,
        ` ${common}${smask} /Filter /DCTDecode${placed.data.adobe ? ' /Decode [1 0 1 0 1 0 1 0]' : ''}`,
        placed.data.bytes,
      );
    else pdf.stream(n, ` ${common}${smask} /Filter /FlateDecode`, deflateSync(placed.data.bytes));
  };

  const barcode = barcodeShapes(item.barcode.format, item.barcode.value);
  const slugLine = (r: number) =>
    `Order ${item.orderId} · Item ${item.orderItemId} · ${item.sku} · record ${r} of ${R}`;
  const plans: AreaPlan[] = [];
  const imageLayers: { ai: number; li: number; layer: Extract<Layer, { type: 'image' }> }[] = [];
  for (const [ai, area] of item.design.areas.entries()) {
    const spec = printAreaOf(item, ai, area.printArea);
    const W = spec.widthMm;
    const H = spec.heightMm;
    const layout = areaPage(spec, item.cropMarks);
    const [bx, by, bw, bh] = layout.bleed;
    const [tx, ty, tw, th] = layout.trim;
    const pageW = layout.width;
    const pageH = layout.height;
    const plan: AreaPlan = {
      area: spec,
      layout,
      boxes: `/MediaBox [0 0 ${num(pageW)} ${num(pageH)}] /BleedBox [${[bx, by, bx + bw, by + bh].map(num).join(' ')}] /TrimBox [${[tx, ty, tx + tw, ty + th].map(num).join(' ')}]`,
      clip: `${layout.bleed.map(num).join(' ')} re W n`,
      left: layout.left,
      top: layout.top,
      slugForm: next++,
      pieces: [],
      images: area.layers.some((l) => l.type === 'image'),
    };
    const { left, top } = layout;
    // the slug's shared part: the item's barcode and the crop marks
    const slug: string[] = [
      `q 0 0 0 1 k ${slugBarcodeMatrix(layout, item.barcode.format, barcode).map(num).join(' ')} cm`,
    ];
    for (const b of barcode.bars)
      slug.push(`${num(b.x)} ${num(b.y)} ${num(b.width)} ${num(b.height)} re`);
    for (const poly of barcode.polygons)
      slug.push(`${poly.map(([x, y], i) => `${num(x)} ${num(y)} ${i ? 'l' : 'm'}`).join(' ')} h`);
    slug.push('f Q');
    if (item.cropMarks) {
      slug.push('q /All CS 1 SCN 0.25 w');
      for (const [x1, y1, x2, y2] of cropMarkLines(layout.trim))
        slug.push(`${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l`);
      slug.push('S Q');
    }
    pdf.stream(
      plan.slugForm,
      ` /Type /XObject /Subtype /Form /BBox [0 0 ${num(pageW)} ${num(pageH)}] /Resources <<${item.cropMarks ? ` /ColorSpace <</All ${REGISTRATION} 0 R>>` : ''}>> /Filter /FlateDecode`,
      deflateSync(slug.join('\n')),
    );

    // runs of fixed layers: one form each
    let run: { content: string[]; images: string[] } | undefined;
    const flush = () => {
      if (!run) return;
      const n = next++;
      pdf.stream(
        n,
        ` /Type /XObject /Subtype /Form /BBox [0 0 ${num(pageW)} ${num(pageH)}] /Resources <</Font <</F1 ${FONT.type0} 0 R>> /XObject <<${run.images.join(' ')}>>>>${plan.images ? ' /Group <</Type /Group /S /Transparency /CS /DeviceCMYK /I false /K false>>' : ''} /Filter /FlateDecode`,
        deflateSync(run.content.join('\n')),
      );
      plan.pieces.push({ fixed: true, form: n, key: `X${n}` });
      run = undefined;
    };
    for (const [li, layer] of area.layers.entries()) {
      const path = layerName(area.printArea, li);
      if (layerFields(layer).length > 0) {
        flush();
        plan.pieces.push({ fixed: false, layer, li });
        if (layer.type === 'image') imageLayers.push({ ai, li, layer });
        continue;
      }
      run ??= { content: [], images: [] };
      if (layer.type === 'image') {
        const n = next;
        next += 2;
        const extend = layer.rotation === 0 ? toBleed(layer, W, H) : NO_EXTENSION;
        const placed = await prepareImage(
          await source.loadImage(layer.src),
          layer.width,
          layer.height,
          path,
          profile,
          extend,
        );
        noteImage(placed, path);
        writeImage(n, placed);
        run.images.push(`/I${n} ${n} 0 R`);
        run.content.push(imageOps(placed, layer, left, top, `/I${n}`));
      } else if (layer.type === 'text') {
        run.content.push(await textOps(layer, layer.text, left, top, path));
      } else {
        run.content.push(codeOpsOf(layer, layer.data, left, top, path));
      }
    }
    flush();
    plans.push(plan);
  }

  async function textOps(
    layer: Extract<Layer, { type: 'text' }>,
    text: string,
    left: number,
    top: number,
    path: string,
  ): Promise<string> {
    const fitted = fitText(layer, text);
    if ('overflow' in fitted)
      throw new RenderError(`${path}: the text does not fit its box: ${fitted.overflow}`);
    const size = fitted.size;
    const ascent = (ASCENT / UNITS_PER_EM) * size;
    return `q ${await cmyk(layer.color)} k BT /F1 ${num(size)} Tf 1 0 0 1 ${num(left + mm(layer.x))} ${num(top - mm(layer.y) - ascent)} Tm <${glyphHex(text, used)}> Tj ET Q`;
  }

  function codeOpsOf(
    layer: Extract<Layer, { type: 'code' }>,
    data: string,
    left: number,
    top: number,
    path: string,
  ): string {
    const problem = codeProblem(layer, data);
    if (problem) throw new RenderError(`${path}: ${problem}`, 'barcode');
    facts.process[3] = true;
    facts.coverage = Math.max(facts.coverage, 1);
    return codeContent(codeOps(layer, data, left + mm(layer.x), top - mm(layer.y)));
  }

  // images a row names: numbered by layer, then by name (the data set's distinct names, sorted)
  const fieldIndex = new Map(dataset.fields.map((f, i) => [f, i]));
  const fieldsOfRow = (values: string[]) => (f: string) => {
    const i = fieldIndex.get(f);
    return i === undefined ? undefined : values[i];
  };
  const named = imageLayers.map(() => new Set<string>());
  if (imageLayers.length > 0)
    for (const [, values] of dataset.each())
      for (const [k, { layer }] of imageLayers.entries()) {
        const name = fieldsOfRow(values)(imageField(layer.src)!);
        if (name) named[k]!.add(name);
      }
  const imageNumbers = imageLayers.map((_, k) => {
    const numbers = new Map<string, number>();
    for (const name of [...named[k]!].sort()) {
      numbers.set(name, next);
      next += 2;
    }
    return numbers;
  });
  /** each image a row names, once written: how a page draws it */
  const written = new Map<number, string>();

  // ---- the records ----
  const perRecord = 2 * plans.length + 1;
  const base = next;
  const firstField = dataset.fields[0]!;
  // every record's slug line set at the size of the longest (the last record's)
  const slugSizes = plans.map((p) => slugLineSize(p.layout, widthAt1pt(slugLine(R)) * 6));
  const segments = new Map<number, [number, number]>();
  const wanted = records ?? Array.from({ length: R }, (_, i) => i + 1);
  for (const r of wanted) {
    options.onRecord?.();
    const values = dataset.row(r);
    const row = fieldsOfRow(values);
    const pageContents: string[] = [];
    const pageImages: string[][] = [];
    for (const [ai, plan] of plans.entries()) {
      const ops: string[] = [`q ${plan.clip}`];
      const xobjects: string[] = [`/S${ai} ${plan.slugForm} 0 R`];
      for (const piece of plan.pieces) {
        if (piece.fixed) {
          ops.push(`/${piece.key} Do`);
          xobjects.push(`/${piece.key} ${piece.form} 0 R`);
          continue;
        }
        const { layer, li } = piece;
        const path = `record ${r}, ${layerName(plan.area.code, li)}`;
        if (layer.type === 'text') {
          ops.push(await textOps(layer, fillFields(layer.text, row), plan.left, plan.top, path));
        } else if (layer.type === 'code') {
          ops.push(codeOpsOf(layer, fillFields(layer.data, row), plan.left, plan.top, path));
        } else {
          const k = imageLayers.findIndex((l) => l.ai === ai && l.li === li);
          const name = row(imageField(layer.src)!) ?? '';
          const n = imageNumbers[k]!.get(name);
          if (n === undefined)
            throw new RenderError(`${path}: the row names no image`, 'image_missing');
          let drawn = written.get(n);
          if (drawn === undefined) {
            const image = await source.labelImage(name);
            if (!image)
              throw new RenderError(
                `${path}: no image ${name} in the label's images`,
                'image_missing',
              );
            const extend =
              layer.rotation === 0
                ? toBleed(layer, plan.area.widthMm, plan.area.heightMm)
                : NO_EXTENSION;
            const placed = await prepareImage(
              image,
              layer.width,
              layer.height,
              path,
              profile,
              extend,
            );
            noteImage(placed, `${layerName(plan.area.code, li)} (${name})`);
            writeImage(n, placed);
            drawn = imageOps(placed, layer, plan.left, plan.top, `/V${n}`);
            written.set(n, drawn);
          }
          ops.push(drawn);
          xobjects.push(`/V${n} ${n} 0 R`);
        }
      }
      ops.push('Q', `/S${ai} Do`);
      const size = slugSizes[ai]!;
      ops.push(
        `q 0 0 0 1 k BT /F1 ${num(size)} Tf 1 0 0 1 ${num(plan.layout.slugX)} ${num(SLUG_LINE_Y)} Tm <${glyphHex(slugLine(r), used)}> Tj ET Q`,
      );
      pageContents.push(ops.join('\n'));
      pageImages.push(xobjects);
    }
    const first = base + (r - 1) * perRecord;
    const group = FIRST_GROUP + Math.floor((r - 1) / RECORDS_PER_GROUP);
    const dpart = first + 2 * plans.length;
    const start = pdf.bytes;
    recordHash = options.hashRecords?.has(r) ? createHash('sha256') : undefined;
    for (const [ai, plan] of plans.entries()) {
      const page = first + ai;
      const content = first + plans.length + ai;
      pdf.object(
        page,
        `<</Type /Page /Parent ${group} 0 R ${plan.boxes} /Resources <</Font <</F1 ${FONT.type0} 0 R>> /XObject <<${pageImages[ai]!.join(' ')}>>>> /Contents ${content} 0 R /DPart ${dpart} 0 R${plan.images ? ' /Group <</Type /Group /S /Transparency /CS /DeviceCMYK /I false /K false>>' : ''}>>`,
      );
      pdf.stream(content, ' /Filter /FlateDecode', deflateSync(pageContents[ai]!));
    }
    pdf.object(
      dpart,
      `<</Type /DPart /Parent ${DPART_NODE} 0 R /Start ${first} 0 R${plans.length > 1 ? ` /End ${first + plans.length - 1} 0 R` : ''} /DPM <</CIP4_Root <</CIP4_Recipient <</CIP4_UniqueID (${r}) /RecordNumber ${r} /${firstField} ${pdfText(values[0] ?? '')}>>>>>>>>`,
    );
    segments.set(r, [start, pdf.bytes]);
    if (recordHash) segmentSha256.set(r, recordHash.digest('hex'));
    recordHash = undefined;
  }

  // ---- what lists the records: written last ----
  writeFontTail(pdf, FONT, used);
  const groups = new Map<number, number[]>();
  for (const r of wanted) {
    const g = Math.floor((r - 1) / RECORDS_PER_GROUP);
    const list = groups.get(g) ?? [];
    list.push(r);
    groups.set(g, list);
  }
  for (const [g, rs] of groups) {
    const kids = rs.flatMap((r) => plans.map((_, ai) => `${base + (r - 1) * perRecord + ai} 0 R`));
    pdf.object(
      FIRST_GROUP + g,
      `<</Type /Pages /Parent ${PAGES} 0 R /Kids [${kids.join(' ')}] /Count ${kids.length}>>`,
    );
  }
  const pages = wanted.length * plans.length;
  pdf.object(
    PAGES,
    `<</Type /Pages /Kids [${[...groups.keys()].map((g) => `${FIRST_GROUP + g} 0 R`).join(' ')}] /Count ${pages}>>`,
  );
  const arrays: string[] = [];
  for (let i = 0; i < wanted.length; i += MAX_DPARTS_PER_ARRAY)
    arrays.push(
      `[${wanted
        .slice(i, i + MAX_DPARTS_PER_ARRAY)
        .map((r) => `${base + (r - 1) * perRecord + 2 * plans.length} 0 R`)
        .join(' ')}]`,
    );
  pdf.object(
    DPART_NODE,
    `<</Type /DPart /Parent ${DPART_ROOT} 0 R /DParts [${arrays.join(' ')}]>>`,
  );
  const done = pdf.finish({
    root: CATALOG,
    info: INFO,
    id: [md5(item.orderItemId), md5(versionKey)],
  });
  const plates = ['Cyan', 'Magenta', 'Yellow', 'Black'].filter((_, i) => facts.process[i]);
  return {
    records: wanted.length,
    pages,
    sha256: done.sha256,
    bytes: done.bytes,
    warnings,
    facts: {
      maxCoverage: Math.round(facts.coverage * 1000) / 1000,
      plates,
      inks: undefined,
      minDpi,
    },
    segments,
    segmentSha256,
  };
}

/** An image drawn into its layer's box (extended into the bleed where it reaches the trim). */
function imageOps(
  placed: PlacedImage,
  layer: { x: number; y: number; width: number; height: number; rotation: number },
  left: number,
  top: number,
  key: string,
): string {
  const e = placed.extension;
  const m = placement(
    left + mm(layer.x - e.left),
    top - mm(layer.y + layer.height + e.bottom),
    mm(layer.width + e.left + e.right),
    mm(layer.height + e.top + e.bottom),
    layer.rotation,
  );
  return `q ${m.map(num).join(' ')} cm ${key} Do Q`;
}
