import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { openPdf } from '../print/preview.ts';
import { type RenderJob, renderPdf } from '../print/render-job.ts';
import { type Quad, quadSpan, scaleQuad } from './quad.ts';
import { type Blend, type Rgb, type Rgba, warpInto } from './warp.ts';

export type MockupFormat = 'png' | 'jpeg';

/** A stored image by its content: the process keeps the decoded ones it saw last. */
export interface ImageBytes {
  sha256: string;
  bytes: Uint8Array;
}

/** One template as a drawing needs it: the photo, and per area the PDF page it shows. */
export interface TemplateToDraw {
  photo: ImageBytes;
  areas: { page: number; corners: Quad; blend: Blend; mask?: ImageBytes | undefined }[];
}

/**
 * Mockups of one design: its print file (stored, after the sale; rendered here from the
 * design, before it) on each template's photo, `width` px wide.
 */
export interface MockupJob {
  source: { pdf: Uint8Array } | { render: RenderJob };
  templates: TemplateToDraw[];
  width: number;
  format: MockupFormat;
}

export interface DrawnMockup {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** The longest side the artwork of one area is drawn at, px. */
const MAX_ARTWORK_PX = 4000;

/** Decoded photos and masks at the sizes asked for last: a shop asks for the same ones. */
const decoded = new Map<string, Promise<{ data: Buffer; width: number; height: number }>>();
const DECODED_KEPT = 8;

function decode(image: ImageBytes, width: number, channels: 1 | 3) {
  const key = `${image.sha256}/${width}/${channels}`;
  let found = decoded.get(key);
  if (!found) {
    const input = sharp(Buffer.from(image.bytes), { limitInputPixels: 100_000_000 }).resize({
      width,
      kernel: 'lanczos3',
    });
    // a mask's black and transparent hide the design; a photo's transparency is white
    const flat =
      channels === 1
        ? input.flatten({ background: '#000000' }).greyscale().extractChannel(0)
        : input.flatten({ background: '#ffffff' }).toColourspace('srgb');
    found = flat
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
    found.catch(() => decoded.delete(key));
    decoded.set(key, found);
    if (decoded.size > DECODED_KEPT) decoded.delete(decoded.keys().next().value!);
  }
  return found;
}

/**
 * The artwork of a page's trim box (the print area, without bleed and slug), drawn by
 * pdf.js from the print file itself at `across` x `down` px or a little more, with
 * what the design leaves empty transparent.
 */
async function artworkOf(
  pdf: Awaited<ReturnType<typeof openPdf>>,
  trim: { x: number; y: number; width: number; height: number },
  page: number,
  span: { across: number; down: number },
): Promise<Rgba> {
  const p = await pdf.getPage(page + 1);
  const [vx, , , vy2] = p.view as [number, number, number, number];
  const scale = Math.min(
    Math.max(span.across / trim.width, span.down / trim.height, 1 / 72),
    MAX_ARTWORK_PX / Math.max(trim.width, trim.height),
  );
  const viewport = p.getViewport({
    scale,
    offsetX: -(trim.x - vx) * scale,
    offsetY: -(vy2 - (trim.y + trim.height)) * scale,
  });
  const width = Math.max(1, Math.ceil(trim.width * scale));
  const height = Math.max(1, Math.ceil(trim.height * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  // pdf.js is typed for a browser's canvas; @napi-rs/canvas implements the same API
  type RenderParams = Parameters<typeof p.render>[0];
  await p.render({
    canvasContext: context as unknown as RenderParams['canvasContext'],
    canvas: canvas as unknown as RenderParams['canvas'],
    viewport,
  }).promise;
  p.cleanup();
  const pixels = context.getImageData(0, 0, width, height).data;
  return { width, height, data: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.length) };
}

/** Encodes a drawn photo; the settings are fixed, so the same pixels give the same bytes. */
export function encode(photo: Rgb, format: MockupFormat): Promise<Buffer> {
  const image = sharp(Buffer.from(photo.data.buffer, photo.data.byteOffset, photo.data.length), {
    raw: { width: photo.width, height: photo.height, channels: 3 },
  });
  return (
    format === 'png'
      ? image.png({ compressionLevel: 6, adaptiveFiltering: false })
      : image.jpeg({ quality: 90, chromaSubsampling: '4:4:4' })
  ).toBuffer();
}

/** Draws one template's mockup from artwork already rasterised per page (the bench's entry). */
export async function drawOnPhoto(
  template: TemplateToDraw,
  width: number,
  artworkFor: (page: number, span: { across: number; down: number }) => Promise<Rgba | undefined>,
): Promise<Rgb> {
  const photo = await decode(template.photo, width, 3);
  const meta = await sharp(Buffer.from(template.photo.bytes)).metadata();
  const sx = photo.width / (meta.width ?? photo.width);
  const sy = photo.height / (meta.height ?? photo.height);
  const out: Rgb = {
    width: photo.width,
    height: photo.height,
    data: new Uint8ClampedArray(photo.data),
  };
  for (const area of template.areas) {
    const quad = scaleQuad(area.corners, sx, sy);
    const art = await artworkFor(area.page, quadSpan(quad));
    if (!art) continue; // the design leaves this print area empty
    const mask = area.mask ? (await decode(area.mask, photo.width, 1)).data : undefined;
    warpInto(out, art, quad, area.blend, mask);
  }
  return out;
}

/**
 * Draws each template's mockup of the job's design. Runs in an image process: pdf.js,
 * libvips and the warp are CPU work a deadline must be able to stop.
 */
export async function drawMockups(job: MockupJob): Promise<DrawnMockup[]> {
  const pdf =
    'pdf' in job.source ? Buffer.from(job.source.pdf) : await renderPdf(job.source.render);
  const trims = (await PDFDocument.load(pdf, { updateMetadata: false }))
    .getPages()
    .map((p) => p.getTrimBox());
  const doc = await openPdf(pdf);
  try {
    const drawn: DrawnMockup[] = [];
    for (const template of job.templates) {
      const photo = await drawOnPhoto(template, job.width, async (page, span) => {
        const trim = trims[page];
        return trim ? artworkOf(doc, trim, page, span) : undefined;
      });
      drawn.push({
        bytes: await encode(photo, job.format),
        width: photo.width,
        height: photo.height,
      });
    }
    return drawn;
  } finally {
    await doc.destroy();
  }
}
