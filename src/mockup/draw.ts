import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
import sharp from 'sharp';
import { openPdf } from '../print/preview.ts';
import { type RenderJob, renderPdf } from '../print/render-job.ts';
import { drawnImageSizes } from './drawn-sizes.ts';
import { type Quad, quadSpan, scaleQuad } from './quad.ts';
import { type Blend, pixelWords, type Rgb, type Rgba, warpInto } from './warp.ts';

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

type Box = { x: number; y: number; width: number; height: number };

/** Pixels per point along the page's x and y. */
type Scale = { x: number; y: number };

/**
 * Pixels per point a page's trim box is drawn at to fill a quad of `span` px: across
 * its width as many pixels as the quad's longer edge across, down its height as many as
 * the longer edge down (the warp then takes each artwork pixel about once).
 */
function artworkScale(trim: Box, span: { across: number; down: number }): Scale {
  return {
    x: Math.min(Math.max(span.across / trim.width, 1 / 72), MAX_ARTWORK_PX / trim.width),
    y: Math.min(Math.max(span.down / trim.height, 1 / 72), MAX_ARTWORK_PX / trim.height),
  };
}

/**
 * The artwork of a page's trim box (the print area, without bleed and slug), drawn by
 * pdf.js from the print file itself at `across` x `down` px or a little more, with
 * what the design leaves empty transparent.
 */
async function artworkOf(
  pdf: Awaited<ReturnType<typeof openPdf>>,
  trim: Box,
  page: number,
  span: { across: number; down: number },
): Promise<Rgba> {
  const p = await pdf.getPage(page + 1);
  const [vx, , , vy2] = p.view as [number, number, number, number];
  const scale = artworkScale(trim, span);
  // pdf.js scales a page alike both ways: x is stretched after it by x / y
  const viewport = p.getViewport({
    scale: scale.y,
    offsetX: -(trim.x - vx) * scale.y,
    offsetY: -(vy2 - (trim.y + trim.height)) * scale.y,
  });
  const width = Math.max(1, Math.ceil(trim.width * scale.x));
  const height = Math.max(1, Math.ceil(trim.height * scale.y));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  // pdf.js is typed for a browser's canvas; @napi-rs/canvas implements the same API
  type RenderParams = Parameters<typeof p.render>[0];
  await p.render({
    canvasContext: context as unknown as RenderParams['canvasContext'],
    canvas: canvas as unknown as RenderParams['canvas'],
    viewport,
    transform: [scale.x / scale.y, 0, 0, 1, 0, 0],
  }).promise;
  p.cleanup();
  // the canvas's own pixels, premultiplied, without a copy; the buffer does not hold the
  // canvas (its memory is freed with the canvas), so the artwork does
  return { width, height, data: canvas.data(), keep: canvas };
}

/** (255 - c)(255 - k) / 255 rounded, at [k << 8 | c]: CMYK to RGB by three look-ups a pixel. */
let underBlack: Uint8Array | undefined;
function cmykTable(): Uint8Array {
  if (!underBlack) {
    underBlack = new Uint8Array(65536);
    for (let k = 0; k < 256; k++)
      for (let c = 0; c < 256; c++)
        underBlack[(k << 8) | c] = Math.round(((255 - c) * (255 - k)) / 255);
  }
  return underBlack;
}

/** A JPEG image of the print file, and the size the mockups need its samples at. */
interface PhotoToDecode {
  ref: PDFRef;
  jpeg: Uint8Array;
  cmyk: boolean;
  width: number;
  height: number;
  smask: PDFRef | undefined;
}

/**
 * Writes a JPEG's samples as sRGB at `into` (width x height x 3 bytes), resized there
 * by libvips when the mockups need fewer. CMYK ones (the print file's photos) are
 * converted by the plain formula R = (1 - C)(1 - K) and so on, not through the output
 * profile: for a picture on a screen that is close enough, and three times faster than
 * the ICC transform of a 2 MP image (150 ms against 50).
 */
async function decodeInto(photo: PhotoToDecode, into: Uint8Array) {
  let image = sharp(photo.jpeg);
  if (photo.cmyk) image = image.pipelineColourspace('cmyk');
  image = image.resize(photo.width, photo.height, { fit: 'fill' });
  const { data, info } = await (photo.cmyk
    ? image.toColourspace('cmyk')
    : image.toColourspace('srgb').removeAlpha()
  )
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = photo.width * photo.height;
  if (
    info.width !== photo.width ||
    info.height !== photo.height ||
    info.channels !== (photo.cmyk ? 4 : 3)
  )
    throw new Error(
      `a print file image decoded as ${info.width} x ${info.height} x ${info.channels}`,
    );
  if (!photo.cmyk) {
    into.set(data);
    return;
  }
  const table = cmykTable();
  // one 32-bit load a pixel: C in the low byte, K in the high (little-endian)
  const cmyk = pixelWords(data);
  for (let i = 0, o = 0; i < pixels; i++, o += 3) {
    const p = cmyk[i]!;
    const k = (p >>> 16) & 0xff00;
    into[o] = table[k | (p & 255)]!;
    into[o + 1] = table[k | ((p >> 8) & 255)]!;
    into[o + 2] = table[k | ((p >> 16) & 255)]!;
  }
}

