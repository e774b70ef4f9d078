import sharp from 'sharp';
import { RenderError } from '../errors.ts';
import { TARGET_DPI } from '../units.ts';

export interface PreparedImage {
  format: 'png' | 'jpg';
  bytes: Buffer;
  /** the resolution the image has at its placed size */
  effectiveDpi: number;
}

/** The most pixels an image may have, decoded or rasterised (a layer's at its placed size too). */
export const LIMIT_PIXELS = 100_000_000;

/**
 * The resolution a layer is placed at: 300 dpi, or less for a layer so large that 300
 * dpi would take more than LIMIT_PIXELS (large-format prints are seen from afar).
 */
export function placementDpi(widthMm: number, heightMm: number): number {
  const squareInches = (widthMm / 25.4) * (heightMm / 25.4);
  return Math.min(TARGET_DPI, Math.floor(Math.sqrt(LIMIT_PIXELS / squareInches)));
}

/**
 * The density at which libvips rasterises an SVG `targetW` pixels wide. An SVG sized in
 * pixels scales with the density; one sized in physical units (mm, cm, in, pt) is
 * scaled by the density twice by librsvg through libvips. Measuring the width at two
 * densities tells which, and the density that gives the target follows from it.
 */
async function svgDensity(bytes: Buffer, targetW: number): Promise<number> {
  const at = async (density: number) =>
    (await sharp(bytes, { density, limitInputPixels: false }).metadata()).width ?? 1;
  const [w72, w144] = [await at(72), await at(144)];
  const growth = Math.log2(Math.max(1, w144) / Math.max(1, w72)); // 1 linear, 2 quadratic
  const density = 72 * (targetW / Math.max(1, w72)) ** (1 / Math.max(1, growth));
  return Math.min(2400, Math.max(1, density));
}

/**
 * Decodes, validates and normalises an image layer before pdf-lib sees it (pdf-lib can
 * loop on a truncated PNG and would embed unnormalised data): EXIF orientation applied,
 * sRGB, resized to its placed size at up to 300 dpi (never enlarged), PNG where there is
 * transparency, JPEG otherwise. SVG is rasterised at the target resolution.
 */
export async function prepareImage(
  parsed: { type: string; bytes: Buffer } | undefined,
  widthMm: number,
  heightMm: number,
  path: string,
): Promise<PreparedImage> {
  if (!parsed)
    throw new RenderError(
      `${path}: the image is missing or not a supported image`,
      'image_missing',
    );
  const widthIn = widthMm / 25.4;
  const heightIn = heightMm / 25.4;
  const dpi = placementDpi(widthMm, heightMm);
  const targetW = Math.max(1, Math.round(widthIn * dpi));
  const targetH = Math.max(1, Math.round(heightIn * dpi));
  const isSvg = parsed.type === 'image/svg+xml';
  try {
    let input = sharp(parsed.bytes, { failOn: 'error', limitInputPixels: LIMIT_PIXELS }).timeout({
      seconds: 30,
    });
    const meta = await input.metadata();
    if (isSvg) {
      // vector: rasterise at the density that gives the target size
      const density = await svgDensity(parsed.bytes, targetW);
      input = sharp(parsed.bytes, {
        density,
        failOn: 'error',
        // the width is the target's; an SVG of another aspect than its layer may be taller
        limitInputPixels: LIMIT_PIXELS * 4,
      }).timeout({ seconds: 30 });
    }
    const upright = input.rotate(); // EXIF orientation
    const turned = (meta.orientation ?? 1) >= 5;
    const srcW = (turned ? meta.height : meta.width) ?? targetW;
    const srcH = (turned ? meta.width : meta.height) ?? targetH;
    const outW = isSvg ? targetW : Math.min(srcW, targetW);
    const outH = isSvg ? targetH : Math.min(srcH, targetH);
    const effectiveDpi = isSvg ? dpi : Math.round(Math.min(srcW / widthIn, srcH / heightIn, dpi));
    const pipeline = upright.resize(outW, outH, { fit: 'fill' }).toColorspace('srgb');
    const hasAlpha = meta.hasAlpha === true;
    const bytes = hasAlpha
      ? await pipeline.png({ compressionLevel: 6 }).toBuffer()
      : await pipeline.flatten().jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer();
    return { format: hasAlpha ? 'png' : 'jpg', bytes, effectiveDpi };
  } catch (err) {
    if (err instanceof RenderError) throw err;
    throw new RenderError(
      `${path}: the image cannot be decoded (${(err as Error).message.split('\n')[0]})`,
      'image_unreadable',
    );
  }
}
