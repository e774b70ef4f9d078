import { createHash } from 'node:crypto';
import { type Design, imageRef, parseDataUrl, parseImageRef } from '../domain/project/design.ts';
import type { FileStorage } from '../storage/port.ts';

/**
 * Design images live in a content-addressed image store; designs in events refer to
 * them. A 3 MB photo then travels once into the store instead of through every event,
 * read and projection that touches the project and its orders.
 */
const key = (sha256: string) => `${sha256.slice(0, 2)}/${sha256}`;

type Image = { type: string; bytes: Buffer };

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
  await images.put(key(sha256), bytes);
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

/** An image by data URL or by reference; undefined when it cannot be found. */
export async function loadImage(images: FileStorage, src: string): Promise<Image | undefined> {
  const inline = parseDataUrl(src);
  if (inline) return inline;
  const ref = parseImageRef(src);
  if (!ref) return undefined;
  const bytes = await images.get(key(ref.sha256));
  return bytes && { type: ref.type, bytes };
}

/** The images a design shows, by their `src`, as a render job carries them; a missing one is left out. */
export async function designImages(
  images: FileStorage,
  design: Design,
): Promise<[string, Image][]> {
  const srcs = new Set(
    design.areas.flatMap((a) => a.layers.flatMap((l) => (l.type === 'image' ? [l.src] : []))),
  );
  const found: [string, Image][] = [];
  for (const src of srcs) {
    const image = await loadImage(images, src);
    if (image) found.push([src, image]);
  }
  return found;
}

/** References back into data URLs, for clients. */
export function inlineDesignImages(images: FileStorage, design: Design): Promise<Design> {
  return mapImages(design, async (src) => {
    const image = await loadImage(images, src);
    return image ? `data:${image.type};base64,${image.bytes.toString('base64')}` : src;
  });
}
