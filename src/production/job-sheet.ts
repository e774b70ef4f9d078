import { PDFDocument, type PDFFont, type PDFPage, rgb } from 'pdf-lib';
import {
  type BatchItem,
  type BatchSpec,
  batchCode,
  type Sheet,
  sheetCode,
} from '../domain/batch/events.ts';
import { barcodeShapes, drawBars } from '../print/barcode.ts';
import { FONT, fontkitOnce, subsetTag } from '../print/fonts.ts';
import { stacksOf } from './layout.ts';

export interface JobSheetInput {
  batchId: string;
  spec: BatchSpec;
  items: BatchItem[];
  sheets: Pick<Sheet, 'n' | 'placements' | 'utilisation'>[];
  lowerBound: number;
  createdAt: Date;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 36;

/**
 * Code 128 of `value` at `x, y` (its bottom left), at most `width` points wide and `module` a
 * module.
 */
function drawCode(
  page: PDFPage,
  value: string,
  x: number,
  y: number,
  width: number,
  module: number,
  height: number,
) {
  const code = barcodeShapes('code128', value);
  drawBars(page, code, {
    x,
    y,
    module: Math.min(module, width / code.width),
    height,
    color: rgb(0, 0, 0),
  });
}

/**
 * What an item's barcode shows as Code 128: its barcode value when printable ASCII, else its id.
 */
const scannable = (i: BatchItem) =>
  /^[\x20-\x7e]{1,80}$/.test(i.barcode.value) ? i.barcode.value : i.orderItemId;

const clip = (font: PDFFont, text: string, size: number, width: number) => {
  let t = text;
  while (t.length > 1 && font.widthOfTextAtSize(t, size) > width) t = `${t.slice(0, -2)}…`;
  return t;
};

/**
 * The cover sheet for the person at the press: the batch's barcode, its media and mode,
 * each sheet's code, and every item with its barcode, order, quantity and the sheets it is
 * on. Its dates and font subset follow from the batch: the same batch, the same bytes.
 */
export async function renderJobSheet(j: JobSheetInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkitOnce);
  doc.setTitle(`Job sheet, batch ${j.batchId}`);
  doc.setCreator('editor-platform');
  doc.setProducer('editor-platform');
  doc.setCreationDate(j.createdAt);
  doc.setModificationDate(j.createdAt);
  const texts = [j.batchId, ...j.items.flatMap((i) => [i.itemId, i.sku, i.orderId, scannable(i)])];
  const font = await doc.embedFont(FONT, {
    subset: true,
    customName: `${subsetTag(texts)}+DejaVuSans`,
  });
  const grey = rgb(0.35, 0.35, 0.35);
  let page = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const text = (s: string, x: number, size: number, color = rgb(0, 0, 0), width = 400) =>
    page.drawText(clip(font, s, size, width), { x, y: y - size, size, font, color });

  text('Job sheet', MARGIN, 18);
  y -= 26;
  text(`Batch ${j.batchId}`, MARGIN, 10);
  y -= 16;
  const media = j.spec.media;
  text(
    `${j.spec.mode}, ${media.preset ?? 'custom'} ${media.kind} ${media.widthMm} x ${media.heightMm} mm, ` +
      `${j.sheets.length} sheet(s) (lower bound ${j.lowerBound}), ${j.items.length} item(s)`,
    MARGIN,
    9,
    grey,
    A4[0] - 2 * MARGIN,
  );
  y -= 16;
  drawCode(page, batchCode(j.batchId), MARGIN + 10, y - 40, Number.POSITIVE_INFINITY, 1.2, 40);
  y -= 52;
  text(batchCode(j.batchId), MARGIN + 10, 8, grey);
  y -= 18;
  /** room for a line of `height` below, on a new page when this one is full */
  const room = (height: number) => {
    if (y - height >= MARGIN) return;
    page = doc.addPage(A4);
    y = A4[1] - MARGIN;
  };
  if (j.spec.imposition === 'cut-and-stack') {
    // which stack is which: cut the pile, and each position's stack is these records in order
    text(
      'Cut and stack: cut the pile of sheets; each position is one stack, top first',
      MARGIN,
      10,
    );
    y -= 15;
    for (const st of stacksOf(j.sheets)) {
      room(13);
      text(
        `Stack ${st.stack} (${Math.round(st.xMm)} mm across, ${Math.round(st.yMm)} mm down): records ${st.first}-${st.last}, ${st.pieces} piece(s)`,
        MARGIN,
        9,
      );
      y -= 13;
    }
    y -= 8;
  }
  for (const s of j.sheets) {
    room(13);
    text(
      `Sheet ${s.n}: ${sheetCode(j.batchId, s.n)}, ${s.placements.length} piece(s), ${Math.round(s.utilisation * 1000) / 10}% used`,
      MARGIN,
      9,
    );
    y -= 13;
  }
  y -= 8;
  const sheetsOf = (id: string) =>
    j.sheets.filter((s) => s.placements.some((p) => p.orderItemId === id)).map((s) => s.n);
  const rowHeight = 58;
  for (const item of j.items) {
    room(rowHeight);
    page.drawLine({
      start: { x: MARGIN, y },
      end: { x: A4[0] - MARGIN, y },
      thickness: 0.5,
      color: rgb(0.8, 0.8, 0.8),
    });
    y -= 6;
    const value = scannable(item);
    // a UUID is some 430 modules: 0.27 mm each, wide enough for a scanner and for 300 dpi
    drawCode(page, value, MARGIN + 8, y - 34, 330, 1, 34);
    const x = MARGIN + 355;
    page.drawText(clip(font, `${item.itemId} · ${item.sku}`, 9, 160), {
      x,
      y: y - 10,
      size: 9,
      font,
    });
    page.drawText(clip(font, `Order ${item.orderId}`, 8, 160), {
      x,
      y: y - 22,
      size: 8,
      font,
      color: grey,
    });
    page.drawText(
      clip(
        font,
        `Qty ${item.quantity}, ${item.copies} cop${item.copies === 1 ? 'y' : 'ies'} · sheet ${sheetsOf(item.orderItemId).join(', ')}`,
        8,
        160,
      ),
      { x, y: y - 34, size: 8, font, color: grey },
    );
    y -= rowHeight - 6;
  }
  return doc.save({ useObjectStreams: false });
}
