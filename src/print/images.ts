import sharp from 'sharp';
import { RenderError } from './errors.ts';
import { TARGET_DPI } from './units.ts';

export interface PreparedImage {
  format: 'png' | 'jpg';
  bytes: Buffer;
  /** the resolution the image has at its placed size */
  effectiveDpi: number;
}

const LIMIT_PIXELS = 100_000_000;

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
  if (!parsed) throw new RenderError(`${path}: the image is missing or not a supported image`);
  const widthIn = widthMm / 25.4;
  const heightIn = heightMm / 25.4;
  const targetW = Math.max(1, Math.round(widthIn * TARGET_DPI));
  const targetH = Math.max(1, Math.round(heightIn * TARGET_DPI));
  const isSvg = parsed.type === 'image/svg+xml';
  try {
    let input = sharp(parsed.bytes, { failOn: 'error', limitInputPixels: LIMIT_PIXELS }).timeout({
      seconds: 30,
    });
    const meta = await input.metadata();
    if (isSvg) {
      // vector: rasterise at the density that gives the target size
      const density = Math.min(
        2400,
        Math.max(1, (72 * targetW) / Math.max(1, meta.width ?? targetW)),
      );
      input = sharp(parsed.bytes, {
        density,
        failOn: 'error',
        limitInputPixels: LIMIT_PIXELS,
      }).timeout({ seconds: 30 });
    }
    const upright = input.rotate(); // EXIF orientation
    const turned = (meta.orientation ?? 1) >= 5;
    const srcW = (turned ? meta.height : meta.width) ?? targetW;
    const srcH = (turned ? meta.width : meta.height) ?? targetH;
    const outW = isSvg ? targetW : Math.min(srcW, targetW);
    const outH = isSvg ? targetH : Math.min(srcH, targetH);
    const effectiveDpi = isSvg
      ? TARGET_DPI
      : Math.round(Math.min(srcW / widthIn, srcH / heightIn, TARGET_DPI));
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
    );
  }
}
