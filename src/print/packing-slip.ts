import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, type PDFFont, type PDFImage, type PDFPage, rgb } from 'pdf-lib';
import type { SlipSize } from '../domain/label/events.ts';
import { barcodeShapes, drawBars, type VectorBarcode } from './barcode.ts';
import { FONT, subsetTag } from './fonts.ts';

/** Page sizes in points. */
const SIZES: Record<SlipSize, [number, number]> = {
  A4: [595.28, 841.89],
  Letter: [612, 792],
  A5: [419.53, 595.28],
  A6: [297.64, 419.53],
  '4x6in': [288, 432],
};

export interface PackingSlip {
  orderId: string;
  /** the order's receipt: the slip's date, and its PDF dates (the same bytes every time) */
  receivedAt: string;
  size: SlipSize;
  /** the label's logo as PNG */
  logo: Uint8Array | undefined;
  returnAddress: string[];
  /** the recipient's address, as its country writes it (absent: none given, or erased) */
  shipTo?: string[] | undefined;
  /** the facility the parcel leaves from, when the order is split between several */
  facility?: string | undefined;
  message: string | null;
  giftMessage: string | null;
  items: { itemId: string; sku: string; quantity: number; thumbnail: Uint8Array | undefined }[];
}

/** Lines of `text` that fit `width` at `size`, broken between words (or inside a long one). */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/)) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, size) <= width) {
        line = next;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      // a word wider than the line is cut between graphemes, never inside one (an emoji,
      // a letter with its accents, a flag stay whole)
      while (font.widthOfTextAtSize(line, size) > width && graphemes(line).length > 1) {
        const g = graphemes(line);
        let cut = g.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(g.slice(0, cut).join(''), size) > width) cut--;
        lines.push(g.slice(0, cut).join(''));
        line = g.slice(cut).join('');
      }
    }
    lines.push(line);
  }
  return lines;
}

/** An order id that Code 128 holds at a width a scanner reads on the slip. */
const SHORT_REFERENCE = /^[\x20-\x7e]{1,24}$/;

/**
 * A 2D code's polygons as one SVG path (y down; holes wind the other way, for the non-zero rule).
 */
const svgPathOf = (code: VectorBarcode) =>
  code.polygons
    .map(
      ([first, ...rest]) =>
        `M${first![0]} ${first![1]}${rest.map(([x, y]) => `L${x} ${y}`).join('')}Z`,
    )
    .join('');

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const graphemes = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks): dropped, so a
 * customer's text cannot turn the slip's text around (U+202E would show "gift" as "tfig"
 * to a reader that applies it, and hide what was written).
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Only what the font can draw: bidi controls dropped, other characters (controls, missing glyphs)
 * "?".
 */
export function drawable(font: PDFFont, text: string): string {
  const known = new Set(font.getCharacterSet());
  return [...text.replace(BIDI_CONTROLS, '')]
    .map((c) => (c === '\n' || known.has(c.codePointAt(0)!) ? c : '?'))
    .join('');
}

/**
 * A packing slip as a PDF: the label's logo, return address and message, the order id as
 * a Code 128 barcode, each item with its thumbnail, SKU and quantity, and the customer's
 * gift message. Everything in it follows from its input (dates from the order, the font
 * subset named by its text), so the same order and branding give the same bytes.
 */
