import sharp, { type Metadata } from 'sharp';
import { ImageProblem } from './errors.ts';
import { LIMIT_PIXELS, prepareImage } from './images.ts';
import { defaultOutputProfile } from './profiles.ts';
import { checkSvg } from './svg-check.ts';

/** The formats a design's image may have, by their data URL's type. */
const FORMATS: Record<string, { format: string; name: string }> = {
  'image/png': { format: 'png', name: 'PNG' },
  'image/jpeg': { format: 'jpeg', name: 'JPEG' },
  'image/webp': { format: 'webp', name: 'WebP' },
  'image/svg+xml': { format: 'svg', name: 'SVG' },
};

export interface ImageToCheck {
  type: string;
  bytes: Uint8Array;
  /** the layer's placed size: an SVG is rasterised at it, as the print file will */
  widthMm: number;
  heightMm: number;
}

/**
 * Whether an image of a design can be printed: its bytes are the format its data URL
 * declares, it decodes whole (a truncated file passes a header read but not this), it
 * has at most LIMIT_PIXELS, and an SVG holds nothing that keeps it from printing as seen
 * and rasterises at its placed size. Throws an ImageProblem in plain words; runs in an
 * image process, where a deadline stops it.
 */
export async function checkImage(input: ImageToCheck): Promise<void> {
  const declared = FORMATS[input.type];
  if (!declared) throw new ImageProblem('the image is not a PNG, JPEG, WebP or SVG');
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  if (declared.format === 'svg') await checkSvg(bytes);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageProblem(
      `the ${declared.name} cannot be read: the file is damaged, or it is not a ${declared.name}`,
    );
  }
  if (meta.format !== declared.format) {
    const actual = Object.values(FORMATS).find((f) => f.format === meta.format)?.name;
    throw new ImageProblem(
      `the file is ${actual ? `a ${actual}` : `of another kind (${meta.format})`}, not the ${declared.name} its data URL declares`,
    );
  }
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (declared.format !== 'svg' && pixels > LIMIT_PIXELS)
    throw new ImageProblem(
      `the image has ${Math.round(pixels / 1e6)} megapixels; at most ${LIMIT_PIXELS / 1e6} can be printed`,
    );
  try {
    if (declared.format === 'svg')
      await prepareImage(
        { type: input.type, bytes },
        input.widthMm,
        input.heightMm,
        '',
        defaultOutputProfile(),
      );
    else
      await sharp(bytes, { limitInputPixels: LIMIT_PIXELS })
        .resize(8, 8, { fit: 'inside' })
        .toBuffer();
  } catch {
    throw new ImageProblem(
      declared.format === 'svg'
        ? 'the SVG cannot be drawn: it is damaged, or it uses something the print renderer cannot draw'
        : `the ${declared.name} cannot be read whole: the file is damaged or cut short`,
    );
  }
}
