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

/**
 * The images a design refers to in the image store, by their `src`, as a render job
 * carries them; a missing one is left out. Data URLs are not among them: a render reads
 * those where they are.
 */
export async function designImages(
  images: FileStorage,
  design: Design,
): Promise<[string, Image][]> {
  const srcs = new Set(
    design.areas.flatMap((a) =>
      a.layers.flatMap((l) => (l.type === 'image' && parseImageRef(l.src) ? [l.src] : [])),
    ),
  );
  const found: [string, Image][] = [];
  for (const src of srcs) {
    const image = await loadImage(images, src);
    if (image) found.push([src, image]);
  }
  return found;
}