export async function renderPackingSlip(slip: PackingSlip): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  const at = new Date(slip.receivedAt);
  doc.setTitle(`Packing slip ${slip.orderId}`);
  doc.setCreator('editor-platform');
  doc.setProducer('editor-platform');
  doc.setCreationDate(at);
  doc.setModificationDate(at);
  const texts = [
    slip.orderId,
    ...slip.returnAddress,
    ...(slip.shipTo ?? []),
    slip.facility ? `Ship to From ${slip.facility}` : 'Ship to',
    slip.message ?? '',
    slip.giftMessage ?? '',
    ...slip.items.flatMap((i) => [i.itemId, i.sku]),
  ];
  const font = await doc.embedFont(FONT, {
    subset: true,
    customName: `${subsetTag(texts)}+DejaVuSans`,
  });
  const t = (s: string) => drawable(font, s);
  const [width, height] = SIZES[slip.size];
  const margin = Math.max(20, width * 0.06);
  const inner = width - 2 * margin;
  const scale = width / SIZES.A4[0];
  const body = Math.max(7, 10 * scale);
  const small = Math.max(6, 8 * scale);
  const ink = rgb(0, 0, 0);
  const grey = rgb(0.35, 0.35, 0.35);

  let page: PDFPage = doc.addPage([width, height]);
  let y = height - margin;
  const newPage = () => {
    page = doc.addPage([width, height]);
    y = height - margin;
  };
  const room = (needed: number) => {
    if (y - needed < margin) newPage();
  };
  const text = (s: string, x: number, size: number, color = ink) => {
    page.drawText(t(s), { x, y: y - size, size, font, color });
  };

  // head: logo and return address on the left, the order and its barcode on the right
  let left = y;
  if (slip.logo) {
    const logo: PDFImage = await doc.embedPng(slip.logo);
    const fit = logo.scaleToFit(inner * 0.4, 60 * scale);
    page.drawImage(logo, { x: margin, y: y - fit.height, width: fit.width, height: fit.height });
    left -= fit.height + 6;
  }
  for (const lineText of slip.returnAddress) {
    page.drawText(t(lineText), { x: margin, y: left - small, size: small, font, color: grey });
    left -= small * 1.3;
  }
  const titleSize = Math.max(10, 16 * scale);
  const rightX = margin + inner * 0.5;
  page.drawText('Packing slip', { x: rightX, y: y - titleSize, size: titleSize, font, color: ink });
  let right = y - titleSize * 1.4;
  // a long order id wraps within the right half (the code below holds it whole)
  for (const l of wrap(t(`Order ${slip.orderId}`), font, body, inner * 0.5)) {
    page.drawText(l, { x: rightX, y: right - body, size: body, font });
    right -= body * 1.4;
  }
  page.drawText(`Received ${slip.receivedAt.slice(0, 10)}`, {
    x: rightX,
    y: right - small,
    size: small,
    font,
    color: grey,
  });
  right -= small * 1.6;
  // the order id as Code 128 while it is short printable ASCII (a scanner reads it at
  // this width), else as a QR code, which holds any id (UTF-8) at a size that still scans
  const barHeight = Math.max(28, 40 * scale);
  const x0 = rightX + 10;
  if (SHORT_REFERENCE.test(slip.orderId)) {
    const code = barcodeShapes('code128', slip.orderId);
    const codeWidth = inner * 0.5;
    const module = Math.min(1.4, (codeWidth - 20) / code.width);
    drawBars(page, code, { x: x0, y: right - barHeight, module, height: barHeight, color: ink });
    right -= barHeight + 6;
  } else {
    const code = barcodeShapes('qrcode', slip.orderId, { utf8: true });
    const side = Math.max(barHeight * 1.6, code.width * 1.2);
    page.drawSvgPath(svgPathOf(code), {
      x: x0,
      y: right,
      scale: side / code.width,
      color: ink,
      borderWidth: 0,
    });
    right -= side + 6;
  }
  y = Math.min(left, right) - 12;

  if (slip.shipTo?.length) {
    text('Ship to', margin, small, grey);
    y -= small * 1.5;
    for (const l of slip.shipTo.flatMap((a) => wrap(t(a), font, body, inner))) {
      room(body * 1.4);
      text(l, margin, body);
      y -= body * 1.4;
    }
    y -= 8;
  }
  if (slip.facility) {
    room(small * 2);
    text(`From ${slip.facility}`, margin, small, grey);
    y -= small * 2;
  }

  if (slip.message) {
    for (const l of wrap(t(slip.message), font, body, inner)) {
      room(body * 1.4);
      text(l, margin, body);
      y -= body * 1.4;
    }
    y -= 8;
  }

  // the items: thumbnail, item id, SKU, quantity
  const thumb = Math.max(36, 56 * scale);
  room(body * 2);
  text('Item', margin + thumb + 8, small, grey);
  text('SKU', margin + inner * 0.55, small, grey);
  text('Qty', margin + inner - 30, small, grey);
  y -= small * 1.6;
  for (const item of slip.items) {
    room(thumb + 8);
    page.drawLine({
      start: { x: margin, y },
      end: { x: margin + inner, y },
      thickness: 0.5,
      color: rgb(0.8, 0.8, 0.8),
    });
    y -= 4;
    if (item.thumbnail) {
      const img = await doc.embedPng(item.thumbnail);
      const fit = img.scaleToFit(thumb, thumb);
      page.drawImage(img, { x: margin, y: y - fit.height, width: fit.width, height: fit.height });
    }
    text(item.itemId, margin + thumb + 8, body);
    text(item.sku, margin + inner * 0.55, body);
    text(String(item.quantity), margin + inner - 30, body);
    y -= thumb + 4;
  }

  if (slip.giftMessage) {
    const lines = wrap(t(slip.giftMessage), font, body, inner - 16);
    const boxHeight = lines.length * body * 1.4 + small * 1.6 + 16;
    y -= 10;
    room(boxHeight);
    page.drawRectangle({
      x: margin,
      y: y - boxHeight,
      width: inner,
      height: boxHeight,
      borderColor: grey,
      borderWidth: 0.75,
    });
    y -= 8;
    text('Gift message', margin + 8, small, grey);
    y -= small * 1.6;
    for (const l of lines) {
      text(l, margin + 8, body);
      y -= body * 1.4;
    }
  }
  return doc.save({ useObjectStreams: false });
}
