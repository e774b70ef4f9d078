import { createHash } from 'node:crypto';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import { type BatchItem, type BatchSpec, type Sheet, sheetCode } from '../domain/batch/events.ts';
import { parsePrintFile, pageBox as printBox } from '../print/page-boxes.ts';
import type { OutputProfile } from '../print/profiles.ts';
import { PT_PER_MM } from '../print/units.ts';
import { copiersInto, embedPageAsForm, pageContent } from './embed.ts';
import { cutAndStack, type Layout, layOut, oversized, type Piece } from './layout.ts';
import { SHEET_SLUG_MM } from './presets.ts';
import { drawSheet, newSheetDocument, type PiecePage } from './sheet.ts';

export class ImpositionError extends Error {
  override name = 'ImpositionError';
}

export interface ImposeInput {
  batchId: string;
  spec: BatchSpec;
  /** the batch's request time: every sheet's date */
  createdAt: Date;
  items: BatchItem[];
  /** each item's print file, by storage key, checked against its sha256 by the caller */
  files: ReadonlyMap<string, Uint8Array>;
  profile: OutputProfile;
  /** told after each sheet (an activity's heartbeat) */
  onSheet?: () => void;
}

export interface ImposedSheet extends Omit<Sheet, 'storageKey'> {
  pdf: Uint8Array;
}

export interface Imposed {
  sheets: ImposedSheet[];
  lowerBound: number;
  utilisation: number;
  heuristic: string;
}

const mm = (points: number) => points / PT_PER_MM;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const round = (v: number, places = 4) => Math.round(v * 10 ** places) / 10 ** places;

/** A page box of a print file; a page without a media box cannot be imposed. */
function pageBox(page: PDFPage, key: 'TrimBox' | 'BleedBox' | 'MediaBox'): number[] {
  const box = printBox(page, key);
  if (!box) throw new ImpositionError('a print file page has no MediaBox');
  return box;
}

const parse = parsePrintFile;

/**
 * Each item's pages as pieces to lay out: the bleed box, `copies` times. The parsed files
 * are not kept: a sheet parses again the few it holds, so a batch of a thousand items
 * never holds a thousand parsed documents.
 */
async function piecesOf(input: ImposeInput) {
  const geometry = new Map<
    string,
    { storageKey: string; index: number; bleed: number[]; trim: number[] }
  >();
  const pieces: Piece[] = [];
  for (const item of input.items) {
    const bytes = input.files.get(item.file.storageKey);
    if (!bytes) throw new ImpositionError(`the print file of ${item.itemId} is missing`);
    const source = await parse(bytes);
    for (const [index, page] of source.getPages().entries()) {
      const bleed = pageBox(page, 'BleedBox');
      const trim = pageBox(page, 'TrimBox');
      const id = `${item.orderItemId}:${index + 1}`;
      geometry.set(id, { storageKey: item.file.storageKey, index, bleed, trim });
      pieces.push({
        id,
        widthMm: round(mm(bleed[2]! - bleed[0]!), 3),
        heightMm: round(mm(bleed[3]! - bleed[1]!), 3),
        copies: item.copies,
      });
    }
  }
  return { pieces, geometry };
}

/**
 * Cut and stack takes one variable item of one page a record, every record the same size:
 * anything else cannot be cut into stacks of records.
 */
function cutAndStackPieces(input: ImposeInput, pieces: Piece[]): void {
  const [item, ...more] = input.items;
  if (!item || more.length > 0)
    throw new ImpositionError(
      `cut-and-stack lays out one variable item; the batch holds ${input.items.length}`,
    );
  const records = item.records;
  if (!records || pieces.length !== records)
    throw new ImpositionError(
      `cut-and-stack lays out a variable item of one page a record: ${item.itemId} has ${pieces.length} page(s)${records ? ` for ${records} records` : ' and no records'}`,
    );
  const [first] = pieces;
  if (pieces.some((p) => p.widthMm !== first!.widthMm || p.heightMm !== first!.heightMm))
    throw new ImpositionError('cut-and-stack needs every record the same size');
}

/** Lays the pieces out; a roll's pieces are cut as long as what is on them. */
export function layoutFor(pieces: Piece[], spec: BatchSpec): Layout & { heights: number[] } {
  const options = {
    media: { widthMm: spec.media.widthMm, heightMm: spec.media.heightMm - SHEET_SLUG_MM },
    gutterMm: spec.gutterMm,
    marginMm: spec.marginMm,
    allowRotation: spec.allowRotation,
  };
  const tooLarge = oversized(pieces, options);
  if (tooLarge.length)
    throw new ImpositionError(
      `${tooLarge.length} piece(s) do not fit the media's printable area (${round(spec.media.widthMm - 2 * spec.marginMm, 1)} x ${round(options.media.heightMm - 2 * spec.marginMm, 1)} mm): ${tooLarge
        .slice(0, 5)
        .map((p) => `${p.id} (${p.widthMm} x ${p.heightMm} mm)`)
        .join(', ')}`,
    );
  const layout =
    spec.imposition === 'cut-and-stack' ? cutAndStack(pieces, options) : layOut(pieces, options);
  if (spec.media.kind === 'sheet')
    return { ...layout, heights: layout.sheets.map(() => spec.media.heightMm) };
  // a roll is cut after its last piece: utilisation is over what is used
  const usableW = spec.media.widthMm - 2 * spec.marginMm;
  const heights: number[] = [];
  const sheets = layout.sheets.map((s) => {
    const bottom = Math.max(...s.placements.map((p) => p.yMm + p.heightMm));
    const height = round(bottom + SHEET_SLUG_MM + spec.marginMm, 3);
    heights.push(height);
    const area = s.placements.reduce((a, p) => a + p.widthMm * p.heightMm, 0);
    return { ...s, utilisation: area / (usableW * (bottom - spec.marginMm)) };
  });
  const placed = sheets.reduce(
    (a, s) => a + s.placements.reduce((b, p) => b + p.widthMm * p.heightMm, 0),
    0,
  );
  const used = heights.reduce((a, h) => a + usableW * (h - 2 * spec.marginMm - SHEET_SLUG_MM), 0);
  return { ...layout, sheets, heights, utilisation: used ? placed / used : 0 };
}

