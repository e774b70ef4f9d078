import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Each page's boxes, parsed from the PDF itself. */
export async function pageBoxes(
  bytes: Uint8Array,
): Promise<{ media: Box; bleed: Box; trim: Box }[]> {
  const doc = await PDFDocument.load(bytes);
  return doc
    .getPages()
    .map((p) => ({ media: p.getMediaBox(), bleed: p.getBleedBox(), trim: p.getTrimBox() }));
}

/** Rasterises each page (poppler's pdftoppm) and decodes every barcode on it (zbar's zbarimg). */
export function decodeBarcodes(bytes: Uint8Array): string[][] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), bytes);
    execFileSync('pdftoppm', [
      '-r',
      '300',
      '-png',
      path.join(dir, 'f.pdf'),
      path.join(dir, 'page'),
    ]);
    return readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .sort()
      .map((f) => {
        let out = '';
        try {
          out = execFileSync('zbarimg', ['-q', '--raw', path.join(dir, f)], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          });
        } catch (err) {
          out = (err as { stdout?: string }).stdout ?? ''; // exit 4: nothing found
        }
        return out.split('\n').filter(Boolean);
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ImageInfo {
  page: number;
  width: number;
  height: number;
  color: string;
  xPpi: number;
  yPpi: number;
}

/** Every image of the PDF as poppler's `pdfimages -list` sees it (masks left out). */
export function listImages(bytes: Uint8Array): ImageInfo[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), bytes);
    const out = execFileSync('pdfimages', ['-list', path.join(dir, 'f.pdf')], { encoding: 'utf8' });
    return out
      .split('\n')
      .slice(2)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c.length > 12 && c[2] === 'image')
      .map((c) => ({
        page: Number(c[0]),
        width: Number(c[3]),
        height: Number(c[4]),
        color: c[5]!,
        xPpi: Number(c[12]),
        yPpi: Number(c[13]),
      }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
