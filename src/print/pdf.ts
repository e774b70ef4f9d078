import { deflateSync } from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';
import {
  beginText,
  clip,
  closePath,
  concatTransformationMatrix,
  drawObject,
  endPath,
  endText,
  fill,
  lineTo,
  moveTo,
  PDFDict,
  PDFDocument,
  type PDFFont,
  PDFName,
  PDFNumber,
  PDFObject,
  PDFOperator,
  PDFOperatorNames,
  type PDFPage,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  setFillingCmykColor,
  setFontAndSize,
  setLineWidth,
  setTextMatrix,
  showText,
  stroke,
} from 'pdf-lib';
import type { BarcodeFormat } from '../domain/order/barcode.ts';
import {
  type Design,
  imageField,
  layerBox,
  layerName,
  parseDataUrl,
} from '../domain/project/design.ts';
import { barcodeShapes } from './barcode.ts';
import { type CodeOp, codeOps, codeProblem } from './code-fit.ts';
import { RenderError } from './errors.ts';
import { FONT, subsetTag } from './fonts.ts';
import {
  type Extension,
  type InkImage,
  NO_EXTENSION,
  type PlacedImage,
  prepareImage,
  prepareInkImage,
} from './images.ts';
import { designInks, inkFor } from './inks.ts';
import {
  type AreaPage,
  areaPage,
  cropMarkLines,
  printAreaOf,
  type Rect,
  SLUG_LINE_Y,
  slugBarcodeMatrix,
  slugLineSize,
} from './page-layout.ts';
import { asPdf16, makePdfX4 } from './pdfx.ts';
import { type Cmyk, cmykOf, type OutputProfile } from './profiles.ts';
import { fitText } from './text-fit.ts';
import { BLEED_MM, MIN_DPI, PT_PER_MM } from './units.ts';

export interface PrintItem {
  orderId: string;
  orderItemId: string;
  sku: string;
  printMethod: string;
  printColors: number;
  printAreas: { code: string; name: string; widthMm: number; heightMm: number }[];
  design: Design;
  barcode: { format: BarcodeFormat; value: string };
  /** the PDF's dates: from the recorded order, so the same events give the same bytes */
  createdAt: Date;
  /** the output condition: images and colours are converted to its CMYK */
  profile: OutputProfile;
  /** printed with inks (screen, pad, engraving): each colour a spot colour of its own */
  inks: boolean;
  /** crop marks at the trim corners, outside the bleed (the page grows to hold them) */
  cropMarks: boolean;
}

/** What the renderer knows of the file it made, for its preflight. */
export interface RenderFacts {
  /** the highest C+M+Y+K of anything printed inside the bleed, 0-4 */
  maxCoverage: number;
  /** the plates printed inside the bleed: process (Cyan, Magenta, Yellow, Black) and spots */
  plates: string[];
  /** the inks of a product printed with inks, by name */
  inks: string[] | undefined;
  minDpi: number | undefined;
}

export interface PrintFile {
  bytes: Uint8Array;
  pages: number;
  images: { area: string; layer: number; effectiveDpi: number }[];
  warnings: string[];
  facts: RenderFacts;
}

export type ImageLoader = (src: string) => Promise<{ type: string; bytes: Buffer } | undefined>;

const inlineOnly: ImageLoader = async (src) => parseDataUrl(src);
const mm = (v: number) => v * PT_PER_MM;
const PROCESS = ['Cyan', 'Magenta', 'Yellow', 'Black'] as const;

/**
 * A PDF name written with every character outside the regular set escaped as #xx, `#`
 * itself included (pdf-lib leaves `#` as it is, so "Spot 1 #1A2B3C" would be read back as
 * "Spot 1 \x1A2B3C").
 */
