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
