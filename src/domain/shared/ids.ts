import { createHash } from 'node:crypto';

/**
 * A UUID (version 5 layout, SHA-256 based) derived from its parts: the same business
 * facts give the same event id, so a retried activity appends nothing twice.
 */
export function deterministicId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
