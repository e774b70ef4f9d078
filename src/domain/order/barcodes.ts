import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  itemOf,
  type OrderState,
  type Recorded,
  withItem,
} from './state.ts';

/*
 * Barcodes: an item's barcode changed, and its print file made again with it.
 */

export function updateBarcode(
  command: Command<'UpdateBarcode'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  itemOf(state, command.orderItemId);
  if (state.exists && state.status === 'cancelled') throw cancelled();
  return [
    {
      type: 'OrderItemBarcodeUpdated',
      data: { orderItemId: command.orderItemId, barcode: command.barcode, updatedAt: at },
    },
  ];
}

export function recordBarcodeRegenerated(
  command: Command<'RecordBarcodeRegenerated'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  itemOf(state, command.orderItemId);
  return [
    {
      type: 'BarcodeRegenerated',
      data: { orderItemId: command.orderItemId, barcode: command.barcode, regeneratedAt: at },
    },
  ];
}

export function onOrderItemBarcodeUpdated(
  state: Recorded,
  event: Event<'OrderItemBarcodeUpdated'>,
): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    barcode: event.data.barcode,
    barcodeVersion: i.barcodeVersion + 1,
  }));
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  UpdateBarcode: updateBarcode,
  RecordBarcodeRegenerated: recordBarcodeRegenerated,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderItemBarcodeUpdated: onOrderItemBarcodeUpdated,
} satisfies EvolveHandlers;