/**
 * The print file with its JPEG images decoded by libvips into plain sRGB samples, each
 * at the largest size a mockup shows it (`scale`, px per pt across and down, the most
 * any page is drawn at) or its own, whichever is less: pdf.js decodes JPEGs and
 * converts CMYK in JavaScript, five times slower than the rest of the page together.
 * The page is otherwise as printed (vectors, text, clips, soft masks). The new images are an
 * incremental update appended to the file (new objects under the old numbers, an xref
 * section for them), written straight into one buffer that pdf.js then owns.
 * `meanwhile` runs once libvips decodes the first image, for work this thread can do
 * until it is done (not at all when there is none to decode).
 */
async function withDecodedPhotos(
  file: Buffer,
  doc: PDFDocument,
  scale: Scale,
  meanwhile: () => void,
): Promise<Uint8Array> {
  const drawn = drawnImageSizes(doc, scale);
  const photos: PhotoToDecode[] = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const dict = object.dict;
    if (
      dict.get(PDFName.of('Subtype')) !== PDFName.of('Image') ||
      dict.get(PDFName.of('Filter')) !== PDFName.of('DCTDecode')
    )
      continue;
    const meta = await sharp(object.contents).metadata();
    let { width = 0, height = 0 } = meta;
    // pdf.js draws an image's samples into the unit square: either side may shrink alone
    const size = drawn.get(ref.objectNumber);
    if (size && size.width < width) width = Math.max(1, Math.ceil(size.width));
    if (size && size.height < height) height = Math.max(1, Math.ceil(size.height));
    const smask = dict.get(PDFName.of('SMask'));
    photos.push({
      ref,
      jpeg: object.contents,
      cmyk: meta.space === 'cmyk',
      width,
      height,
      smask: smask instanceof PDFRef ? smask : undefined,
    });
  }
  const { Root } = doc.context.trailerInfo;
  const tail = file.subarray(Math.max(0, file.length - 1024)).toString('latin1');
  const previous = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1];
  // not a file to update: pdf.js decodes as it is
  if (photos.length === 0 || !Root || previous === undefined) return new Uint8Array(file);
  const heads = photos.map((p) =>
    Buffer.from(
      `\n${p.ref.objectNumber} ${p.ref.generationNumber} obj\n<< /Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 ${p.smask ? `/SMask ${p.smask.objectNumber} ${p.smask.generationNumber} R ` : ''}/Length ${p.width * p.height * 3} >>\nstream\n`,
      'latin1',
    ),
  );
  const foot = Buffer.from('\nendstream\nendobj\n', 'latin1');
  let at = file.length;
  const offsets = photos.map((p, i) => {
    const offset = at;
    at += heads[i]!.length + p.width * p.height * 3 + foot.length;
    return offset;
  });
  const xref = photos
    .map(
      (p, i) =>
        `${p.ref.objectNumber} 1\n${String(offsets[i]! + 1).padStart(10, '0')} ${String(p.ref.generationNumber).padStart(5, '0')} n \n`,
    )
    .join('');
  const trailer = Buffer.from(
    `xref\n${xref}trailer\n<< /Size ${doc.context.largestObjectNumber + 1} /Root ${Root.toString()} /Prev ${previous} >>\nstartxref\n${at}\n%%EOF\n`,
    'latin1',
  );
  const out = Buffer.allocUnsafe(at + trailer.length);
  file.copy(out, 0);
  for (const [i, p] of photos.entries()) {
    const head = heads[i]!;
    head.copy(out, offsets[i]!);
    const samples = offsets[i]! + head.length;
    const decoding = decodeInto(p, out.subarray(samples, samples + p.width * p.height * 3));
    if (i === 0) meanwhile();
    await decoding;
    foot.copy(out, samples + p.width * p.height * 3);
  }
  trailer.copy(out, at);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/**
 * Encodes a drawn photo; the settings are fixed, so the same pixels give the same bytes.
 * JPEG without optimised Huffman tables: a 2,000 px mockup encodes in 21 ms instead of
 * 79, for 5% more bytes.
 */
function encode(photo: Rgb, format: MockupFormat): Promise<Buffer> {
  const image = sharp(Buffer.from(photo.data.buffer, photo.data.byteOffset, photo.data.length), {
    raw: { width: photo.width, height: photo.height, channels: 3 },
  });
  return (
    format === 'png'
      ? image.png({ compressionLevel: 6, adaptiveFiltering: false })
      : image.jpeg({ quality: 90, optimiseCoding: false })
  ).toBuffer();
}

