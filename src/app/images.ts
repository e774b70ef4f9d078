import { createHash } from 'node:crypto';
import { type Design, imageRef, parseDataUrl } from '../domain/project/design.ts';
import { imageKey, loadImage } from '../storage/design-images.ts';
import type { FileStorage } from '../storage/port.ts';

async function mapImages(design: Design, f: (src: string) => Promise<string>): Promise<Design> {
  return {
    ...design,
    areas: await Promise.all(
      design.areas.map(async (area) => ({
        ...area,
        layers: await Promise.all(
          area.layers.map(async (layer) =>
            layer.type === 'image' ? { ...layer, src: await f(layer.src) } : layer,
          ),
        ),
      })),
    ),
  };
}

/** An image into the store under its content's sha256, which it answers. */
export async function storeImage(images: FileStorage, bytes: Buffer): Promise<string> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await images.put(imageKey(sha256), bytes);
  return sha256;
}

/** Data URLs into the store, references into the design. */
export function storeDesignImages(images: FileStorage, design: Design): Promise<Design> {
  return mapImages(design, async (src) => {
    const parsed = parseDataUrl(src);
    if (!parsed) return src;
    return imageRef(parsed.type, await storeImage(images, parsed.bytes));
  });
}

/** References back into data URLs, for clients. */
export function inlineDesignImages(images: FileStorage, design: Design): Promise<Design> {
  return mapImages(design, async (src) => {
    const image = await loadImage(images, src);
    return image ? `data:${image.type};base64,${image.bytes.toString('base64')}` : src;
  });
}
