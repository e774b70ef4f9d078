import { describe, it } from 'vitest';
import { a, at, iso, received, spec } from './fixtures.ts';

describe('order decider: barcodes', () => {
  it("updates an item's barcode and records its regeneration; never for an unknown item, no update once cancelled", () => {
    const barcode = { format: 'qrcode' as const, value: 'NEW-1' };
    const unknown = '99999999-9999-4999-8999-999999999999';
    spec([received])
      .when({ type: 'UpdateBarcode', orderItemId: a.orderItemId, barcode, at })
      .thenEvents([
        {
          type: 'OrderItemBarcodeUpdated',
          data: { orderItemId: a.orderItemId, barcode, updatedAt: iso },
        },
      ]);
    spec([received])
      .when({ type: 'UpdateBarcode', orderItemId: unknown, barcode, at })
      .thenFails('order_item_not_found');
    spec([received, { type: 'OrderCancelled', data: { cancelledAt: iso } }])
      .when({ type: 'UpdateBarcode', orderItemId: a.orderItemId, barcode, at })
      .thenFails('order_cancelled');
    spec([received])
      .when({ type: 'RecordBarcodeRegenerated', orderItemId: a.orderItemId, barcode, at })
      .thenEvents([
        {
          type: 'BarcodeRegenerated',
          data: { orderItemId: a.orderItemId, barcode, regeneratedAt: iso },
        },
      ]);
    spec([received])
      .when({ type: 'RecordBarcodeRegenerated', orderItemId: unknown, barcode, at })
      .thenFails('order_item_not_found');
  });
});
