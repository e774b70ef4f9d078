import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** DejaVu Sans, bundled through its npm package: the same font on every machine. */
export const FONT = readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));

/** Six capital letters naming a font subset by what it holds (PDF's subset tag). */
export function subsetTag(texts: string[]): string {
  const h = createHash('sha256').update(texts.join('\u0000')).digest();
  return Array.from(h.subarray(0, 6), (b) => String.fromCharCode(65 + (b % 26))).join('');
}
