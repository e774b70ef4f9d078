import { type Design, parseDataUrl, parseImageRef } from '../domain/project/design.ts';
import type { FileStorage } from './port.ts';

/**
 * Design images live in a content-addressed image store; designs in events refer to
 * them. A 3 MB photo then travels once into the store instead of through every event,
 * read and projection that touches the project and its orders.
 */
export const imageKey = (sha256: string) => `${sha256.slice(0, 2)}/${sha256}`;

export type Image = { type: string; bytes: Buffer };

/** An image by data URL or by reference; undefined when it cannot be found. */
export async function loadImage(images: FileStorage, src: string): Promise<Image | undefined> {
  const inline = parseDataUrl(src);
  if (inline) return inline;
  const ref = parseImageRef(src);
  if (!ref) return undefined;
  const bytes = await images.get(imageKey(ref.sha256));
  return bytes && { type: ref.type, bytes };
}

/** The `src` of every image a design shows, each once. */
export const imageSources = (design: Design): string[] => [
  ...new Set(
    design.areas.flatMap((a) => a.layers.flatMap((l) => (l.type === 'image' ? [l.src] : []))),
  ),
];

/** The images a design shows, by their `src`, as a render job carries them; a missing one is left out. */
export async function designImages(
  images: FileStorage,
  design: Design,
): Promise<[string, Image][]> {
  const found: [string, Image][] = [];
  for (const src of imageSources(design)) {
    const image = await loadImage(images, src);
    if (image) found.push([src, image]);
  }
  return found;
}
