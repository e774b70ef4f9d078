import { createRequire } from 'node:module';
import { GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import type { PDFPage } from 'pdf-lib';
import { pageBox, parsePrintFile } from './page-boxes.ts';
import { drawPdfPage, MAX_PREVIEW_PAGES, openPdf } from './preview.ts';
import { PT_PER_MM } from './units.ts';

/**
 * A proof of a print file, for a buyer to approve before it is printed: a PNG per page
 * at screen resolution, drawn from the print file itself (pdf.js, as the previews), with
 * its trim (solid), bleed (dashed) and safe area (dotted, 3 mm inside the trim) drawn on
 * it, a "PROOF" mark across it, and a caption naming the proof's version and the print
 * file's sha256: what is approved is what prints. The same print file and version give
 * the same PNGs, byte for byte.
 */
export interface ProofRequest {
  pdf: Uint8Array;
  /** the print file's sha256, shown on every page (the approval names it) */
  printFileSha256: string;
  /** 1 for the first proof of an item, then one more for each revision */
  version: number;
}

export interface ProofPage {
  page: number;
  png: Buffer;
  width: number;
  height: number;
}

/** The longer side of a proof page's drawing, in pixels: a screen's, not a printer's. */
export const PROOF_PX = 1200;
/** How far inside the trim the safe area lies. */
export const SAFE_MM = 3;
const CAPTION_PX = 36;
const FONT_FAMILY = 'ProofSans';

const require = createRequire(import.meta.url);
let fontRegistered = false;
/** DejaVu Sans from its npm package: the same glyphs on every machine (no system fonts). */
function font(): string {
  if (!fontRegistered) {
    GlobalFonts.registerFromPath(
      require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
      FONT_FAMILY,
    );
    fontRegistered = true;
  }
  return FONT_FAMILY;
}

export async function renderProof(request: ProofRequest): Promise<ProofPage[]> {
  const none = [0, 0, 0, 0];
  const box = (p: PDFPage, key: 'TrimBox' | 'BleedBox' | 'MediaBox') => pageBox(p, key) ?? none;
  const boxes = (await parsePrintFile(request.pdf)).getPages().map((p) => ({
    media: box(p, 'MediaBox'),
    bleed: box(p, 'BleedBox'),
    trim: box(p, 'TrimBox'),
  }));
  const doc = await openPdf(request.pdf);
  const family = font();
  try {
    const pages: ProofPage[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, MAX_PREVIEW_PAGES); n++) {
      const {
        canvas,
        context: ctx,
        scale,
        width,
        height: drawn,
      } = await drawPdfPage(doc, n, PROOF_PX, CAPTION_PX);
      const b = boxes[n - 1];
      if (b) drawBoxes(ctx, b, scale, drawn);
      drawMark(ctx, width, drawn, family);
      drawCaption(
        ctx,
        width,
        drawn,
        family,
        `PROOF v${request.version} · page ${n} of ${doc.numPages} · print file sha256 ${request.printFileSha256}`,
      );
      pages.push({ page: n, png: canvas.toBuffer('image/png'), width, height: drawn + CAPTION_PX });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

/** Trim solid, bleed dashed, safe area dotted; PDF's y runs up, the canvas's down. */
function drawBoxes(
  ctx: SKRSContext2D,
  b: { media: number[]; bleed: number[]; trim: number[] },
  scale: number,
  height: number,
) {
  const rect = (r: number[]) => {
    const x = (r[0]! - b.media[0]!) * scale;
    const y = height - (r[3]! - b.media[1]!) * scale;
    return [x, y, (r[2]! - r[0]!) * scale, (r[3]! - r[1]!) * scale] as const;
  };
  const safe = SAFE_MM * PT_PER_MM;
  const lines: [number[], string, number[]][] = [
    [b.bleed, '#d0021b', [8, 6]],
    [b.trim, '#0050c8', []],
    [
      [b.trim[0]! + safe, b.trim[1]! + safe, b.trim[2]! - safe, b.trim[3]! - safe],
      '#2a9d2a',
      [2, 4],
    ],
  ];
  ctx.lineWidth = 2;
  for (const [r, colour, dash] of lines) {
    ctx.strokeStyle = colour;
    ctx.setLineDash(dash);
    ctx.strokeRect(...rect(r));
  }
  ctx.setLineDash([]);
}

/** "PROOF" across the page, light enough to see the design through it. */
function drawMark(ctx: SKRSContext2D, width: number, height: number, family: string) {
  ctx.save();
  ctx.translate(width / 2, height / 2);
  ctx.rotate(-Math.atan2(height, width));
  ctx.font = `bold ${Math.round(Math.min(width, height) / 4)}px ${family}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = 'rgba(208, 2, 27, 0.22)';
  ctx.fillText('PROOF', 0, 0);
  ctx.restore();
}

function drawCaption(ctx: SKRSContext2D, width: number, top: number, family: string, text: string) {
  ctx.fillStyle = '#222222';
  ctx.fillRect(0, top, width, CAPTION_PX);
  ctx.fillStyle = '#ffffff';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  let size = 16;
  ctx.font = `${size}px ${family}`;
  // shrink to fit the page's width: the whole sha256 must be readable
  while (size > 8 && ctx.measureText(text).width > width - 16) {
    size--;
    ctx.font = `${size}px ${family}`;
  }
  ctx.fillText(text, 8, top + CAPTION_PX / 2);
}
