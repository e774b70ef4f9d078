/**
 * The first renderer (renderer 1): RGB, PDF 1.7, the barcode as an image. Orders
 * recorded before PDF/X-4 (OrderReceived v1 and v2) were made by it, and their replays
 * must give the same bytes, so this folder is kept as it was: do not change it. New
 * orders are made by ../pdf.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import {
  clip,
  degrees,
  endPath,
  PDFDocument,
  type PDFFont,
  type PDFImage,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
} from 'pdf-lib';
import type { BarcodeFormat } from '../../domain/order/barcode.ts';
import { type Design, layerBox, parseDataUrl } from '../../domain/project/design.ts';
import { RenderError } from '../errors.ts';
import { BARCODE_DPI, BLEED_MM, MIN_DPI, PT_PER_MM, SLUG_MM } from '../units.ts';
import { renderBarcode } from './barcode.ts';
import { prepareImage } from './images.ts';

const require = createRequire(import.meta.url);
/** DejaVu Sans, bundled through its npm package: the same font on every machine. */
const FONT = readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));

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
}

export interface PrintFile {
  bytes: Uint8Array;
  pages: number;
  images: { area: string; layer: number; effectiveDpi: number }[];
  warnings: string[];
}

const mm = (v: number) => v * PT_PER_MM;

