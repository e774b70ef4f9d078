import sharp from 'sharp';
import { RenderError } from './errors.ts';
import type { OutputProfile } from './profiles.ts';
import { TARGET_DPI } from './units.ts';

/** The most pixels an image may have, decoded or rasterised (a layer's at its placed size too). */
export const LIMIT_PIXELS = 100_000_000;

/** How far an image layer is extended beyond its box, per side, in millimetres. */
export interface Extension {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
export const NO_EXTENSION: Extension = { left: 0, right: 0, top: 0, bottom: 0 };

/** An image ready for the PDF: CMYK samples, placed at its effective resolution. */
export interface PlacedImage {
  /** pixels, the extension included */
  width: number;
  height: number;
  effectiveDpi: number;
  /** JPEG (the source was lossy) or raw samples to deflate (the source was lossless) */
  data:
    | { filter: 'DCTDecode'; bytes: Buffer; adobe: boolean }
    | { filter: 'FlateDecode'; bytes: Buffer };
  /** 8-bit opacity, where the source had some */
  alpha: Buffer | undefined;
  /** the highest C+M+Y+K of any pixel, 0-4 */
  maxCoverage: number;
  /** how far it reaches beyond the layer's box (mirrored edges into the bleed) */
  extension: Extension;
}

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

/** Whether a JPEG carries Adobe's APP14 marker, whose CMYK samples are stored inverted. */
export function adobeJpeg(jpeg: Buffer): boolean {
  let i = 2;
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!;
    if (marker === 0xda) break; // start of scan
    const len = jpeg.readUInt16BE(i + 2);
    if (marker === 0xee && jpeg.subarray(i + 4, i + 9).toString('latin1') === 'Adobe') return true;
    i += 2 + len;
  }
  return false;
}

function maxCoverage(cmyk: Buffer, alpha: Buffer | undefined): number {
  let max = 0;
  for (let p = 0, a = 0; p < cmyk.length; p += 4, a++) {
    if (alpha && alpha[a]! < 8) continue; // nothing printed there
    const sum = cmyk[p]! + cmyk[p + 1]! + cmyk[p + 2]! + cmyk[p + 3]!;
    if (sum > max) max = sum;
  }
  return max / 255;
}

/** The decoded source at its placed size (and the facts about it), before any colour work. */
async function decode(parsed: { type: string; bytes: Buffer }, widthMm: number, heightMm: number) {
  const widthIn = widthMm / 25.4;
  const heightIn = heightMm / 25.4;
  const dpi = placementDpi(widthMm, heightMm);
  const targetW = Math.max(1, Math.round(widthIn * dpi));
  const targetH = Math.max(1, Math.round(heightIn * dpi));
  const isSvg = parsed.type === 'image/svg+xml';
  const open = (density?: number) =>
    sharp(parsed.bytes, {
      failOn: 'error',
      ...(density ? { density } : {}),
      // an SVG of another aspect than its layer may be taller than its target
      limitInputPixels: isSvg ? LIMIT_PIXELS * 4 : LIMIT_PIXELS,
    }).timeout({ seconds: 30 });
  const meta = await open().metadata();
  const input = isSvg ? open(await svgDensity(parsed.bytes, targetW)) : open();
  const turned = (meta.orientation ?? 1) >= 5;
  const srcW = (turned ? meta.height : meta.width) ?? targetW;
  const srcH = (turned ? meta.width : meta.height) ?? targetH;
  const outW = isSvg ? targetW : Math.min(srcW, targetW);
  const outH = isSvg ? targetH : Math.min(srcH, targetH);
  const effectiveDpi = isSvg ? dpi : Math.round(Math.min(srcW / widthIn, srcH / heightIn, dpi));
  return {
    meta,
    input,
    isSvg,
    outW,
    outH,
    effectiveDpi,
    unchanged: !isSvg && outW === srcW && outH === srcH && (meta.orientation ?? 1) === 1,
    pxPerMm: outW / widthMm,
  };
}

/**
 * Decodes, validates and prepares an image layer before the PDF sees it: EXIF
 * orientation applied, resized to its placed size at up to 300 dpi (never enlarged),
 * edges mirrored outwards by `extend` (into the bleed), and converted to the output
 * profile's CMYK. A CMYK source stays CMYK: its samples are kept as they are (and its
 * JPEG bytes too, when nothing else changes), never round-tripped through sRGB. A
 * lossless source (PNG, SVG) stays lossless; a JPEG or WebP source is coded as JPEG.
 */