/**
 * Imposes a batch: its items' print-file pages (with their bleed) laid out on the media
 * by `layOut`, each copy once, then each sheet drawn as a PDF/X-4 file (see `drawSheet`).
 * A pure function of its input: the same batch gives the same sheets, byte for byte.
 */
export async function impose(input: ImposeInput): Promise<Imposed> {
  const { spec } = input;
  const { pieces, geometry } = await piecesOf(input);

  if (pieces.length === 0) throw new ImpositionError('the batch holds no pages');
  if (spec.imposition === 'cut-and-stack') cutAndStackPieces(input, pieces);
  const layout = layoutFor(pieces, spec);
  const title = `Batch ${input.batchId}`;
  const sheets: ImposedSheet[] = [];
  /** each piece's page content, made once per batch */
  const contents = new Map<string, Uint8Array>();
  // the sources of the sheet before are kept for this one: a variable item's file (parsed
  // once, not once a sheet), or the items a run of sheets shares
  let kept = new Map<string, PDFDocument>();
  for (const [i, s] of layout.sheets.entries()) {
    input.onSheet?.();
    const n = i + 1;
    const doc = await newSheetDocument();
    // a cut-and-stack sheet's records share their item's art, copied into the sheet once;
    // other sheets copy each page's resources on their own, as the sheets recorded before
    // cut-and-stack were made (a replay of them gives their bytes)
    const copierFor = spec.imposition === 'cut-and-stack' ? copiersInto(doc) : undefined;
    const wanted = [...new Set(s.placements.map((p) => p.id))].sort();
    const embedded = new Map<string, PiecePage>();
    const sources = new Map<string, PDFDocument>();
    for (const id of wanted) {
      const g = geometry.get(id)!;
      let source = sources.get(g.storageKey) ?? kept.get(g.storageKey);
      if (!source) source = await parse(input.files.get(g.storageKey)!);
      sources.set(g.storageKey, source);
      const page = source.getPage(g.index);
      let content = contents.get(id);
      if (!content) {
        content = pageContent(page);
        contents.set(id, content);
      }
      embedded.set(id, {
        form: embedPageAsForm(doc, page, g.bleed, content, copierFor),
        widthMm: mm(g.bleed[2]! - g.bleed[0]!),
        heightMm: mm(g.bleed[3]! - g.bleed[1]!),
        trimInset: {
          left: mm(g.trim[0]! - g.bleed[0]!),
          bottom: mm(g.trim[1]! - g.bleed[1]!),
          right: mm(g.bleed[2]! - g.trim[2]!),
          top: mm(g.bleed[3]! - g.trim[3]!),
        },
      });
    }
    kept = sources;
    const placements = s.placements.map((p) => {
      const [orderItemId, page] = p.id.split(':');
      return {
        orderItemId: orderItemId!,
        copy: p.copy,
        page: Number(page),
        xMm: round(p.xMm, 3),
        yMm: round(p.yMm, 3),
        widthMm: round(p.widthMm, 3),
        heightMm: round(p.heightMm, 3),
        rotated: p.rotated,
      };
    });
    const heightMm = layout.heights[i]!;
    const pdf = await drawSheet(doc, {
      batchId: input.batchId,
      n,
      of: layout.sheets.length,
      code: sheetCode(input.batchId, n),
      title,
      widthMm: spec.media.widthMm,
      heightMm,
      marginMm: spec.marginMm,
      placements,
      pieces: embedded,
      cutContour: spec.mode === 'gang',
      createdAt: input.createdAt,
      profile: input.profile,
    });
    sheets.push({
      n,
      sha256: sha256(pdf),
      bytes: pdf.length,
      widthMm: spec.media.widthMm,
      heightMm,
      utilisation: round(s.utilisation),
      placements,
      pdf,
    });
  }
  return {
    sheets,
    lowerBound: layout.lowerBound,
    utilisation: round(layout.utilisation),
    heuristic: layout.heuristic,
  };
}

/** The facts of a sheet's drawing the preflight checks: what its pieces print. */
export function sheetFacts(items: BatchItem[], spec: BatchSpec) {
  const plates = new Set(items.flatMap((i) => i.preflight.plates));
  if (spec.mode === 'gang') plates.add('CutContour');
  const dpis = items.flatMap((i) => (i.preflight.minDpi === undefined ? [] : [i.preflight.minDpi]));
  return {
    maxCoverage: Math.max(0, ...items.map((i) => i.preflight.maxInkCoverage)) / 100,
    plates: [...plates].sort(),
    inks: undefined,
    minDpi: dpis.length ? Math.min(...dpis) : undefined,
  };
}
