import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawnImageSizes } from '../../src/mockup/drawn-sizes.ts';

const jpeg = () =>
  sharp({ create: { width: 40, height: 20, channels: 3, background: '#c0102a' } })
    .jpeg()
    .toBuffer();

/** A page that draws one JPEG twice, rotated and scaled, inside nested q/Q. */
async function twice() {
  const doc = await PDFDocument.create();
  const page = doc.addPage([600, 400]);
  const image = await doc.embedJpg(await jpeg());
  const key = page.node.newXObject('Im', image.ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(2, 0, 0, 2, 10, 10),
    pushGraphicsState(),
    concatTransformationMatrix(100, 0, 0, 50, 0, 0),
    drawObject(key),
    popGraphicsState(),
    popGraphicsState(),
    pushGraphicsState(),
    // 90° turned, 120 x 30 pt
    concatTransformationMatrix(0, 120, -30, 0, 300, 50),
    drawObject(key),
    popGraphicsState(),
  );
  return { doc, page, image };
}

describe('the sizes a print file draws its images at', () => {
  it('follows q, Q and cm to each Do, and keeps the largest use of an image', async () => {
    const { doc, image } = await twice();
    const reread = await PDFDocument.load(await doc.save());
    const size = drawnImageSizes(reread).get(image.ref.objectNumber);
    expect(size?.width).toBeCloseTo(200, 6); // 100 x 2: the first use is the wider
    expect(size?.height).toBeCloseTo(100, 6);
  });

  it('answers nothing for an image it cannot follow: drawn from a form, or beside an inline image', async () => {
    const made = await twice();
    const doc = await PDFDocument.load(await made.doc.save());
    const image = made.image.ref.objectNumber;
    expect(drawnImageSizes(doc).has(image)).toBe(true);
    const form = doc.context.stream('q 10 0 0 10 0 0 cm /X Do Q', {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, 10, 10],
      Resources: { XObject: { X: made.image.ref } },
    });
    doc.getPage(0).node.newXObject('Fm', doc.context.register(form));
    expect(drawnImageSizes(doc).has(image)).toBe(false);

    const inline = await PDFDocument.load(await (await twice()).doc.save());
    expect(drawnImageSizes(inline).size).toBe(1);
    const extra = inline.context.stream(
      'q 10 0 0 10 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \u0000 EI Q',
    );
    const { Contents: contents } = inline.getPage(0).node.normalizedEntries();
    expect(contents).toBeDefined();
    contents?.push(inline.context.register(extra));
    expect(drawnImageSizes(inline).size).toBe(0);
  });
});
