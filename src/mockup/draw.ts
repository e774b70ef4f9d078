import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
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
  /** with its size as recorded: the corners are pixels of it */
  photo: ImageBytes & { width: number; height: number };
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

/**
 * A JPEG's samples as sRGB. CMYK ones (the print file's photos) are converted by the
 * plain formula R = (1 - C)(1 - K) and so on, not through the output profile: for a
 * picture on a screen that is close enough, and three times faster than the ICC
 * transform of a 2 MP image (150 ms against 50).
 */
async function rgbOf(jpeg: Uint8Array) {
  const image = sharp(jpeg);
  const { space } = await image.metadata();
  if (space !== 'cmyk')
    return image.toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { data: cmyk, info } = await image
    .pipelineColourspace('cmyk')
    .toColourspace('cmyk')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = info.width * info.height;
  const data = Buffer.allocUnsafe(pixels * 3);
  // x / 255 rounded, in integers: (x + 128 + ((x + 128) >> 8)) >> 8
  const over255 = (x: number) => (x + 128 + ((x + 128) >> 8)) >> 8;
  for (let i = 0, o = 0; i < pixels * 4; i += 4, o += 3) {
    const white = 255 - cmyk[i + 3]!;
    data[o] = over255((255 - cmyk[i]!) * white);
    data[o + 1] = over255((255 - cmyk[i + 1]!) * white);
    data[o + 2] = over255((255 - cmyk[i + 2]!) * white);
  }
  return { data, info: { width: info.width, height: info.height } };
}

/**
 * The print file with its JPEG images decoded by libvips into plain sRGB samples: pdf.js
 * decodes JPEGs and converts CMYK in JavaScript, five times slower than the rest of the
 * page together. The page is otherwise as printed (vectors, text, clips, soft masks).
 * The new images are an incremental update appended to the file (new objects under the
 * old numbers, an xref section for them): the file's megabytes are not written again.
 */
async function withDecodedPhotos(file: Buffer, doc: PDFDocument): Promise<Uint8Array> {
  const parts: Buffer[] = [file];
  let at = file.length;
  const add = (b: Buffer) => {
    parts.push(b);
    at += b.length;
  };
  const xref: string[] = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const dict = object.dict;
    if (
      dict.get(PDFName.of('Subtype')) !== PDFName.of('Image') ||
      dict.get(PDFName.of('Filter')) !== PDFName.of('DCTDecode')
    )
      continue;
    const { data, info } = await rgbOf(object.contents);
    const smask = dict.get(PDFName.of('SMask'));
    add(Buffer.from('\n'));
    xref.push(
      `${ref.objectNumber} 1\n${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n \n`,
    );
    add(
      Buffer.from(
        `${ref.objectNumber} ${ref.generationNumber} obj\n<< /Type /XObject /Subtype /Image /Width ${info.width} /Height ${info.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 ${smask instanceof PDFRef ? `/SMask ${smask.objectNumber} ${smask.generationNumber} R ` : ''}/Length ${data.length} >>\nstream\n`,
        'latin1',
      ),
    );
    add(data);
    add(Buffer.from('\nendstream\nendobj\n'));
  }
  if (xref.length === 0) return file;
  const { Root } = doc.context.trailerInfo;
  const tail = file.subarray(Math.max(0, file.length - 1024)).toString('latin1');
  const previous = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1];
  if (!Root || previous === undefined) return file; // not a file to update: pdf.js decodes as it is
  const xrefAt = at;
  add(
    Buffer.from(
      `xref\n${xref.join('')}trailer\n<< /Size ${doc.context.largestObjectNumber + 1} /Root ${Root.toString()} /Prev ${previous} >>\nstartxref\n${xrefAt}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/**
 * Encodes a drawn photo; the settings are fixed, so the same pixels give the same bytes.
 * JPEG without optimised Huffman tables: a 2,000 px mockup encodes in 21 ms instead of
 * 79, for 5% more bytes.
 */
export function encode(photo: Rgb, format: MockupFormat): Promise<Buffer> {
  const image = sharp(Buffer.from(photo.data.buffer, photo.data.byteOffset, photo.data.length), {
    raw: { width: photo.width, height: photo.height, channels: 3 },
  });
  return (
    format === 'png'
      ? image.png({ compressionLevel: 6, adaptiveFiltering: false })
      : image.jpeg({ quality: 90, optimiseCoding: false })
  ).toBuffer();
}

/** Draws one template's mockup from artwork already rasterised per page (the bench's entry). */
export async function drawOnPhoto(
  template: TemplateToDraw,
  width: number,
  artworkFor: (page: number, span: { across: number; down: number }) => Promise<Rgba | undefined>,
): Promise<Rgb> {
  const photo = await decode(template.photo, width, 3);
  const sx = photo.width / template.photo.width;
  const sy = photo.height / template.photo.height;
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
  const printFile = Buffer.from(
    'pdf' in job.source ? job.source.pdf : await renderPdf(job.source.render),
  );
  const parsed = await PDFDocument.load(printFile, { updateMetadata: false });
  const trims = parsed.getPages().map((p) => p.getTrimBox());
  const doc = await openPdf(await withDecodedPhotos(printFile, parsed));
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