/**
 * Photo-sized buffers the mockups are drawn in, kept for the next: a new 12 MB buffer a
 * mockup is memory outside V8's heap, which V8 answers with full garbage collections.
 */
const spare: Uint8ClampedArray[] = [];
const SPARE_KEPT = 2;

/** The artworks being warped now, with what owns their pixels. */
const drawing = new Set<Rgba>();

interface PhotoToDrawOn {
  out: Rgb;
  /** the drawn photo's pixels per pixel of the photo as recorded */
  sx: number;
  sy: number;
}

/** A template's photo at `width`, copied into a buffer to draw on (one of `spare`'s). */
async function photoToDrawOn(template: TemplateToDraw, width: number): Promise<PhotoToDrawOn> {
  const photo = await decode(template.photo, width, 3);
  const at = spare.findIndex((b) => b.length === photo.data.length);
  const data = at >= 0 ? spare.splice(at, 1)[0]! : new Uint8ClampedArray(photo.data.length);
  data.set(photo.data);
  return {
    out: { width: photo.width, height: photo.height, data },
    sx: photo.width / template.photo.width,
    sy: photo.height / template.photo.height,
  };
}

/**
 * Draws one template's mockup from artwork already rasterised per page, and encodes it
 * (the bench's entry too). `photo`, when given, is the template's photo made ready
 * before.
 */
export async function drawOnPhoto(
  template: TemplateToDraw,
  width: number,
  format: MockupFormat,
  artworkFor: (page: number, span: { across: number; down: number }) => Promise<Rgba | undefined>,
  photo: Promise<PhotoToDrawOn> = photoToDrawOn(template, width),
): Promise<DrawnMockup> {
  const { out, sx, sy } = await photo;
  try {
    for (const area of template.areas) {
      const quad = scaleQuad(area.corners, sx, sy);
      const art = await artworkFor(area.page, quadSpan(quad));
      if (!art) continue; // the design leaves this print area empty
      const mask = area.mask ? (await decode(area.mask, out.width, 1)).data : undefined;
      // a canvas's pixels are its memory, not the buffer's: the canvas must stay reachable
      // (a collection during the warp would free them under it)
      drawing.add(art);
      try {
        warpInto(out, art, quad, area.blend, mask);
      } finally {
        drawing.delete(art);
      }
    }
    return { bytes: await encode(out, format), width: out.width, height: out.height };
  } finally {
    spare.unshift(out.data);
    spare.length = Math.min(spare.length, SPARE_KEPT);
  }
}

/**
 * Draws each template's mockup of the job's design. Runs in an image process: pdf.js,
 * libvips and the warp are CPU work a deadline must be able to stop.
 */
export async function drawMockups(job: MockupJob): Promise<DrawnMockup[]> {
  const source = 'pdf' in job.source ? job.source.pdf : await renderPdf(job.source.render);
  const printFile = Buffer.from(source.buffer, source.byteOffset, source.length);
  const parsed = await PDFDocument.load(printFile, { updateMetadata: false });
  const trims = parsed.getPages().map((p) => p.getTrimBox());
  // the most pixels per point any page is drawn at for these templates
  const scale: Scale = { x: 0, y: 0 };
  for (const template of job.templates) {
    const sx = job.width / template.photo.width;
    for (const area of template.areas) {
      const trim = trims[area.page];
      if (!trim) continue;
      const { x, y } = artworkScale(trim, quadSpan(scaleQuad(area.corners, sx, sx)));
      scale.x = Math.max(scale.x, x);
      scale.y = Math.max(scale.y, y);
    }
  }
  // a rotated page's x is the picture's y: the images are decoded for the larger of the two
  if (parsed.getPages().some((p) => p.getRotation().angle % 360 !== 0))
    scale.x = scale.y = Math.max(scale.x, scale.y);
  // the first photo is copied while libvips decodes the print file's images
  let first: Promise<PhotoToDrawOn> | undefined;
  const decoded = await withDecodedPhotos(printFile, parsed, scale, () => {
    if (!job.templates[0]) return;
    first = photoToDrawOn(job.templates[0], job.width);
    first.catch(() => {}); // its error is the drawing's, below
  });
  const doc = await openPdf(decoded, { owned: true });
  try {
    const drawn: DrawnMockup[] = [];
    for (const [i, template] of job.templates.entries()) {
      const artworkFor = async (page: number, span: { across: number; down: number }) => {
        const trim = trims[page];
        return trim ? artworkOf(doc, trim, page, span) : undefined;
      };
      drawn.push(
        await drawOnPhoto(template, job.width, job.format, artworkFor, i === 0 ? first : undefined),
      );
    }
    return drawn;
  } finally {
    await doc.destroy();
  }
}
