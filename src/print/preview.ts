import { createRequire } from 'node:module';
import { createCanvas } from '@napi-rs/canvas';

/** The longer side of a preview, in pixels: enough to check a layout by eye. */
const PREVIEW_PX = 600;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: PdfJs | undefined;
/**
 * pdf.js, loaded on first use (the API role never renders, and pdf.js is large). Under
 * tsx (tests, `npm start`) an import of it is rewritten with an inline source map, and
 * Node, its source maps on for the TypeScript, also reads the map each module names and
 * keeps all of it: pdf.js's two modules then take 45 MB of heap instead of 12, which
 * every full garbage collection marks again (a mockup took two of them, 30 ms). So it is
 * required (Node 20.19 and later require ES modules without a flag) with the maps off.
 * Its "worker" runs in this thread; required here, it is loaded the same way.
 */
const loadPdfJs = (): PdfJs => {
  if (!pdfjs) {
    const require = createRequire(import.meta.url);
    const maps = process.sourceMapsEnabled;
    process.setSourceMapsEnabled(false);
    try {
      (
        globalThis as { pdfjsWorker?: unknown }
      ).pdfjsWorker = require('pdfjs-dist/legacy/build/pdf.worker.mjs');
      pdfjs = require('pdfjs-dist/legacy/build/pdf.mjs') as PdfJs;
    } finally {
      process.setSourceMapsEnabled(maps);
    }
  }
  return pdfjs;
};

/** A PDF opened by pdf.js as the print files are drawn: fonts as paths, no system fonts. */
export async function openPdf(pdf: Uint8Array, { owned = false } = {}) {
  const { getDocument } = loadPdfJs();
  return getDocument({
    // pdf.js takes ownership of (detaches) the buffer it is given: a copy, unless the
    // caller hands over one of its own
    data: owned ? pdf : new Uint8Array(pdf),
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
}

type PdfDocument = Awaited<ReturnType<typeof openPdf>>;

/**
 * Page `n` of an open PDF drawn on a white canvas, its longer side `longestPx`, with
 * `belowPx` more rows of white under it (room for a caption); answers the canvas, the
 * scale from points, and the drawn page's size in pixels.
 */
export async function drawPdfPage(doc: PdfDocument, n: number, longestPx: number, belowPx = 0) {
  const page = await doc.getPage(n);
  const unit = page.getViewport({ scale: 1 });
  const scale = longestPx / Math.max(unit.width, unit.height);
  const viewport = page.getViewport({ scale });
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const canvas = createCanvas(width, height + belowPx);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  // pdf.js is typed for a browser's canvas; @napi-rs/canvas implements the same API
  type RenderParams = Parameters<typeof page.render>[0];
  await page.render({
    canvasContext: context as unknown as RenderParams['canvasContext'],
    canvas: canvas as unknown as RenderParams['canvas'],
    viewport,
  }).promise;
  page.cleanup();
  return { canvas, context, scale, width, height };
}

/**
 * A PNG of each page of a print file, as an operator looks at it: rendered from the PDF
 * itself (pdf.js, fonts drawn as paths, no system fonts), so the preview shows what the
 * printer gets, and the same PDF gives the same PNGs.
 */
/**
 * The most pages previewed (or proofed) of one file: a design has at most 50 areas, so an
 * item of one record shows every page; a variable item of 10,000 records shows its first
 * records (each record alone is drawn on request: /records/{n}/preview).
 */
export const MAX_PREVIEW_PAGES = 50;

export async function renderPreviews(pdf: Uint8Array): Promise<Buffer[]> {
  const doc = await openPdf(pdf);
  try {
    const pages: Buffer[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, MAX_PREVIEW_PAGES); n++)
      pages.push((await drawPdfPage(doc, n, PREVIEW_PX)).canvas.toBuffer('image/png'));
    return pages;
  } finally {
    await doc.destroy();
  }
}
