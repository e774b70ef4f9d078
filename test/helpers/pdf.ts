import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Every image of the PDF as a PNG, in the order `pdfimages` finds them (masks too). */
export const extractImages = (bytes: Uint8Array): Buffer[] =>
  withPdf(bytes, (file, dir) => {
    execFileSync('pdfimages', ['-png', file, path.join(dir, 'img')]);
    return readdirSync(dir)
      .filter((f) => f.startsWith('img'))
      .sort()
      .map((f) => readFileSync(path.join(dir, f)));
  });

/** Runs outside tools on a PDF written to a temporary folder. */
function withPdf<T>(bytes: Uint8Array, f: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-'));
  try {
    const file = path.join(dir, 'f.pdf');
    writeFileSync(file, bytes);
    return f(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** qpdf's structural check: its output, or a thrown error for a damaged file. */
export const qpdfCheck = (bytes: Uint8Array): string =>
  withPdf(bytes, (file) => execFileSync('qpdf', ['--check', file], { encoding: 'utf8' }));

/** Ghostscript's ink coverage of each page: the share of the page each process ink covers. */
export const inkCoverage = (bytes: Uint8Array, options: { bleedBoxOnly?: boolean } = {}) =>
  withPdf(bytes, (file) =>
    execFileSync(
      'gs',
      [
        '-q',
        '-o',
        '-',
        '-sDEVICE=inkcov',
        ...(options.bleedBoxOnly ? ['-dUseBleedBox'] : []),
        file,
      ],
      { encoding: 'utf8' },
    )
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c.length >= 4 && c.includes('CMYK'))
      .map(([c, m, y, k]) => ({ c: Number(c), m: Number(m), y: Number(y), k: Number(k) })),
  );

/**
 * Ghostscript's separations of the first page (tiffsep): each plate by name (the process
 * ones and every spot colour) and whether any ink is on it; inside the BleedBox only
 * when asked (the slug and marks outside it are cut away).
 */
export async function separations(
  bytes: Uint8Array,
  options: { bleedBoxOnly?: boolean } = {},
): Promise<{ name: string; inked: boolean }[]> {
  const { default: sharp } = await import('sharp');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sep-'));
  try {
    const file = path.join(dir, 'f.pdf');
    writeFileSync(file, bytes);
    execFileSync('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-dFirstPage=1',
      '-dLastPage=1',
      '-sDEVICE=tiffsep',
      '-r72',
      ...(options.bleedBoxOnly ? ['-dUseBleedBox'] : []),
      '-o',
      path.join(dir, 'p.tif'),
      file,
    ]);
    const plates: { name: string; inked: boolean }[] = [];
    for (const f of readdirSync(dir).sort()) {
      const m = /^p\((.+)\)\.tif$/.exec(f);
      if (!m) continue;
      const stats = await sharp(path.join(dir, f)).stats();
      // a separation is a grey image: white (255) where its ink is absent
      plates.push({ name: m[1]!, inked: stats.channels[0]!.min < 255 });
    }
    return plates;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The CMYK of the first page at a point (in points from the media box's top left), as
 * Ghostscript rasterises it (tiff32nc, 0-255 per ink).
 */
export async function cmykAt(bytes: Uint8Array, xPt: number, yPt: number): Promise<number[]> {
  const { default: sharp } = await import('sharp');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cmyk-'));
  try {
    const file = path.join(dir, 'f.pdf');
    writeFileSync(file, bytes);
    const out = path.join(dir, 'p.tif');
    execFileSync('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-dFirstPage=1',
      '-dLastPage=1',
      '-sDEVICE=tiff32nc',
      '-r72',
      '-o',
      out,
      file,
    ]);
    const { data, info } = await sharp(out)
      .pipelineColourspace('cmyk')
      .toColourspace('cmyk')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const i = (Math.round(yPt) * info.width + Math.round(xPt)) * 4;
    return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** poppler's pdfinfo: the document information (custom keys too) and the PDF version. */
export const pdfInfo = (bytes: Uint8Array): Record<string, string> =>
  withPdf(bytes, (file) => {
    const fields = (args: string[]) =>
      execFileSync('pdfinfo', [...args, file], { encoding: 'utf8' })
        .split('\n')
        .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1]!.trim(), m[2]!.trim()] as const);
    return Object.fromEntries([...fields([]), ...fields(['-custom'])]);
  });

/** poppler's pdfinfo -meta: the XMP metadata. */
export const pdfXmp = (bytes: Uint8Array): string =>
  withPdf(bytes, (file) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }));

/** poppler's pdffonts: each font's name and whether it is embedded. */
export const pdfFonts = (bytes: Uint8Array): { name: string; embedded: boolean }[] =>
  withPdf(bytes, (file) =>
    execFileSync('pdffonts', [file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => {
        const c = l.trim().split(/\s+/);
        return { name: c[0]!, embedded: c.at(-5) === 'yes' };
      }),
  );

/** The text of a PDF, as poppler's pdftotext reads it. */
export function pdfText(bytes: Uint8Array): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'slip-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), bytes);
    return execFileSync('pdftotext', ['-layout', path.join(dir, 'f.pdf'), '-'], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
