import sharp from 'sharp';
import { type PackingSlip, renderPackingSlip } from './packing-slip.ts';

/**
 * Image work of what labels upload and of their slips, in an image process (the main
 * process never decodes what a client sent, not even a header, whose ICC profile may
 * inflate to gigabytes, nor draws a PDF whose size a client chose): an image's size, the
 * logo made a PNG of at most LOGO_MAX_PX, and a packing slip with its items' thumbnails.
 */
export const LOGO_MAX_PX = 1200;
const THUMB_PX = 240;

/** An image's size from its header, or nothing when it cannot be read. */
export async function imageSize(input: { bytes: Uint8Array }) {
  const meta = await sharp(input.bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  return meta ? { width: meta.width ?? 0, height: meta.height ?? 0 } : undefined;
}

export async function normaliseLogo(input: { bytes: Uint8Array }) {
  const png = await sharp(input.bytes)
    .resize({ width: LOGO_MAX_PX, height: LOGO_MAX_PX, fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(png.data), width: png.info.width, height: png.info.height };
}

/**
 * A slip whose items carry their preview as found (a mockup, a print file's page), not yet a
 * thumbnail.
 */
export type SlipToDraw = Omit<PackingSlip, 'items'> & {
  items: (Omit<PackingSlip['items'][number], 'thumbnail'> & { preview: Uint8Array | undefined })[];
};

export async function drawPackingSlip(slip: SlipToDraw): Promise<Uint8Array> {
  const items = [];
  for (const { preview, ...item } of slip.items)
    items.push({
      ...item,
      thumbnail: preview
        ? await sharp(preview)
            .resize({ width: THUMB_PX, height: THUMB_PX, fit: 'inside' })
            .png()
            .toBuffer()
        : undefined,
    });
  return renderPackingSlip({ ...slip, items });
}
