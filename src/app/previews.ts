import { findPrintFile } from '#projections/orders';
import { DomainError } from '../domain/shared/decider.ts';
import type { FileStorage } from '../storage/port.ts';
import type { AppContext, DrawPreviews } from './context.ts';

/** Beside the PDF, named by its content: `<label>/<item>/<pdf sha256>-p<page>.png`. */
export const previewKey = (pdfKey: string, page: number) =>
  `${pdfKey.replace(/\.pdf$/, '')}-p${page}.png`;

/**
 * Stores a PNG of each page of a print file beside it. A preview is a convenience: one
 * that cannot be drawn leaves the print file as it is (and is tried again when first
 * asked for); a storage failure is an error, so the caller tries again.
 */
export async function storePreviews(
  storage: FileStorage,
  draw: DrawPreviews,
  pdfKey: string,
  pdf: Uint8Array,
): Promise<boolean> {
  const pages = await draw(pdf).catch(() => undefined);
  if (!pages) return false;
  for (const [i, png] of pages.entries()) await storage.put(previewKey(pdfKey, i + 1), png);
  return true;
}

const noPreview = () => new DomainError('not_found', 'no such preview', 'preview_not_found');

/**
 * A page's preview of one of an order item's print files, drawn now when it is missing
 * (a print file from before previews, one whose previews are still to come).
 */
export async function printFilePreview(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  sha256: string,
  page: number,
): Promise<Buffer> {
  const file = await findPrintFile(ctx.pool, labelId, orderItemId, sha256);
  if (!file || page < 1 || page > file.pages) throw noPreview();
  return storedPreview(ctx, file.storageKey, page);
}

/** A page's preview of a stored PDF, drawn and kept beside it when first asked for. */
export async function storedPreview(
  ctx: Pick<AppContext, 'storage' | 'drawPreviews'>,
  pdfKey: string,
  page: number,
): Promise<Buffer> {
  const key = previewKey(pdfKey, page);
  const stored = await ctx.storage.get(key);
  if (stored) return stored;
  const pdf = await ctx.storage.get(pdfKey);
  if (!pdf) throw noPreview();
  await storePreviews(ctx.storage, ctx.drawPreviews, pdfKey, pdf);
  const drawn = await ctx.storage.get(key);
  if (!drawn) throw noPreview();
  return drawn;
}
