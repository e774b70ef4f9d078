import { findOrderItem } from '#projections/orders';
import { DomainError } from '../domain/shared/decider.ts';
import { renderPreviews } from '../print/preview.ts';
import type { FileStorage } from '../storage/port.ts';
import type { AppContext } from './context.ts';

/** Beside the PDF, named by its content: `<label>/<item>/<pdf sha256>-p<page>.png`. */
export const previewKey = (pdfKey: string, page: number) =>
  `${pdfKey.replace(/\.pdf$/, '')}-p${page}.png`;

/**
 * Stores a PNG of each page of a print file beside it. A preview is a convenience: one
 * that cannot be drawn leaves the print file as it is (and is drawn when first asked for).
 */
export async function storePreviews(
  storage: FileStorage,
  pdfKey: string,
  pdf: Uint8Array,
): Promise<boolean> {
  try {
    const pages = await renderPreviews(pdf);
    for (const [i, png] of pages.entries()) await storage.put(previewKey(pdfKey, i + 1), png);
    return true;
  } catch {
    return false;
  }
}

const noPreview = () => new DomainError('not_found', 'no such preview', 'preview_not_found');

/**
 * A page's preview of one of an order item's print files, drawn now when it is missing
 * (a print file from before previews, a render that could not draw one).
 */
export async function printFilePreview(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  sha256: string,
  page: number,
): Promise<Buffer> {
  const item = await findOrderItem(ctx.pool, labelId, orderItemId);
  const file = item?.print_files.find((f) => f.sha256 === sha256);
  if (!file || page < 1 || page > file.pages) throw noPreview();
  const key = previewKey(file.storageKey, page);
  const stored = await ctx.storage.get(key);
  if (stored) return stored;
  const pdf = await ctx.storage.get(file.storageKey);
  if (!pdf) throw noPreview();
  await storePreviews(ctx.storage, file.storageKey, pdf);
  const drawn = await ctx.storage.get(key);
  if (!drawn) throw noPreview();
  return drawn;
}
