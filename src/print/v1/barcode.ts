import bwipjs from 'bwip-js';
import type { BarcodeFormat } from '../../domain/order/barcode.ts';
import { RenderError } from '../errors.ts';

const BCID: Record<BarcodeFormat, string> = {
  code128: 'code128',
  ean13: 'ean13',
  qrcode: 'qrcode',
  datamatrix: 'datamatrix',
};

/** The barcode as a PNG at 600 dpi (bwip-js, scale 8 on its 72 dpi grid ~ 576 dpi). */
export async function renderBarcode(
  format: BarcodeFormat,
  value: string,
): Promise<{ png: Buffer; dpi: number }> {
  try {
    const png = await bwipjs.toBuffer({
      bcid: BCID[format],
      text: value,
      scale: 8,
      height: format === 'code128' || format === 'ean13' ? 8 : undefined,
      includetext: false,
      paddingwidth: 0,
      paddingheight: 0,
    });
    return { png, dpi: 72 * 8 };
  } catch (err) {
    throw new RenderError(`barcode: ${String((err as Error).message ?? err)}`, 'barcode');
  }
}