export async function prepareImage(
  parsed: { type: string; bytes: Buffer } | undefined,
  widthMm: number,
  heightMm: number,
  path: string,
  profile: OutputProfile,
  extend: Extension = NO_EXTENSION,
): Promise<PlacedImage> {
  if (!parsed)
    throw new RenderError(
      `${path}: the image is missing or not a supported image`,
      'image_missing',
    );
  try {
    const d = await decode(parsed, widthMm, heightMm);
    const px = (mm: number) => Math.round(mm * d.pxPerMm);
    const ext = {
      top: px(extend.top),
      bottom: px(extend.bottom),
      left: px(extend.left),
      right: px(extend.right),
    };
    const extended = ext.top + ext.bottom + ext.left + ext.right > 0;
    const extension: Extension = {
      left: ext.left / d.pxPerMm,
      right: ext.right / d.pxPerMm,
      top: ext.top / d.pxPerMm,
      bottom: ext.bottom / d.pxPerMm,
    };
    const placed = () => {
      const p = d.input.clone().rotate().resize(d.outW, d.outH, { fit: 'fill' });
      return extended ? p.extend({ ...ext, extendWith: 'mirror' }) : p;
    };
    const width = d.outW + ext.left + ext.right;
    const height = d.outH + ext.top + ext.bottom;
    const lossy = parsed.type === 'image/jpeg' || parsed.type === 'image/webp';
    const cmyk = d.meta.space === 'cmyk';

    if (cmyk) {
      // the shop's own separation, unless it was made for another output condition
      const foreign = d.meta.icc !== undefined;
      const samples = foreign
        ? placed().pipelineColourspace('cmyk').withIccProfile(profile.path, { attach: false })
        : placed().pipelineColourspace('cmyk').toColourspace('cmyk');
      const raw = await samples.clone().raw().toBuffer();
      if (lossy && d.unchanged && !extended && !foreign && parsed.type === 'image/jpeg')
        return {
          width,
          height,
          effectiveDpi: d.effectiveDpi,
          data: { filter: 'DCTDecode', bytes: parsed.bytes, adobe: adobeJpeg(parsed.bytes) },
          alpha: undefined,
          maxCoverage: maxCoverage(raw, undefined),
          extension,
        };
      if (!lossy)
        return {
          width,
          height,
          effectiveDpi: d.effectiveDpi,
          data: { filter: 'FlateDecode', bytes: raw },
          alpha: undefined,
          maxCoverage: maxCoverage(raw, undefined),
          extension,
        };
      const jpeg = await samples.jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer();
      return {
        width,
        height,
        effectiveDpi: d.effectiveDpi,
        data: { filter: 'DCTDecode', bytes: jpeg, adobe: adobeJpeg(jpeg) },
        alpha: undefined,
        maxCoverage: maxCoverage(raw, undefined),
        extension,
      };
    }

    // sRGB (or grey) to the output profile's CMYK; opacity apart
    const pixels = width * height;
    let rgb: Buffer;
    let opacity: Buffer | undefined;
    if (d.meta.hasAlpha) {
      const rgba = await placed().toColourspace('srgb').ensureAlpha().raw().toBuffer();
      rgb = Buffer.alloc(pixels * 3);
      const alpha = Buffer.alloc(pixels);
      let transparent = false;
      for (let i = 0; i < pixels; i++) {
        rgb[i * 3] = rgba[i * 4]!;
        rgb[i * 3 + 1] = rgba[i * 4 + 1]!;
        rgb[i * 3 + 2] = rgba[i * 4 + 2]!;
        alpha[i] = rgba[i * 4 + 3]!;
        if (alpha[i]! < 255) transparent = true;
      }
      opacity = transparent ? alpha : undefined;
    } else rgb = await placed().toColourspace('srgb').raw().toBuffer();
    const converted = sharp(rgb, { raw: { width, height, channels: 3 } }).withIccProfile(
      profile.path,
      { attach: false },
    );
    const result = (data: PlacedImage['data'], cmyk: Buffer): PlacedImage => ({
      width,
      height,
      effectiveDpi: d.effectiveDpi,
      data,
      alpha: opacity,
      maxCoverage: maxCoverage(cmyk, opacity),
      extension,
    });
    if (!lossy) {
      const raw = await converted.raw().toBuffer();
      return result({ filter: 'FlateDecode', bytes: raw }, raw);
    }
    // one colour transform: the JPEG is made from it, the coverage read back from the JPEG
    const jpeg = await converted.jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer();
    const raw = await sharp(jpeg)
      .pipelineColourspace('cmyk')
      .toColourspace('cmyk')
      .raw()
      .toBuffer();
    return result({ filter: 'DCTDecode', bytes: jpeg, adobe: adobeJpeg(jpeg) }, raw);
  } catch (err) {
    if (err instanceof RenderError) throw err;
    throw new RenderError(
      `${path}: the image cannot be decoded (the file is damaged, cut short, or more than ${LIMIT_PIXELS / 1e6} megapixels)`,
      'image_unreadable',
    );
  }
}