class EscapedName extends PDFObject {
  private readonly encoded: string;
  constructor(name: string) {
    super();
    let out = '/';
    for (const byte of Buffer.from(name, 'utf8')) {
      const regular =
        byte > 0x20 && byte < 0x7f && !'#()<>[]{}/%'.includes(String.fromCharCode(byte));
      out += regular
        ? String.fromCharCode(byte)
        : `#${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    this.encoded = out;
  }
  override clone(): EscapedName {
    return this;
  }
  override toString(): string {
    return this.encoded;
  }
  override sizeInBytes(): number {
    return this.encoded.length;
  }
  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    for (let i = 0; i < this.encoded.length; i++) buffer[offset + i] = this.encoded.charCodeAt(i);
    return this.encoded.length;
  }
}

const op = (name: PDFOperatorNames, ...args: (PDFName | PDFNumber)[]) => PDFOperator.of(name, args);
const inkColour = (ink: number) => [
  op(PDFOperatorNames.NonStrokingColorspace, PDFName.of(`Ink${ink}`)),
  op(PDFOperatorNames.NonStrokingColorN, PDFNumber.of(1)),
];
/** A code's shapes as pdf-lib operators (the fill and colour are the caller's). */
function codeOperators(ops: CodeOp[]): PDFOperator[] {
  return ops.map(([name, ...args]) =>
    name === 're'
      ? rectangle(...(args as [number, number, number, number]))
      : name === 'h'
        ? closePath()
        : name === 'm'
          ? moveTo(args[0]!, args[1]!)
          : lineTo(args[0]!, args[1]!),
  );
}

/** The page's resource dictionary of one kind (ColorSpace, XObject), made when missing. */
export function resources(page: PDFPage, kind: string): PDFDict {
  const res = page.node.normalizedEntries().Resources;
  let dict = res.lookupMaybe(PDFName.of(kind), PDFDict);
  if (!dict) {
    dict = page.doc.context.obj({});
    res.set(PDFName.of(kind), dict);
  }
  return dict;
}

/**
 * One PDF/X-4 file per order item, one page per print area of the design. TrimBox = the
 * print area, BleedBox = TrimBox + 3 mm, MediaBox = BleedBox + a 15 mm slug below it
 * holding the barcode and a line naming order, item, SKU, print method and colours (and,
 * with crop marks, 10 mm more around the bleed for them). Everything is CMYK in the
 * output profile's terms: images converted to it (CMYK ones kept), black text, barcode
 * and slug 100% K; a product printed with inks gets one spot colour per ink instead.
 * Image layers that reach the trim edge are extended into the bleed by mirroring their
 * edges. Dates and ids come from the input only, so the same input gives the same bytes.
 */
export async function renderPrintFile(
  item: PrintItem,
  onProgress: () => void = () => {},
  loadImage: ImageLoader = inlineOnly,
): Promise<PrintFile> {
  const inks = item.inks ? await designInks(item.design, item.printColors, loadImage) : undefined;
  const doc = await PDFDocument.create({ updateMetadata: false });
  const ctx = doc.context;
  doc.registerFontkit(fontkit);
  const slugLine = `Order ${item.orderId} · Item ${item.orderItemId} · ${item.sku} · ${item.printMethod || 'n/a'} · ${item.printColors} colours${inks ? ` (${inks.map((i) => i.name).join(', ')})` : ''}`;
  const texts = [
    slugLine,
    ...item.design.areas.flatMap((a) =>
      a.layers.flatMap((l) => (l.type === 'text' ? [l.text] : [])),
    ),
  ];
  const font = await doc.embedFont(FONT, {
    subset: true,
    customName: `${subsetTag(texts)}+DejaVuSans`,
  });
  const barcode = barcodeShapes(item.barcode.format, item.barcode.value);

  // spot colours: one Separation per ink, CMYK alternates through the output profile
  const separation = (name: string, alternate: Cmyk): PDFRef =>
    ctx.register(
      ctx.obj([
        PDFName.of('Separation'),
        new EscapedName(name),
        PDFName.of('DeviceCMYK'),
        ctx.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: alternate, N: 1 }),
      ]),
    );
  // the alternates are looked up together, but the objects are registered one after
  // another in the inks' order: object numbers must follow the design, not which colour
  // lookup happened to finish first
  const alternates = inks
    ? await Promise.all(inks.map((ink) => cmykOf(item.profile, ink.hex)))
    : [];
  const inkSpaces = (inks ?? []).map((ink, i) => separation(ink.name, alternates[i]!));
  const registration = item.cropMarks ? separation('All', [1, 1, 1, 1]) : undefined;

  const images: PrintFile['images'] = [];
  const warnings: string[] = [];
  const facts = { coverage: 0, process: [false, false, false, false], spots: new Set<string>() };
  let imageCount = 0;
  let transparency = false;

  for (const [ai, area] of item.design.areas.entries()) {
    const spec = printAreaOf(item, ai, area.printArea);
    const W = spec.widthMm;
    const H = spec.heightMm;
    const layout = areaPage(spec, item.cropMarks);
    const page = doc.addPage([layout.width, layout.height]);
    page.setMediaBox(0, 0, layout.width, layout.height);
    page.setBleedBox(...layout.bleed);
    page.setTrimBox(...layout.trim);
    const { left, top } = layout;
    const colorSpaces = resources(page, 'ColorSpace');
    for (const [i, ref] of inkSpaces.entries()) colorSpaces.set(PDFName.of(`Ink${i}`), ref);
    if (registration) colorSpaces.set(PDFName.of('All'), registration);
    const fontKey = page.node.newFontDictionary('F', font.ref);

    page.pushOperators(pushGraphicsState(), rectangle(...layout.bleed), clip(), endPath());
    for (const [li, layer] of area.layers.entries()) {
      onProgress();
      const path = layerName(area.printArea, li);
      const box = layerBox(layer);
      if (box.x >= W || box.y >= H || box.x + box.width <= 0 || box.y + box.height <= 0) {
        throw new RenderError(`${path}: the layer lies wholly outside print area ${spec.code}`);
      }
      // a data set fills this layer: the variable-data renderer draws it (vdp/), a preview leaves
      // it out
      if (layer.type === 'image' && imageField(layer.src) !== undefined) continue;
      if (layer.type === 'image') {
        const extend = layer.rotation === 0 ? toBleed(box, W, H) : NO_EXTENSION;
        const source = await loadImage(layer.src);
        const placed = inks
          ? await prepareInkImage(
              source,
              layer.width,
              layer.height,
              path,
              inks.map((i) => i.rgb),
              extend,
            )
          : await prepareImage(source, layer.width, layer.height, path, item.profile, extend);
        const x = left + mm(layer.x - placed.extension.left);
        const y = top - mm(layer.y + layer.height + placed.extension.bottom);
        const w = mm(layer.width + placed.extension.left + placed.extension.right);
        const h = mm(layer.height + placed.extension.top + placed.extension.bottom);
        const matrix = placement(x, y, w, h, layer.rotation);
        if ('masks' in placed) {
          for (const [ink, mask] of placed.masks) {
            const key = page.node.newXObject('Im', ctx.register(maskXObject(doc, placed, mask)));
            facts.spots.add(inks![ink]!.name);
            page.pushOperators(
              pushGraphicsState(),
              op(PDFOperatorNames.NonStrokingColorspace, PDFName.of(`Ink${ink}`)),
              op(PDFOperatorNames.NonStrokingColorN, PDFNumber.of(1)),
              concatTransformationMatrix(...matrix),
              drawObject(key),
              popGraphicsState(),
            );
          }
        } else {
          const key = page.node.newXObject('Im', ctx.register(imageXObject(doc, placed)));
          transparency ||= placed.alpha !== undefined;
          facts.coverage = Math.max(facts.coverage, placed.maxCoverage);
          // which plates an image prints on is told by its samples: all four, as a rule
          for (const i of [0, 1, 2, 3]) facts.process[i] = true;
          page.pushOperators(
            pushGraphicsState(),
            concatTransformationMatrix(...matrix),
            drawObject(key),
            popGraphicsState(),
          );
        }
        imageCount++;
        images.push({ area: spec.code, layer: li, effectiveDpi: placed.effectiveDpi });
        if (placed.effectiveDpi < MIN_DPI) {
          warnings.push(
            `${path}: ${placed.effectiveDpi} dpi at its placed size (under ${MIN_DPI})`,
          );
        }
      } else if (layer.type === 'code') {
        let colour: PDFOperator[];
        if (inks) {
          const ink = inkFor(inks, '#000000');
          facts.spots.add(inks[ink]!.name);
          colour = inkColour(ink);
        } else {
          facts.process[3] = true;
          facts.coverage = Math.max(facts.coverage, 1);
          colour = [setFillingCmykColor(0, 0, 0, 1)];
        }
        const problem = codeProblem(layer, layer.data);
        if (problem) throw new RenderError(`${path}: ${problem}`, 'barcode');
        const drawn = codeOps(layer, layer.data, left + mm(layer.x), top - mm(layer.y));
        // the knockout: paper white under the code, its quiet zone included
        const white = inks
          ? []
          : [setFillingCmykColor(0, 0, 0, 0), rectangle(...drawn.knockout), fill()];
        page.pushOperators(
          pushGraphicsState(),
          ...white,
          ...colour,
          ...codeOperators(drawn.shapes),
          fill(),
        );
        page.pushOperators(popGraphicsState());
      } else {
        const fitted = fitText(layer, layer.text);
        if ('overflow' in fitted)
          throw new RenderError(`${path}: the text does not fit its box: ${fitted.overflow}`);
        const size = fitted.size;
        const ascent = font.heightAtSize(size, { descender: false });
        let colour: PDFOperator[];
        if (inks) {
          const ink = inkFor(inks, layer.color);
          facts.spots.add(inks[ink]!.name);
          colour = inkColour(ink);
        } else {
          const cmyk = await cmykOf(item.profile, layer.color);
          cmyk.forEach((v, i) => {
            if (v > 0) facts.process[i] = true;
          });
          facts.coverage = Math.max(facts.coverage, cmyk[0] + cmyk[1] + cmyk[2] + cmyk[3]);
          colour = [setFillingCmykColor(...cmyk)];
        }
        page.pushOperators(
          pushGraphicsState(),
          ...colour,
          beginText(),
          setFontAndSize(fontKey, size),
          setTextMatrix(1, 0, 0, 1, left + mm(layer.x), top - mm(layer.y) - ascent),
          showText(font.encodeText(layer.text)),
          endText(),
          popGraphicsState(),
        );
      }
    }
    page.pushOperators(popGraphicsState());
    drawSlug(page, layout, item, font, fontKey, barcode, slugLine);
    if (item.cropMarks) drawCropMarks(page, layout.trim);
    if (transparency)
      page.node.set(
        PDFName.of('Group'),
        ctx.obj({ Type: 'Group', S: 'Transparency', CS: 'DeviceCMYK', I: false, K: false }),
      );
  }
  makePdfX4(doc, {
    title: `Print file ${item.orderItemId}`,
    subject: `Order ${item.orderId}, ${item.sku}`,
    createdAt: item.createdAt,
    profile: item.profile,
    documentKey: item.orderItemId,
    versionKey: `${item.orderItemId}:${item.barcode.format}:${item.barcode.value}`,
  });
  const bytes = asPdf16(await doc.save({ useObjectStreams: false }));
  const dpis = images.map((i) => i.effectiveDpi);
  return {
    bytes,
    pages: item.design.areas.length,
    images,
    warnings,
    facts: {
      maxCoverage: Math.round(facts.coverage * 1000) / 1000,
      plates: [
        ...PROCESS.filter((_, i) => facts.process[i]),
        ...(inks ? inks.map((i) => i.name).filter((n) => facts.spots.has(n)) : []),
      ],
      inks: inks?.map((i) => i.name),
      minDpi: imageCount ? Math.min(...dpis) : undefined,
    },
  };
}

/**
 * How far a layer is extended into the bleed: on each side where it reaches the trim
 * edge, as far as the bleed's outer edge; nowhere else.
 */
export function toBleed(
  box: { x: number; y: number; width: number; height: number },
  W: number,
  H: number,
): Extension {
  const reach = 0.01;
  return {
    left: box.x <= reach ? Math.max(0, BLEED_MM + box.x) : 0,
    top: box.y <= reach ? Math.max(0, BLEED_MM + box.y) : 0,
    right: box.x + box.width >= W - reach ? Math.max(0, W + BLEED_MM - box.x - box.width) : 0,
    bottom: box.y + box.height >= H - reach ? Math.max(0, H + BLEED_MM - box.y - box.height) : 0,
  };
}

/** The matrix drawing a unit image into a box turned clockwise about its centre. */
export function placement(
  x: number,
  y: number,
  w: number,
  h: number,
  rotation: number,
): [number, number, number, number, number, number] {
  const phi = (-rotation * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const cx = x + w / 2;
  const cy = y + h / 2;
  // translate to the centre, rotate, scale to the box, from the unit square's centre
  return [
    w * cos,
    w * sin,
    -h * sin,
    h * cos,
    cx - (w / 2) * cos + (h / 2) * sin,
    cy - (w / 2) * sin - (h / 2) * cos,
  ];
}

function imageXObject(doc: PDFDocument, image: PlacedImage) {
  const ctx = doc.context;
  const common = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    ColorSpace: 'DeviceCMYK',
    BitsPerComponent: 8,
    ...(image.alpha
      ? {
          SMask: ctx.register(
            ctx.stream(deflateSync(image.alpha), {
              Type: 'XObject',
              Subtype: 'Image',
              Width: image.width,
              Height: image.height,
              ColorSpace: 'DeviceGray',
              BitsPerComponent: 8,
              Filter: 'FlateDecode',
            }),
          ),
        }
      : {}),
  };
  if (image.data.filter === 'DCTDecode')
    return ctx.stream(image.data.bytes, {
      ...common,
      Filter: 'DCTDecode',
      // Adobe's CMYK JPEGs store their samples inverted
      ...(image.data.adobe ? { Decode: [1, 0, 1, 0, 1, 0, 1, 0] } : {}),
    });
  return ctx.stream(deflateSync(image.data.bytes), { ...common, Filter: 'FlateDecode' });
}

function maskXObject(doc: PDFDocument, image: InkImage, mask: Buffer) {
  return doc.context.stream(deflateSync(mask), {
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    ImageMask: true,
    BitsPerComponent: 1,
    // a set bit is where the ink prints
    Decode: [1, 0],
    Filter: 'FlateDecode',
  });
}

/** The slug: the barcode as vector shapes and one line of text, 100% K, below the bleed. */
function drawSlug(
  page: PDFPage,
  layout: AreaPage,
  item: PrintItem,
  font: PDFFont,
  fontKey: PDFName,
  code: ReturnType<typeof barcodeShapes>,
  line: string,
) {
  // y down in the barcode's own units
  const ops: PDFOperator[] = [pushGraphicsState(), setFillingCmykColor(0, 0, 0, 1)];
  ops.push(concatTransformationMatrix(...slugBarcodeMatrix(layout, item.barcode.format, code)));
  for (const bar of code.bars) ops.push(rectangle(bar.x, bar.y, bar.width, bar.height));
  for (const poly of code.polygons) {
    const [first, ...rest] = poly;
    ops.push(moveTo(first![0], first![1]), ...rest.map(([px, py]) => lineTo(px, py)), closePath());
  }
  ops.push(fill(), popGraphicsState());
  const size = slugLineSize(layout, font.widthOfTextAtSize(line, 6));
  ops.push(
    pushGraphicsState(),
    setFillingCmykColor(0, 0, 0, 1),
    beginText(),
    setFontAndSize(fontKey, size),
    setTextMatrix(1, 0, 0, 1, layout.slugX, SLUG_LINE_Y),
    showText(font.encodeText(line)),
    endText(),
    popGraphicsState(),
  );
  page.pushOperators(...ops);
}

/** Crop marks at the trim's corners in registration colour (every plate), outside the bleed. */
function drawCropMarks(page: PDFPage, trim: Rect) {
  const ops: PDFOperator[] = [
    pushGraphicsState(),
    op(PDFOperatorNames.StrokingColorspace, PDFName.of('All')),
    op(PDFOperatorNames.StrokingColorN, PDFNumber.of(1)),
    setLineWidth(0.25),
  ];
  for (const [x1, y1, x2, y2] of cropMarkLines(trim)) ops.push(moveTo(x1, y1), lineTo(x2, y2));
  ops.push(stroke(), popGraphicsState());
  page.pushOperators(...ops);
}
