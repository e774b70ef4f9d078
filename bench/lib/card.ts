import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { PrintItem } from '../../src/print/pdf.ts';
import { defaultOutputProfile } from '../../src/print/profiles.ts';

/** The benches' product: an A6 card with one print area. */
export const CARD_AREA = { code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 };

/** The benches' design: a 2400x1600 noisy photo (a JPEG as a data URL) and a line of text. */
export async function cardDesign(): Promise<PrintItem['design']> {
  const photo = await sharp({
    create: {
      width: 2400,
      height: 1600,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  return {
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
          {
            type: 'text',
            text: 'Happy birthday, Ada!',
            x: 5,
            y: 80,
            fontSize: 18,
            color: '#1a2b3c',
          },
        ],
      },
    ],
  };
}

/**
 * The card as the render function takes it: PDF/X-4 in CMYK with the default output
 * profile, digital print, a fresh item id and barcode.
 */
export const cardItem = (design: PrintItem['design'], orderId: string): PrintItem => ({
  orderId,
  orderItemId: randomUUID(),
  sku: 'A6-CARD',
  printMethod: 'digital',
  printColors: 4,
  printAreas: [CARD_AREA],
  design,
  barcode: { format: 'code128', value: randomUUID() },
  createdAt: new Date(),
  profile: defaultOutputProfile(),
  inks: false,
  cropMarks: false,
});
