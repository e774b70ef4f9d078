/** Where a batch's files are kept, by content. */
export const batchFileKey = (labelId: string, batchId: string, name: string, sha: string) =>
  `batches/${labelId}/${batchId}/${sha}-${name}`;

/** A sheet's file name, as the hot folder lays it beside the ticket. */
export const sheetFileName = (n: number) => `sheet-${String(n).padStart(3, '0')}.pdf`;
