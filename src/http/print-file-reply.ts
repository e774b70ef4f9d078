import type { FastifyReply } from 'fastify';
import type { PrintFileDownload } from '../app/print-file-downloads.ts';

/**
 * Answers with a print file: 302 to its signed link, or 200 with its bytes streamed,
 * their length, and their sha256 as ETag and Repr-Digest (RFC 9530) for the client to
 * check. A file asked for by its sha256 never changes, so it may be kept for good.
 */
export function sendPrintFile(
  reply: FastifyReply,
  download: PrintFileDownload,
  filename: string,
  immutable: boolean,
) {
  if ('redirect' in download) {
    // the link expires: a cache must not hand it out later
    return reply.header('cache-control', 'no-store').redirect(download.redirect, 302);
  }
  return reply
    .type('application/pdf')
    .header('content-length', download.size)
    .header('content-disposition', `inline; filename="${filename}"`)
    .header('etag', `"${download.sha256}"`)
    .header('repr-digest', `sha-256=:${Buffer.from(download.sha256, 'hex').toString('base64')}:`)
    .header(
      'cache-control',
      immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache',
    )
    .send(download.body);
}
