import { z } from 'zod';

export const BARCODE_FORMATS = ['code128', 'ean13', 'qrcode', 'datamatrix'] as const;
export const barcodeFormatSchema = z
  .enum(BARCODE_FORMATS)
  .meta({ id: 'BarcodeFormat', description: 'the barcode in the print file’s slug' });
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];

/** The EAN-13 check digit of the first 12 digits. */
export function ean13CheckDigit(first12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

/** Why a value cannot be encoded in a format, or undefined when it can. */
export function barcodeProblem(format: BarcodeFormat, value: string): string | undefined {
  switch (format) {
    case 'ean13':
      if (!/^\d{13}$/.test(value)) return 'an EAN-13 is exactly 13 digits';
      if (ean13CheckDigit(value.slice(0, 12)) !== Number(value[12])) {
        return `wrong EAN-13 check digit: expected ${ean13CheckDigit(value.slice(0, 12))}`;
      }
      return undefined;
    case 'code128':
      if (value.length < 1 || value.length > 80) return 'a Code 128 value is 1-80 characters';
      if (!/^[\x20-\x7E]+$/.test(value)) return 'Code 128 takes printable ASCII characters only';
      return undefined;
    case 'qrcode':
      if (value.length < 1 || Buffer.byteLength(value, 'utf8') > 2953)
        return 'a QR code holds 1-2953 bytes';
      return undefined;
    case 'datamatrix':
      if (value.length < 1 || Buffer.byteLength(value, 'utf8') > 1556)
        return 'a Data Matrix holds 1-1556 bytes';
      return undefined;
  }
}

/**
 * A barcode as a client sets it: what each format takes, stated in the schema (and in
 * the OpenAPI document) where a pattern can say it; the EAN-13 check digit and the byte
 * counts of the 2D formats are checked beside it.
 */
export const barcodeInputSchema = z
  .discriminatedUnion('format', [
    z
      .object({ format: z.literal('code128'), value: z.string().regex(/^[\x20-\x7E]{1,80}$/) })
      .strict()
      .meta({ id: 'Code128Barcode', description: '1-80 printable ASCII characters' }),
    z
      .object({ format: z.literal('ean13'), value: z.string().regex(/^\d{13}$/) })
      .strict()
      .meta({ id: 'Ean13Barcode', description: '13 digits, the last its check digit' }),
    z
      .object({ format: z.literal('qrcode'), value: z.string().min(1).max(2953) })
      .strict()
      .meta({ id: 'QrCodeBarcode', description: 'up to 2953 bytes of UTF-8' }),
    z
      .object({ format: z.literal('datamatrix'), value: z.string().min(1).max(1556) })
      .strict()
      .meta({ id: 'DataMatrixBarcode', description: 'up to 1556 bytes' }),
  ])
  .superRefine((b, ctx) => {
    const problem = barcodeProblem(b.format, b.value);
    if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
  });
