import { createHash } from 'node:crypto';
import { derivedIds, handleCommand, readState } from '../app/command-handler.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { orderEvents } from '../domain/order/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { MockupDrawing } from '../print/image-work.ts';
import type { FileStorage } from '../storage/port.ts';
import type { Reactor } from './reactor.ts';

export interface ProofReactorDeps {
  store: EventStore;
  storage: FileStorage;
  drawing: MockupDrawing;
  /** resolves when print files leave room (they come first) */
  quiet: () => Promise<void>;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Draws the proof of each print file of an item that waits for approval, from the log:
 * its pages (drawn in an image process from the file itself), stored by content, then a
 * ProofMade. Idempotent: the decider records one proof per print file, and the event ids
 * are derived from the file, so a reaction run twice appends nothing twice.
 */
export function proofsReactor(deps: ProofReactorDeps): Reactor {
  return {
    name: 'order-proofs',
    handles: new Set(['PrintFileGenerated']),
    async react(stored) {
      const e = orderEvents.deserialize(stored);
      if (e.type !== 'PrintFileGenerated') return;
      const order = (await readState(deps.store, orderAggregate, stored.streamId)).state;
      if (!order.exists || order.status === 'cancelled') return;
      const item = order.items.get(e.data.orderItemId);
      if (item?.approval?.status !== 'awaiting_proof') return;
      // a print file made over since has its own proof drawn when its event comes
      if (item.files.at(-1)?.sha256 !== e.data.sha256) return;
      await deps.quiet();
      const pdf = await deps.storage.get(e.data.storageKey);
      if (!pdf) throw new Error(`the print file ${e.data.storageKey} is missing`);
      const version = item.approval.version + 1;
      const drawn = await deps.drawing.proof(`label:${order.labelId}`, {
        pdf,
        printFileSha256: e.data.sha256,
        version,
      });
      const pages = [];
      for (const p of drawn) {
        const digest = sha256(p.png);
        const storageKey = `${order.labelId}/${e.data.orderItemId}/proof-${digest}.png`;
        await deps.storage.put(storageKey, p.png);
        pages.push({ page: p.page, storageKey, sha256: digest, width: p.width, height: p.height });
      }
      await handleCommand(
        deps.store,
        orderAggregate,
        stored.streamId,
        {
          type: 'RecordProof',
          orderItemId: e.data.orderItemId,
          printFileSha256: e.data.sha256,
          pages,
          at: new Date(),
        },
        { actor: 'reactor:proofs' },
        { eventIds: derivedIds(stored.streamId, 'proof', e.data.orderItemId, e.data.sha256) },
      );
    },
  };
}
