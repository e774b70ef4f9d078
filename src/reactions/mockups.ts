import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type CachedReads, uncachedReads } from '../app/cached-reads.ts';
import { derivedIds, handleCommand, readState } from '../app/command-handler.ts';
import type { FoldedStates } from '../app/folded-states.ts';
import { productTemplates, templateToDraw } from '../app/mockups.ts';
import { templateImages } from '../domain/mockup-template/events.ts';
import { mockupKey, type OrderState, orderAggregate } from '../domain/order/decider.ts';
import { orderEvents } from '../domain/order/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { MockupDrawing } from '../print/image-work.ts';
import type { FileStorage } from '../storage/port.ts';
import type { Reactor } from './reactor.ts';

/** An order item's mockups: the template photo's width up to this, PNG. */
const ORDER_MOCKUP_MAX_WIDTH = 2000;

export interface MockupReactorDeps {
  store: EventStore;
  pool: pg.Pool;
  /** the product's configuration and templates (default: each from the database) */
  reads?: CachedReads;
  /** orders' states this process keeps: an item with no template needs no read */
  orderStates?: FoldedStates<OrderState>;
  storage: FileStorage;
  images: FileStorage;
  drawing: MockupDrawing;
  /** resolves when print files leave room for a mockup (they come first) */
  quiet: () => Promise<void>;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Draws each order item's mockups from the log: when its print file is recorded, the
 * file itself goes on every template of the label that matches the item's product, and
 * a MockupRendered records each (with the template's revision and photo). Idempotent: a
 * mockup recorded for the same file, template revision and size is not drawn again; ids
 * are derived from those, so a reaction that runs twice appends nothing twice.
 */
export function mockupsReactor(deps: MockupReactorDeps): Reactor {
  return {
    name: 'order-mockups',
    handles: new Set(['PrintFileGenerated']),
    async react(stored) {
      const e = orderEvents.deserialize(stored);
      if (e.type !== 'PrintFileGenerated') return;
      const reads = deps.reads ?? uncachedReads(deps.pool);
      // the label and the item's product never change: an order state this process keeps
      // tells whether any template matches, and with none there is nothing to read
      const kept = deps.orderStates?.peek(stored.streamId)?.state;
      const keptItem = kept?.exists ? kept.items.get(e.data.orderItemId) : undefined;
      if (kept?.exists && keptItem) {
        const { templates } = await productTemplates(reads, kept.labelId, keptItem.item);
        if (templates.length === 0) return;
      }
      const read = await readState(deps.store, orderAggregate, stored.streamId);
      const order = read.state;
      if (!order.exists || order.status === 'cancelled') return;
      const item = order.items.get(e.data.orderItemId);
      // a print file made over since is drawn when its own event comes
      if (!item || item.files[item.files.length - 1]?.sha256 !== e.data.sha256) return;
      const { templates } = await productTemplates(reads, order.labelId, item.item);
      const todo = templates
        .map((t) => ({
          t,
          mockup: {
            labelId: order.labelId,
            orderItemId: e.data.orderItemId,
            templateId: t.template_id,
            templateRevision: t.revision,
            templateImages: templateImages(t.content),
            printFileSha256: e.data.sha256,
            format: 'png' as const,
            width: Math.min(t.content.photo.width, ORDER_MOCKUP_MAX_WIDTH),
          },
        }))
        .filter(({ mockup }) => !order.mockups.has(mockupKey(mockup)));
      if (todo.length === 0) return;
      await deps.quiet();
      const pdf = await deps.storage.get(e.data.storageKey);
      if (!pdf) throw new Error(`the print file ${e.data.storageKey} is missing`);
      // one job per width: the print file is read and rasterised once for its templates
      for (const width of new Set(todo.map((x) => x.mockup.width))) {
        const same = todo.filter((x) => x.mockup.width === width);
        const drawn = await deps.drawing.draw(`label:${order.labelId}`, {
          source: { pdf },
          templates: await Promise.all(
            same.map(({ t }) => templateToDraw(deps.images, t, item.item.design)),
          ),
          width,
          format: 'png',
        });
        for (const [i, { mockup }] of same.entries()) {
          const image = drawn[i];
          if (!image) continue;
          const digest = sha256(image.bytes);
          const storageKey = `${order.labelId}/${e.data.orderItemId}/mockup-${digest}.png`;
          await deps.storage.put(storageKey, image.bytes);
          await handleCommand(
            deps.store,
            orderAggregate,
            stored.streamId,
            {
              type: 'RecordMockup',
              mockup: {
                ...mockup,
                storageKey,
                sha256: digest,
                bytes: image.bytes.length,
                height: image.height,
              },
              at: new Date(),
            },
            { actor: 'reactor:mockups' },
            { eventIds: derivedIds(stored.streamId, 'mockup', mockupKey(mockup)) },
          );
        }
      }
    },
  };
}