function hex(color: string) {
  const n = Number.parseInt(color.slice(1), 16);
  return rgb(((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255);
}

/** Draws an image in its box, turned clockwise by `rotation` degrees about the box's centre. */
function drawRotated(
  page: PDFPage,
  image: PDFImage,
  x: number,
  y: number,
  w: number,
  h: number,
  rotation: number,
) {
  const phi = (-rotation * Math.PI) / 180;
  const cx = x + w / 2;
  const cy = y + h / 2;
  page.drawImage(image, {
    x: cx - (w / 2) * Math.cos(phi) + (h / 2) * Math.sin(phi),
    y: cy - (w / 2) * Math.sin(phi) - (h / 2) * Math.cos(phi),
    width: w,
    height: h,
    rotate: degrees(-rotation),
  });
}

/** The slug: the barcode and one human-readable line, all below the BleedBox. */
function drawSlug(
  page: PDFPage,
  item: PrintItem,
  font: PDFFont,
  barcode: PDFImage,
  pageWidth: number,
) {
  const margin = mm(2);
  const room = pageWidth - 2 * margin;
  const linear = item.barcode.format === 'code128' || item.barcode.format === 'ean13';
  const natural = { w: (barcode.width / BARCODE_DPI) * 72, h: (barcode.height / BARCODE_DPI) * 72 };
  const maxH = mm(linear ? 8 : 9);
  const scale = Math.min(1, room / natural.w, maxH / natural.h);
  const w = natural.w * scale;
  const h = natural.h * scale;
  const textY = mm(1.5);
  page.drawImage(barcode, { x: margin, y: mm(SLUG_MM - 1.5) - h, width: w, height: h });
  const line = `Order ${item.orderId} · Item ${item.orderItemId} · ${item.sku} · ${item.printMethod || 'n/a'} · ${item.printColors} colours`;
  const size = Math.max(2, Math.min(6, (room / font.widthOfTextAtSize(line, 6)) * 6));
  page.drawText(line, { x: margin, y: textY, size, font, color: rgb(0, 0, 0) });
}

/**
 * One PDF per order item, one page per print area of the design. TrimBox = the print
 * area, BleedBox = TrimBox + 3 mm, MediaBox = BleedBox + a 15 mm slug below it holding
 * the barcode and a line naming order, item, SKU, print method and colours. Artwork is
 * clipped to the BleedBox. Dates and ids come from the input only, so the same input
 * gives the same bytes.
 */
export type ImageLoader = (src: string) => Promise<{ type: string; bytes: Buffer } | undefined>;

const inlineOnly: ImageLoader = async (src) => parseDataUrl(src);

/** `loadImage` resolves a layer's src: data URLs inline, references from the image store. */
export async function renderPrintFile(
  item: PrintItem,
  onProgress: () => void = () => {},
  loadImage: ImageLoader = inlineOnly,
): Promise<PrintFile> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  doc.setTitle(`Print file ${item.orderItemId}`);
  doc.setSubject(`Order ${item.orderId}, ${item.sku}`);
  doc.setProducer('editor-platform');
  doc.setCreator('editor-platform');
  doc.setCreationDate(item.createdAt);
  doc.setModificationDate(item.createdAt);
  const font = await doc.embedFont(FONT, { subset: true });
  const code = await renderBarcode(item.barcode.format, item.barcode.value);
  const barcode = await doc.embedPng(code.png);
  const images: PrintFile['images'] = [];
  const warnings: string[] = [];
  const areas = new Map(item.printAreas.map((a) => [a.code, a]));

  for (const [ai, area] of item.design.areas.entries()) {
    const spec = areas.get(area.printArea);
    if (!spec)
      throw new RenderError(
        `design.areas.${ai}: print area ${area.printArea} is not on ${item.sku}`,
      );
    const W = spec.widthMm;
    const H = spec.heightMm;
    const pageW = mm(W + 2 * BLEED_MM);
    const page = doc.addPage([pageW, mm(H + 2 * BLEED_MM + SLUG_MM)]);
    page.setMediaBox(0, 0, pageW, mm(H + 2 * BLEED_MM + SLUG_MM));
    page.setBleedBox(0, mm(SLUG_MM), pageW, mm(H + 2 * BLEED_MM));
    page.setTrimBox(mm(BLEED_MM), mm(SLUG_MM + BLEED_MM), mm(W), mm(H));
    const left = mm(BLEED_MM);
    const top = mm(SLUG_MM + BLEED_MM + H);

    page.pushOperators(
      pushGraphicsState(),
      rectangle(0, mm(SLUG_MM), pageW, mm(H + 2 * BLEED_MM)),
      clip(),
      endPath(),
    );
    for (const [li, layer] of area.layers.entries()) {
      onProgress();
      const path = `design.areas.${ai}.layers.${li}`;
      const box = layerBox(layer);
      if (box.x >= W || box.y >= H || box.x + box.width <= 0 || box.y + box.height <= 0) {
        throw new RenderError(`${path}: the layer lies wholly outside print area ${spec.code}`);
      }
      if (layer.type === 'image') {
        const prepared = await prepareImage(
          await loadImage(layer.src),
          layer.width,
          layer.height,
          path,
        );
        const embedded =
          prepared.format === 'png'
            ? await doc.embedPng(prepared.bytes)
            : await doc.embedJpg(prepared.bytes);
        drawRotated(
          page,
          embedded,
          left + mm(layer.x),
          top - mm(layer.y + layer.height),
          mm(layer.width),
          mm(layer.height),
          layer.rotation,
        );
        images.push({ area: spec.code, layer: li, effectiveDpi: prepared.effectiveDpi });
        if (prepared.effectiveDpi < MIN_DPI) {
          warnings.push(
            `${path}: ${prepared.effectiveDpi} dpi at its placed size (under ${MIN_DPI})`,
          );
        }
      } else if (layer.type === 'code') {
        // the first renderer's orders were recorded before code layers existed
        throw new RenderError(`${path}: code layers print with the PDF/X renderer only`);
      } else {
        const ascent = font.heightAtSize(layer.fontSize, { descender: false });
        page.drawText(layer.text, {
          x: left + mm(layer.x),
          y: top - mm(layer.y) - ascent,
          size: layer.fontSize,
          font,
          color: hex(layer.color),
        });
      }
    }
    page.pushOperators(popGraphicsState());
    drawSlug(page, item, font, barcode, pageW);
  }
  const bytes = await doc.save({ useObjectStreams: false });
  return { bytes, pages: item.design.areas.length, images, warnings };
}
