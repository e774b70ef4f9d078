import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import {
  a,
  at,
  b,
  batch,
  batched,
  batchId,
  iso,
  itemPacked,
  itemPrinted,
  made,
  other,
  ready,
  received,
  spec,
  stage,
  started,
} from './fixtures.ts';

describe('order decider: the shop floor and press runs', () => {
  it('moves an item forward once: the same report again is a no-op, going back a conflict', () => {
    spec(made)
      .when(stage(a.orderItemId, 'printed'))
      .thenEvents([itemPrinted(a.orderItemId)]);
    spec([...made, itemPrinted(a.orderItemId)])
      .when(stage(a.orderItemId, 'printed'))
      .thenEvents([]);
    spec([...made, itemPrinted(a.orderItemId), itemPacked(a.orderItemId)])
      .when(stage(a.orderItemId, 'printed'))
      .thenFails('stage_conflict');
    // packed straight from ready: a stage may be skipped, never undone
    spec(made)
      .when(stage(b.orderItemId, 'packed'))
      .thenEvents([itemPacked(b.orderItemId)]);
  });

  it('has nothing to scan before the print file is made', () => {
    spec([received, started]).when(stage(a.orderItemId, 'printed')).thenFails('stage_conflict');
  });

  it('batches a ready item once; the same batch again changes nothing, another is refused', () => {
    spec(ready).when(batch()).thenEvents([batched]);
    spec([...ready, batched])
      .when(batch())
      .thenEvents([]);
    spec([...ready, batched])
      .when(batch(other))
      .thenFails('stage_conflict');
  });

  it('refuses items not rendered, on hold or cancelled', () => {
    spec([received, started]).when(batch()).thenFails('stage_conflict');
    spec([...ready, { type: 'OrderHeld', data: { holdId: other, reason: 'address', heldAt: iso } }])
      .when(batch())
      .thenFails('order_on_hold');
    spec([...ready, { type: 'OrderCancelled', data: { cancelledAt: iso } }])
      .when(batch())
      .thenFails('order_cancelled');
  });

  it('lets an item go only for the batch that holds it, and never once printed', () => {
    const unbatch = (id: string) =>
      ({
        type: 'UnbatchItem',
        orderItemId: a.orderItemId,
        batchId: id,
        reason: 'cancelled',
        at,
      }) as const;
    spec([...ready, batched])
      .when(unbatch(batchId))
      .thenEvents([
        {
          type: 'OrderItemUnbatched',
          data: { orderItemId: a.orderItemId, batchId, reason: 'cancelled', unbatchedAt: iso },
        },
      ]);
    spec([...ready, batched])
      .when(unbatch(other))
      .thenEvents([]);
    const printedOnSheet: OrderEvent = {
      type: 'OrderItemPrinted',
      data: { orderItemId: a.orderItemId, via: 'batch', batchId, printedAt: iso },
    };
    spec([...ready, batched, printedOnSheet])
      .when(unbatch(batchId))
      .thenEvents([]);
  });

  it('prints a batched item when its sheet is scanned, naming the batch', () => {
    spec([...ready, batched])
      .when({
        type: 'RecordItemStage',
        orderItemId: a.orderItemId,
        stage: 'printed',
        via: 'batch',
        batchId,
        at,
      })
      .thenEvents([
        {
          type: 'OrderItemPrinted',
          data: { orderItemId: a.orderItemId, via: 'batch', batchId, printedAt: iso },
        },
      ]);
  });
});
