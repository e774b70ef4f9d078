import { findPrintFile } from '#projections/orders';
import { DomainError } from '../domain/shared/decider.ts';
import { verifiedStream } from '../storage/verified.ts';
import type { AppContext } from './context.ts';

/** A print file to hand out: a signed link into the object storage, or its bytes. */
export type PrintFileDownload =
  | { sha256: string; redirect: string }
  | { sha256: string; body: NodeJS.ReadableStream; size: number };

/**
 * An order item's print file (the one with `sha256`, else the latest) as the service is
 * set to hand it out: a short-lived signed link (PRINT_FILE_DOWNLOADS=redirect) or a
 * stream that fails rather than end with bytes other than the recorded sha256.
 */
export async function printFileDownload(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  sha256?: string,
): Promise<PrintFileDownload> {
  const file = await findPrintFile(ctx.pool, labelId, orderItemId, sha256);
  if (!file) throw noPrintFile();
  if (ctx.downloads.mode === 'redirect' && ctx.storage.signedUrl) {
    const redirect = await ctx.storage.signedUrl(file.storageKey, {
      expiresInSeconds: ctx.downloads.ttlSeconds,
      contentType: 'application/pdf',
      filename: `${orderItemId}.pdf`,
    });
    return { sha256: file.sha256, redirect };
  }
  const opened = await ctx.storage.open(file.storageKey);
  if (!opened) throw noPrintFile();
  return { sha256: file.sha256, body: verifiedStream(opened.body, file.sha256), size: opened.size };
}

const noPrintFile = () =>
  new DomainError('not_found', 'no print file for this order item', 'print_file_not_found');