/** An image reduced to inks: one 1-bit mask per ink (1 = that ink prints there). */
export interface InkImage {
  width: number;
  height: number;
  effectiveDpi: number;
  /** by index into the inks, only those the image uses; rows padded to whole bytes */
  masks: Map<number, Buffer>;
  extension: Extension;
}

/**
 * An image layer for a product printed with inks (screen, pad, engraving): every pixel
 * that prints (at least half opaque) takes the nearest of the inks; each ink becomes a
 * mask, drawn in its own spot colour. Placed, resized and extended as `prepareImage`.
 */
export async function prepareInkImage(
  parsed: { type: string; bytes: Buffer } | undefined,
  widthMm: number,
  heightMm: number,
  path: string,
  inks: [number, number, number][],
  extend: Extension = NO_EXTENSION,
): Promise<InkImage> {
  if (!parsed)
    throw new RenderError(
      `${path}: the image is missing or not a supported image`,
      'image_missing',
    );
  try {
    const d = await decode(parsed, widthMm, heightMm);
    const px = (mm: number) => Math.round(mm * d.pxPerMm);
    const ext = {
      top: px(extend.top),
      bottom: px(extend.bottom),
      left: px(extend.left),
      right: px(extend.right),
    };
    let p = d.input.clone().rotate().resize(d.outW, d.outH, { fit: 'fill' });
    if (ext.top + ext.bottom + ext.left + ext.right > 0)
      p = p.extend({ ...ext, extendWith: 'mirror' });
    const rgba = await p.toColourspace('srgb').ensureAlpha().raw().toBuffer();
    const width = d.outW + ext.left + ext.right;
    const height = d.outH + ext.top + ext.bottom;
    const stride = Math.ceil(width / 8);
    const masks = new Map<number, Buffer>();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        if (rgba[i + 3]! < 128) continue;
        const ink = nearestInk(inks, rgba[i]!, rgba[i + 1]!, rgba[i + 2]!);
        let mask = masks.get(ink);
        if (!mask) {
          mask = Buffer.alloc(stride * height);
          masks.set(ink, mask);
        }
        mask[y * stride + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    return {
      width,
      height,
      effectiveDpi: d.effectiveDpi,
      masks,
      extension: {
        left: ext.left / d.pxPerMm,
        right: ext.right / d.pxPerMm,
        top: ext.top / d.pxPerMm,
        bottom: ext.bottom / d.pxPerMm,
      },
    };
  } catch (err) {
    if (err instanceof RenderError) throw err;
    throw new RenderError(
      `${path}: the image cannot be decoded (the file is damaged, cut short, or more than ${LIMIT_PIXELS / 1e6} megapixels)`,
      'image_unreadable',
    );
  }
}

/** The index of the ink nearest to a colour (squared sRGB distance). */
export function nearestInk(
  inks: [number, number, number][],
  r: number,
  g: number,
  b: number,
): number {
  let best = 0;
  let bestD = Number.POSITIVE_INFINITY;
  for (const [i, [ir, ig, ib]] of inks.entries()) {
    const dist = (r - ir) ** 2 + (g - ig) ** 2 + (b - ib) ** 2;
    if (dist < bestD) {
      bestD = dist;
      best = i;
    }
  }
  return best;
}
