import { createHash } from 'node:crypto';
import type { Preflight } from '../domain/order/events.ts';
import { designImages } from '../storage/design-images.ts';
import { type StoreLocation, storeAt } from '../storage/location.ts';
import { type Phases, timed } from './phases.ts';
import { type RenderedFile, type RenderJob, renderJob } from './render-job.ts';

/**
 * A render job whose render process reads the design's images from the image store
 * and puts the print file in the print-file store itself: the worker that asked handles
 * no file's bytes. (A render's 2-3 MB of photo in and PDF out, copied through the
 * worker, made V8 collect the worker's whole heap every few orders: measured, the
 * service's own CPU fell from 4.2-4.3 to 2.4 s for 40 orders.)
 */
export interface StoredRenderJob {
  /** the job; when it carries no images, the design's are read from the image store */
  job: RenderJob;
  stores: StoreLocation;
  /**
   * the print file is put under `${keep}${sha256}.pdf` before the answer (content-addressed:
   * a render again puts the same bytes); absent, it is only hashed (replays, reprints)
   */
  keep?: string | undefined;
}

export interface StoredRender {
  file: Omit<RenderedFile['file'], 'bytes'> & {
    sha256: string;
    size: number;
    /** where it was put, when it was kept */
    storageKey?: string;
  };
  preflight?: Preflight;
  /** the render process's steps, timed (phases.ts): shown as spans, never recorded */
  phases?: Phases;
}

export async function renderStored({ job, stores, keep }: StoredRenderJob): Promise<StoredRender> {
  const phases: Phases = [];
  const images =
    job.images.length > 0
      ? job.images
      : await timed(phases, 'read images', async () =>
          designImages(await storeAt(stores, 'images'), job.item.design),
        );
  const { file, preflight } = await renderJob({ ...job, images }, phases);
  const { bytes, ...facts } = file;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const hashed = { ...facts, sha256, size: bytes.length };
  const found = { ...(preflight ? { preflight } : {}), phases };
  if (keep === undefined) return { file: hashed, ...found };
  const storageKey = `${keep}${sha256}.pdf`;
  await timed(phases, 'storage put', async () =>
    (await storeAt(stores, 'print-files')).put(storageKey, bytes),
  );
  return { file: { ...hashed, storageKey }, ...found };
}
