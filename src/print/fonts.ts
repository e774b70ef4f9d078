import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument } from 'pdf-lib';

type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];

const require = createRequire(import.meta.url);

/** DejaVu Sans, bundled through its npm package: the same font on every machine. */
export const FONT = readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));

/** Six capital letters naming a font subset by what it holds (PDF's subset tag). */
export function subsetTag(texts: string[]): string {
  const h = createHash('sha256').update(texts.join('\u0000')).digest();
  return Array.from(h.subarray(0, 6), (b) => String.fromCharCode(65 + (b % 26))).join('');
}

/**
 * fontkit, but each font file parsed once per process: pdf-lib parses the whole font for
 * every document it embeds it in (DejaVu Sans is 740 KB), which is most of the time a
 * press sheet takes to build. A parsed font is only read afterwards (each document makes
 * its own subset), so sharing it changes no byte of the output.
 */
export const fontkitOnce: Fontkit = {
  create(data: Uint8Array, postscriptName?: string) {
    const key = data === FONT ? 'DejaVuSans' : undefined;
    if (!key) return fontkit.create(data, postscriptName);
    let font = parsed.get(key);
    if (!font) {
      font = fontkit.create(data, postscriptName);
      parsed.set(key, font);
    }
    return font;
  },
};
const parsed = new Map<string, ReturnType<Fontkit['create']>>();
