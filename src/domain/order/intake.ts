import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  closedBy,
  type DecideHandlers,
  defaultBarcode,
  type Event,
  type EvolveHandlers,
  editWindowClosed,
  hasShipped,
  type OrderState,
  type Recorded,
} from './state.ts';

/*
 * Intake: a sale received, its rendering started, the order cancelled or gone past its render
 * deadline.
 */

export function receiveOrder(
  command: Command<'ReceiveOrder'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (state.exists)
    throw new DomainError('conflict', `order ${command.orderId} exists`, 'order_exists');
  const { orderId, labelId, bodyHash, source, customer, items, print, giftMessage } = command;
  const { shipTo, shipToCountry, personalDataKey } = command;
  const renderDueAt = new Date(
    command.at.getTime() + command.renderWithinMinutes * 60_000,
  ).toISOString();
  const shipBy =
    command.shipWithinHours === null
      ? null
      : new Date(command.at.getTime() + command.shipWithinHours * 3_600_000).toISOString();
  return [
    {
      type: 'OrderReceived',
      data: {
        orderId,
        labelId,
        bodyHash,
        source,
        customer,
        items,
        receivedAt: at,
        renderDueAt,
        print,
        shipBy,
        giftMessage,
        shipTo,
        shipToCountry,
        personalDataKey,
      },
    },
    ...(command.approval && command.approval.orderItemIds.length > 0
      ? [
          {
            type: 'ApprovalRequired' as const,
            data: {
              orderItemIds: command.approval.orderItemIds,
              approvers: command.approval.approvers,
              ...(command.approval.finalApprover
                ? { finalApprover: command.approval.finalApprover }
                : {}),
              remindAfterHours: command.approval.remindAfterHours,
              ...(command.approval.expireAfterHours !== undefined
                ? { expireAfterHours: command.approval.expireAfterHours }
                : {}),
              requiredAt: at,
            },
          },
        ]
      : []),
  ];
}

export function startRendering(
  _command: Command<'StartRendering'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  // a cancelled order is not rendered; one already rendering goes on
  if (!state.exists || state.status !== 'received') return [];
  return [{ type: 'OrderRenderingStarted', data: { startedAt: at } }];
}

export function cancelOrder(
  command: Command<'CancelOrder'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') return [];
  const items = [...state.items.values()];
  if (items.length > 0 && items.every(hasShipped))
    throw new DomainError(
      'conflict',
      'every item of the order has shipped: there is nothing left to cancel',
      'order_shipped',
    );
  // the shop's cancel only in the edit window; the operator's (override) until it ships
  const closed = command.override ? undefined : closedBy(state);
  if (closed) throw editWindowClosed(closed, 'cancelled');
  return [
    {
      type: 'OrderCancelled',
      data: { ...(command.reason ? { reason: command.reason } : {}), cancelledAt: at },
    },
  ];
}

export function markOverdue(
  command: Command<'MarkOverdue'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (
    !state.exists ||
    state.overdue ||
    state.status === 'ready' ||
    state.status === 'cancelled' ||
    Date.parse(state.renderDueAt) >= command.at.getTime()
  )
    return [];
  return [{ type: 'OrderWentOverdue', data: { renderDueAt: state.renderDueAt, noticedAt: at } }];
}

/** The order as received: its items pending, nothing shipped, held or late. */
export function onOrderReceived(event: Event<'OrderReceived'>): OrderState {
  const d = event.data;
  return {
    exists: true,
    orderId: d.orderId,
    labelId: d.labelId,
    bodyHash: d.bodyHash,
    status: 'received',
    receivedAt: d.receivedAt,
    renderDueAt: d.renderDueAt,
    print: d.print,
    overdue: false,
    retries: 0,
    replaysRecorded: new Set(),
    mockups: new Map(),
    shipBy: d.shipBy,
    giftMessage: d.giftMessage,
    shipTo: d.shipTo,
    shipToCountry: d.shipToCountry,
    personalDataKey: d.personalDataKey,
    customerErased: false,
    facilityShipBy: undefined,
    holds: new Map(),
    holdsSeen: new Set(),
    heldMs: 0,
    shipments: new Map(),
    late: false,
    approvedAt: undefined,
    items: new Map(
      d.items.map((item) => [
        item.orderItemId,
        {
          item,
          status: 'pending' as const,
          barcode: defaultBarcode(item.orderItemId),
          barcodeVersion: 0,
          files: [],
          stage: undefined,
          shipmentId: undefined,
          reprintId: undefined,
          reprintReason: undefined,
          reprintRecords: undefined,
          reprintFile: undefined,
          batchId: undefined,
          preflight: undefined,
          approval: undefined,
          designVersion: 1,
          revisedSinceFile: false,
          facilityId: undefined,
          routedDay: undefined,
        },
      ]),
    ),
  };
}

export function onOrderRenderingStarted(
  state: Recorded,
  _event: Event<'OrderRenderingStarted'>,
): OrderState {
  return { ...state, status: 'rendering' };
}

export function onOrderCancelled(state: Recorded, event: Event<'OrderCancelled'>): OrderState {
  return { ...state, status: 'cancelled', cancelledAt: event.data.cancelledAt };
}

export function onOrderWentOverdue(state: Recorded, _event: Event<'OrderWentOverdue'>): OrderState {
  return { ...state, overdue: true };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  ReceiveOrder: receiveOrder,
  StartRendering: startRendering,
  CancelOrder: cancelOrder,
  MarkOverdue: markOverdue,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderRenderingStarted: onOrderRenderingStarted,
  OrderCancelled: onOrderCancelled,
  OrderWentOverdue: onOrderWentOverdue,
} satisfies EvolveHandlers;
