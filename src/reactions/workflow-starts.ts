import { batchEvents } from '../domain/batch/events.ts';
import { importEvents } from '../domain/import/events.ts';
import { type OrderEvent, orderEvents } from '../domain/order/events.ts';
import type { EventStore, RecordedEvent } from '../eventstore/port.ts';
import type { WorkflowStarts } from '../temporal/workflow-starts.ts';
import type { Reactor } from './reactor.ts';

/**
 * Starts the workflow that each recorded request needs: an order's print workflow, a
 * barcode regeneration, a revised item's render, a replay, an import. The HTTP handlers only
 * record; this is the one place that starts, so neither a crash after the append nor a Temporal
 * outage can lose the work: the checkpoint stays until the start is accepted.
 */
/** The order an event of an order's stream belongs to (its first event names it). */
async function orderOf(store: EventStore, stream: string) {
  const [first] = await store.readStream(stream);
  const received = first && orderEvents.deserialize(first);
  if (received?.type !== 'OrderReceived') throw new Error(`no order in ${stream}`);
  return received.data;
}

/**
 * `received`: told of each new order before its workflow is started (its renders start
 * ahead of the workflow's first task in the worker's process).
 */
/** Told of a new order (its event as read, and when it was recorded). */
export type OrderReceivedHook = (
  order: Extract<OrderEvent, { type: 'OrderReceived' }>,
  recordedAt: Date,
) => void;

export function workflowStartsReactor(
  starts: WorkflowStarts,
  store: EventStore,
  received: OrderReceivedHook = () => {},
): Reactor {
  return {
    name: 'workflow-starts',
    handles: new Set([
      'OrderReceived',
      'OrderRetryRequested',
      'OrderCancelled',
      'OrderItemBarcodeUpdated',
      'ItemRevised',
      'OrderReplayRequested',
      'OrderItemReprintRequested',
      'ImportRequested',
      'BatchRequested',
      'BatchReplayRequested',
      'BatchSheetPrinted',
      'BatchCancelled',
      'BatchImpositionFailed',
    ]),
    async react(stored: RecordedEvent) {
      if (stored.type.startsWith('Batch')) {
        const b = batchEvents.deserialize(stored);
        const batchId = stored.streamId.slice('Batch-'.length);
        switch (b.type) {
          case 'BatchRequested':
            await starts.imposition(b.data.batchId);
            break;
          case 'BatchReplayRequested':
            await starts.batchReplay(batchId, b.data.replayId);
            break;
          case 'BatchSheetPrinted':
            await starts.batchSheetPrinted(batchId, b.data.n);
            break;
          case 'BatchCancelled':
          case 'BatchImpositionFailed':
            await starts.batchRelease(batchId);
            break;
        }
        return;
      }
      if (stored.type === 'ImportRequested') {
        const e = importEvents.deserialize(stored);
        if (e.type === 'ImportRequested') await starts.import(e.data.importId);
        return;
      }
      const e = orderEvents.deserialize(stored);
      switch (e.type) {
        case 'OrderReceived':
          received(e, stored.recordedAt);
          // with its items: the renders start and complete the order themselves
          await starts.order(e.data.labelId, e.data.orderId, stored.streamId, {
            items: e.data.items.map((i) => i.orderItemId),
          });
          break;
        case 'OrderRetryRequested':
        case 'OrderCancelled': {
          const order = await orderOf(store, stored.streamId);
          if (e.type === 'OrderCancelled') await starts.cancelOrder(order.labelId, order.orderId);
          // a retry runs the order's workflow again, after the run that failed
          else await starts.retryOrder(order.labelId, order.orderId, stored.streamId);
          break;
        }
        case 'OrderItemBarcodeUpdated':
        case 'ItemRevised': {
          // the version the render is for: this change's place among the item's barcode
          // updates and revisions (each a new version of what the item prints)
          const changes = (await store.readStream(stored.streamId)).filter(
            (x) =>
              (x.type === 'OrderItemBarcodeUpdated' || x.type === 'ItemRevised') &&
              x.revision <= stored.revision &&
              (x.data as { orderItemId?: string }).orderItemId === e.data.orderItemId,
          );
          if (e.type === 'ItemRevised')
            await starts.revision(stored.streamId, e.data.orderItemId, changes.length);
          else await starts.barcode(stored.streamId, e.data.orderItemId, changes.length);
          break;
        }
        case 'OrderReplayRequested':
          await starts.replay(stored.streamId, e.data.replayId);
          break;
        case 'OrderItemReprintRequested':
          await starts.reprint(stored.streamId, e.data.reprintId, e.data.orderItemId);
          break;
      }
    },
  };
}
