import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import {
  a,
  at,
  b,
  batched,
  iso,
  itemPrinted,
  made,
  printed,
  received,
  spec,
  started,
} from './fixtures.ts';

const design = {
  areas: [
    {
      printArea: 'FRONT',
      layers: [{ type: 'text' as const, text: 'John', x: 1, y: 1, fontSize: 12, color: '#000000' }],
    },
  ],
};
const revise = {
  type: 'ReviseItem' as const,
  orderItemId: a.orderItemId,
  projectId: a.projectId,
  projectVersion: 3,
  design,
  at,
};
const revised: OrderEvent = {
  type: 'ItemRevised',
  data: {
    orderItemId: a.orderItemId,
    version: 2,
    projectId: a.projectId,
    projectVersion: 3,
    design,
    revisedAt: iso,
  },
};

describe('order decider: revisions', () => {
  it('takes the project design into the item while the order is in its edit window', () => {
    spec(made).when(revise).thenEvents([revised]);
    // the same design again: nothing
    spec([...made, revised, printed(a.orderItemId, 'a2')])
      .when(revise)
      .thenEvents([]);
    // a second revision is the next version
    spec([...made, revised, printed(a.orderItemId, 'a2')])
      .when({ ...revise, design: { areas: [{ printArea: 'FRONT', layers: [] }], inks: [] } })
      .thenEvents([
        {
          type: 'ItemRevised',
          data: {
            ...(revised.data as object),
            version: 3,
            design: { areas: [{ printArea: 'FRONT', layers: [] }], inks: [] },
          } as never,
        },
      ]);
  });

  it('refuses once an item of the order is batched or printed, while it renders, or for another project', () => {
    spec([...made, batched])
      .when(revise)
      .thenFails('edit_window_closed');
    spec([...made, itemPrinted(b.orderItemId)])
      .when(revise)
      .thenFails('edit_window_closed');
    spec([received, started]).when(revise).thenFails('item_rendering');
    spec([...made, revised])
      .when(revise)
      .thenFails('item_rendering');
    spec(made)
      .when({ ...revise, projectId: '99999999-9999-4999-8999-999999999999' })
      .thenFails('project_mismatch');
    spec([...made, { type: 'OrderCancelled', data: { cancelledAt: iso } }])
      .when(revise)
      .thenFails('order_cancelled');
  });

  it('makes the render of the revision the item’s current version: an older render records nothing', () => {
    // the file the first render made, recorded after the revision, is superseded
    spec([...made, revised])
      .when({
        type: 'RecordPrintFile',
        orderItemId: a.orderItemId,
        forVersion: 0,
        file: {
          storageKey: 'k',
          sha256: 'old',
          pages: 1,
          bytes: 1,
          barcode: { format: 'code128', value: a.orderItemId },
          warnings: [],
          images: [],
        },
        at,
      })
      .thenEvents([]);
  });

  it('takes the shop’s cancel in the edit window only; the operator’s until it ships', () => {
    const cancel = { type: 'CancelOrder' as const, reason: 'changed mind', at };
    const cancelledEvent: OrderEvent = {
      type: 'OrderCancelled',
      data: { reason: 'changed mind', cancelledAt: iso },
    };
    spec(made).when(cancel).thenEvents([cancelledEvent]);
    spec([...made, batched])
      .when(cancel)
      .thenFails('edit_window_closed');
    spec([...made, itemPrinted(b.orderItemId)])
      .when(cancel)
      .thenFails('edit_window_closed');
    spec([...made, batched])
      .when({ ...cancel, override: true })
      .thenEvents([cancelledEvent]);
  });
});
