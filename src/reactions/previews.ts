import type { DrawPreviews } from '../app/context.ts';
import { previewKey, storePreviews } from '../app/previews.ts';
import { orderEvents } from '../domain/order/events.ts';
import type { FileStorage } from '../storage/port.ts';
import type { Reactor } from './reactor.ts';

/**
 * Draws the page previews of every print file recorded, from the log and off the
 * rendering path: an order is ready when its PDFs are; the previews follow (the drawing
 * runs at the lowest CPU priority). Idempotent: previews are named by the PDF's content.
 */
export function previewsReactor(storage: FileStorage, draw: DrawPreviews): Reactor {
  return {
    name: 'print-file-previews',
    handles: new Set(['PrintFileGenerated']),
    async react(stored) {
      const e = orderEvents.deserialize(stored);
      if (e.type !== 'PrintFileGenerated') return;
      const { storageKey, pages } = e.data;
      if (await storage.get(previewKey(storageKey, pages))) return; // drawn already
      const pdf = await storage.get(storageKey);
      if (pdf) await storePreviews(storage, draw, storageKey, pdf);
    },
  };
}
