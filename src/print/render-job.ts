import type { Preflight } from '../domain/order/events.ts';
import { parseDataUrl } from '../domain/project/design.ts';
import { renderPrintFile } from './pdf.ts';
import { type Phases, timed } from './phases.ts';
import { preflight, preflightWarnings, recordedPreflight } from './preflight.ts';
import { defaultOutputProfile, type OutputProfile, outputProfile } from './profiles.ts';
import { type PrintItem as CommonItem, renderPrintFile as renderPrintFileV1 } from './v1/pdf.ts';

/**
 * One order item's print file, as renderJob takes it: everything it needs is in the job
 * (the design, its images' bytes, the output profile's bytes), so rendering reads no
 * storage and the same job gives the same bytes anywhere. (A render process fills in
 * the images from the image store first: stored-render.ts.)
 */
export interface RenderJob {
  /** 1: the first renderer (RGB, PDF 1.7) of orders recorded before PDF/X; 2: PDF/X-4 */
  renderer: number;
  /** what both renderers take of the item; `createdAt` (the PDF's dates) as ISO 8601 */
  item: Omit<CommonItem, 'createdAt'> & { createdAt: string };
  /**
   * the images the design refers to, by their `src` (a missing one is absent; data URLs are read as
   * they are)
   */
  images: [string, { type: string; bytes: Uint8Array }][];
  /** the order's output profile; the bundled default when absent */
  profile?: { sha256: string; description: string; bytes: Uint8Array } | undefined;
  /** printed with inks: one spot colour per ink */
  inks: boolean;
  cropMarks: boolean;
  maxInkCoverage: number;
}

export interface RenderedFile {
  file: {
    bytes: Uint8Array;
    pages: number;
    images: { area: string; layer: number; effectiveDpi: number }[];
    warnings: string[];
  };
  preflight?: Preflight;
}

const profiles = new Map<string, OutputProfile>();
/** A job's output profile, made once per process (its colour engine's file written once). */
export function profileOf(p: RenderJob['profile']): OutputProfile {
  if (!p) return defaultOutputProfile();
  let known = profiles.get(p.sha256);
  if (!known) {
    known = outputProfile(Buffer.from(p.bytes), p.description);
    profiles.set(p.sha256, known);
  }
  return known;
}

function loaderOf(job: RenderJob) {
  const images = new Map(
    job.images.map(([src, image]) => [src, { type: image.type, bytes: Buffer.from(image.bytes) }]),
  );
  return async (src: string) => images.get(src) ?? parseDataUrl(src);
}

/** The PDF/X-4 print file of a job, without its preflight (what a mockup is drawn from). */
export async function renderPdf(job: RenderJob): Promise<Uint8Array> {
  const common = { ...job.item, createdAt: new Date(job.item.createdAt) };
  const options = { profile: profileOf(job.profile), inks: job.inks, cropMarks: job.cropMarks };
  return (await renderPrintFile({ ...common, ...options }, () => {}, loaderOf(job))).bytes;
}

/** Renders an item's print file as its order says, and (renderer 2) preflights it. */
export async function renderJob(job: RenderJob, phases?: Phases): Promise<RenderedFile> {
  const loader = loaderOf(job);
  const common = { ...job.item, createdAt: new Date(job.item.createdAt) };
  if (job.renderer === 1) return { file: await renderPrintFileV1(common, () => {}, loader) };
  const file = await renderPrintFile(
    { ...common, profile: profileOf(job.profile), inks: job.inks, cropMarks: job.cropMarks },
    () => {},
    loader,
  );
  const report = await timed(phases, 'preflight', () =>
    preflight(file.bytes, file.facts, {
      maxInkCoverage: job.maxInkCoverage,
      inks: file.facts.inks,
    }),
  );
  return {
    file: {
      bytes: file.bytes,
      pages: file.pages,
      images: file.images,
      // the preflight's warnings join the item's
      warnings: [...file.warnings, ...preflightWarnings(report)],
    },
    preflight: recordedPreflight(report),
  };
}

/**
 * Renders a small item of every kind of work a print file needs (a photo, text, the
 * barcode, CMYK, preflight) a few times: a new render process compiles its code here,
 * not on the first orders it is given.
 */
export async function warmUp(): Promise<void> {
  const { default: sharp } = await import('sharp');
  const photo = await sharp({
    create: {
      width: 600,
      height: 400,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg()
    .toBuffer();
  const job: RenderJob = {
    renderer: 2,
    item: {
      orderId: 'warm-up',
      orderItemId: '00000000-0000-4000-8000-000000000000',
      sku: 'WARM-UP',
      printMethod: 'digital',
      printColors: 4,
      printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 }],
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              {
                type: 'image',
                src: `data:image/jpeg;base64,${photo.toString('base64')}`,
                x: 5,
                y: 5,
                width: 95,
                height: 63,
                rotation: 0,
              },
              { type: 'text', text: 'Warm-up', x: 5, y: 80, fontSize: 18, color: '#1a2b3c' },
            ],
          },
        ],
      },
      barcode: { format: 'code128', value: 'WARM-UP' },
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    images: [],
    inks: false,
    cropMarks: false,
    maxInkCoverage: 300,
  };
  for (let i = 0; i < 3; i++) await renderJob(job);
}
