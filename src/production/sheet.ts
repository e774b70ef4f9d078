import {
  cmyk,
  concatTransformationMatrix,
  drawObject,
  type PDFDocument as PDFDoc,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFOperator,
  type PDFOperatorNames,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import type { Sheet } from '../domain/batch/events.ts';
import { barcodeShapes, drawBars } from '../print/barcode.ts';
import { FONT, fontkitOnce, subsetTag } from '../print/fonts.ts';
import { resources } from '../print/pdf.ts';
import { asPdf16, makePdfX4 } from '../print/pdfx.ts';
import type { OutputProfile } from '../print/profiles.ts';
import { PT_PER_MM } from '../print/units.ts';
import { cutMarks, type Rect } from './marks.ts';
import { SHEET_SLUG_MM } from './presets.ts';

const pt = (mm: number) => mm * PT_PER_MM;
/** a Code 128 module on the slug: wide enough for a press-side scanner and for 300 dpi */
const SLUG_MODULE_MM = 0.33;
const SLUG_BAR_MM = 8;

/**
 * A piece as the sheet draws it: the item's page (a form of its bleed box) and where its trim sits.
 */
export interface PiecePage {
  form: PDFRef;
  /** bleed box size and the trim's inset in it, in millimetres */
  widthMm: number;
  heightMm: number;
  trimInset: { left: number; bottom: number; right: number; top: number };
}

export interface SheetDraw {
  batchId: string;
  n: number;
  of: number;
  /** the sheet's code, what its slug barcode holds */
  code: string;
  title: string;
  widthMm: number;
  heightMm: number;
  marginMm: number;
  placements: Sheet['placements'];
  pieces: Map<string, PiecePage>;
  cutContour: boolean;
  createdAt: Date;
  profile: OutputProfile;
}

const op = (name: string, ...args: (PDFName | PDFNumber)[]) =>
  PDFOperator.of(name as PDFOperatorNames, args);
const num = (v: number) => PDFNumber.of(Math.round(v * 1000) / 1000);

/** The trim and bleed of a placement on the sheet, in millimetres from the top left. */
export function pieceRects(p: Sheet['placements'][number], piece: PiecePage) {
  const bleed: Rect = { x: p.xMm, y: p.yMm, w: p.widthMm, h: p.heightMm };
  const i = piece.trimInset;
  // turned a quarter anticlockwise: the page's left edge is at the bottom, its top at the left
  const inset = p.rotated
    ? { left: i.top, right: i.bottom, top: i.right, bottom: i.left }
    : { left: i.left, right: i.right, top: i.top, bottom: i.bottom };
  const trim: Rect = {
    x: p.xMm + inset.left,
    y: p.yMm + inset.top,
    w: p.widthMm - inset.left - inset.right,
    h: p.heightMm - inset.top - inset.bottom,
  };
  return { bleed, trim };
}

/** The slug's area on a sheet, from the top left. */
export const slugRect = (widthMm: number, heightMm: number, marginMm: number): Rect => ({
  x: marginMm,
  y: heightMm - marginMm - SHEET_SLUG_MM,
  w: widthMm - 2 * marginMm,
  h: SHEET_SLUG_MM,
});

/**
 * Draws one press sheet into `doc` (a document of its own): every placement as the item's
 * own page, embedded (not re-rendered), turned where the layout turned it; cut marks in
 * registration outside every bleed (marked content `/CropMarks`); in gang mode each trim
 * outlined in the `CutContour` spot colour, overprinting; and the slug with the batch,
 * the sheet's number and its barcode. PDF/X-4 with the items' output intent; its dates
 * and ids come from the batch, so the same batch gives the same bytes.
 */
export async function drawSheet(doc: PDFDoc, s: SheetDraw): Promise<Uint8Array> {
  const ctx = doc.context;
  doc.registerFontkit(fontkitOnce);
  const slugText = `${s.title} · sheet ${s.n} of ${s.of} · ${s.placements.length} pieces · ${s.code}`;
  const font = await doc.embedFont(FONT, {
    subset: true,
    customName: `${subsetTag([slugText])}+DejaVuSans`,
  });
  const H = s.heightMm;
  const page = doc.addPage([pt(s.widthMm), pt(H)]);
  page.setTrimBox(0, 0, pt(s.widthMm), pt(H));
  page.setBleedBox(0, 0, pt(s.widthMm), pt(H));
  const registration = ctx.register(
    ctx.obj([
      PDFName.of('Separation'),
      PDFName.of('All'),
      PDFName.of('DeviceCMYK'),
      ctx.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: [1, 1, 1, 1], N: 1 }),
    ]),
  );
  const spaces = resources(page, 'ColorSpace');
  spaces.set(PDFName.of('CSReg'), registration);

  const rects: { bleed: Rect; trim: Rect }[] = [];
  const names = new Map<string, PDFName>();
  for (const p of s.placements) {
    const key = `${p.orderItemId}:${p.page}`;
    const piece = s.pieces.get(key);
    if (!piece) throw new Error(`no page ${p.page} of ${p.orderItemId}`);
    let name = names.get(key);
    if (!name) {
      name = page.node.newXObject('Piece', piece.form);
      names.set(key, name);
    }
    // PDF's origin is the bottom left; turned a quarter anticlockwise about its lower left,
    // a piece is moved right by its placed width
    const x = pt(p.xMm);
    const y = pt(H - p.yMm - p.heightMm);
    page.pushOperators(
      pushGraphicsState(),
      p.rotated
        ? concatTransformationMatrix(0, 1, -1, 0, x + pt(p.widthMm), y)
        : concatTransformationMatrix(1, 0, 0, 1, x, y),
      drawObject(name),
      popGraphicsState(),
    );
    rects.push(pieceRects(p, piece));
  }

  if (s.cutContour) {
    const contour = ctx.register(
      ctx.obj([
        PDFName.of('Separation'),
        PDFName.of('CutContour'),
        PDFName.of('DeviceCMYK'),
        ctx.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: [0, 1, 0, 0], N: 1 }),
      ]),
    );
    spaces.set(PDFName.of('CSCut'), contour);
    resources(page, 'ExtGState').set(
      PDFName.of('GSOverprint'),
      ctx.obj({ Type: 'ExtGState', OP: true, op: true, OPM: 1 }),
    );
    page.pushOperators(
      op('q'),
      op('gs', PDFName.of('GSOverprint')),
      op('CS', PDFName.of('CSCut')),
      op('SCN', num(1)),
      op('w', num(0.25)),
    );
    for (const { trim } of rects)
      page.pushOperators(
        op('re', num(pt(trim.x)), num(pt(H - trim.y - trim.h)), num(pt(trim.w)), num(pt(trim.h))),
        op('S'),
      );
    page.pushOperators(op('Q'));
  }

  // cut marks, clear of every bleed and of the slug
  const slug = slugRect(s.widthMm, H, s.marginMm);
  const marks = cutMarks(rects, { x: 0, y: 0, w: s.widthMm, h: H }, [slug]);
  page.pushOperators(
    op('BMC', PDFName.of('CropMarks')),
    op('q'),
    op('CS', PDFName.of('CSReg')),
    op('SCN', num(1)),
    op('w', num(0.25)),
  );
  for (const m of marks)
    page.pushOperators(
      op('m', num(pt(m.x1)), num(pt(H - m.y1))),
      op('l', num(pt(m.x2)), num(pt(H - m.y2))),
      op('S'),
    );
  page.pushOperators(op('Q'), op('EMC'));

  // the slug: the sheet's barcode, then the line naming it
  const code = barcodeShapes('code128', s.code);
  const module = pt(Math.min(SLUG_MODULE_MM, (slug.w * 0.6) / code.width));
  const barY = pt(H - slug.y - slug.h + 1);
  const x0 = pt(slug.x) + 10 * module; // quiet zone
  drawBars(page, code, {
    x: x0,
    y: barY,
    module,
    height: pt(SLUG_BAR_MM),
    color: cmyk(0, 0, 0, 1),
  });
  const textX = x0 + code.width * module + 10 * module + pt(2);
  const size = 7;
  const room = pt(slug.x + slug.w) - textX;
  const fitted = font.widthOfTextAtSize(slugText, size) > room ? 5 : size;
  page.drawText(slugText, {
    x: room > pt(20) ? textX : pt(slug.x),
    y: room > pt(20) ? barY + pt(SLUG_BAR_MM) / 2 - fitted / 2 : barY + pt(SLUG_BAR_MM) + 1,
    size: fitted,
    font,
    color: cmyk(0, 0, 0, 1),
  });

  makePdfX4(doc, {
    title: `${s.title}, sheet ${s.n} of ${s.of}`,
    subject: `Press sheet ${s.code}`,
    createdAt: s.createdAt,
    profile: s.profile,
    documentKey: `batch:${s.batchId}:sheet:${s.n}`,
    versionKey: `batch:${s.batchId}:sheet:${s.n}`,
  });
  return asPdf16(
    await doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY }),
  );
}

/** A new document for a sheet, with the dates and metadata pdf-lib would otherwise set to now. */
export const newSheetDocument = () => PDFDocument.create({ updateMetadata: false });
