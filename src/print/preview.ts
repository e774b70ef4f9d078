import { createCanvas } from '@napi-rs/canvas';

/** The longer side of a preview, in pixels: enough to check a layout by eye. */
const PREVIEW_PX = 600;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
// loaded on first use: the API role never renders, and pdf.js is large
const loadPdfJs = () => {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
};

/**
 * A PNG of each page of a print file, as an operator looks at it: rendered from the PDF
 * itself (pdf.js, fonts drawn as paths, no system fonts), so the preview shows what the
 * printer gets, and the same PDF gives the same PNGs.
 */
export async function renderPreviews(pdf: Uint8Array): Promise<Buffer[]> {
  const { getDocument } = await loadPdfJs();
  const doc = await getDocument({
    // pdf.js takes ownership of (detaches) the buffer it is given
    data: new Uint8Array(pdf),
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
  try {
    const pages: Buffer[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const unit = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({
        scale: PREVIEW_PX / Math.max(unit.width, unit.height),
      });
      const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
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
      pages.push(canvas.toBuffer('image/png'));
      page.cleanup();
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
