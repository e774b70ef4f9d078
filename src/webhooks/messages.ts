import type { z } from 'zod';
import type { AuditHeadEvent } from '../domain/audit/events.ts';
import type { OrderEvent } from '../domain/order/events.ts';
import type { WebhookEventType } from '../domain/shop-integration/events.ts';
import type { RecordedEvent } from '../eventstore/port.ts';
import type { MESSAGE_SCHEMAS, orderMessageSchema } from './message-schemas.ts';

/**
 * What a shop receives: the pull feed lists it whole, a webhook POSTs it without its `id`
 * (which is its webhook-id header). See message-schemas.ts.
 */
export type WebhookMessage = z.infer<typeof orderMessageSchema>;
/** A message of an order (every type but the label's daily tree head). */
export type OrderMessage = Exclude<WebhookMessage, { type: 'audit.tree_head' }>;
type DataOf<T extends WebhookEventType> = z.infer<(typeof MESSAGE_SCHEMAS)[T]['body']>['data'];

/** The order an event belongs to, from its first event. */
export interface OrderRef {
  orderId: string;
  labelId: string;
  /** the shop integration that sent it (none for a fulfillment partner's order) */
  integrationId: string | undefined;
  orderItemIds: string[];
}

/** The message of a label's daily tree head: the head as served, and its day. */
export const treeHeadMessage = (stored: RecordedEvent, e: AuditHeadEvent): WebhookMessage => ({
  id: `msg_${stored.id}`,
  type: 'audit.tree_head',
  timestamp: e.data.publishedAt,
  data: { day: e.data.day, ...e.data.head },
});

/** Where an order item's mockup is downloaded (with the admin key). */
export const mockupPath = (orderItemId: string, sha256: string) =>
  `/api/orderitem/${orderItemId}/mockups/${sha256}`;

/** The order events shops hear of. */
export const TOLD = new Set([
  'OrderReceived',
  'PrintFileGenerated',
  'OrderItemFailed',
  'OrderReady',
  'OrderFailed',
  'OrderWentOverdue',
  'OrderCancelled',
  'BarcodeRegenerated',
  'OrderReplayed',
  'OrderItemPrinted',
  'OrderItemPacked',
  'OrderShipped',
  'ShipmentDelivered',
  'ShipmentReturned',
  'OrderHeld',
  'OrderReleased',
  'OrderItemReprinted',
  'OrderWentLate',
  'MockupRendered',
  'ProofMade',
  'ProofApproved',
  'ProofRejected',
  'OrderApproved',
  'ProofReminded',
  'ProofExpired',
  'ItemRouted',
]);

/**
 * The message an order event makes, or undefined for events shops are not told of.
 * Pure: the reactor that pushes and the projection behind the pull feed make the same.
 */
export function webhookMessage(
  order: OrderRef,
  stored: RecordedEvent,
  event: OrderEvent,
): OrderMessage | undefined {
  const base = { orderId: order.orderId, sequence: Number(stored.revision) + 1 };
  const make = <T extends WebhookEventType>(
    type: T,
    timestamp: string,
    orderItemIds: string[],
    more: Omit<DataOf<T>, keyof typeof base | 'orderItemIds'>,
  ) =>
    ({
      id: `msg_${stored.id}`,
      type,
      timestamp,
      data: { ...base, orderItemIds, ...more },
    }) as OrderMessage;
  switch (event.type) {
    case 'OrderReceived':
      return make(
        'order.received',
        event.data.receivedAt,
        event.data.items.map((i) => i.orderItemId),
        {
          items: event.data.items.map((i) => ({
            itemId: i.itemId,
            orderItemId: i.orderItemId,
            sku: i.sku,
            quantity: i.quantity,
          })),
          renderDueAt: event.data.renderDueAt,
        },
      );
    case 'PrintFileGenerated': {
      const d = event.data;
      return make('order.item.print_ready', d.generatedAt, [d.orderItemId], {
        sha256: d.sha256,
        bytes: d.bytes,
        pages: d.pages,
        download: `/api/orderitem/${d.orderItemId}/printfile?sha256=${d.sha256}`,
      });
    }
    case 'MockupRendered': {
      const d = event.data;
      return make('order.item.mockup_ready', d.renderedAt, [d.orderItemId], {
        templateId: d.templateId,
        templateRevision: d.templateRevision,
        sha256: d.sha256,
        format: d.format,
        width: d.width,
        height: d.height,
        download: mockupPath(d.orderItemId, d.sha256),
      });
    }
    case 'OrderItemFailed':
      return make('order.item.failed', event.data.failedAt, [event.data.orderItemId], {
        reason: event.data.kind,
        detail: event.data.reason,
      });
    case 'OrderReady':
      return make('order.ready', event.data.readyAt, order.orderItemIds, {});
    case 'OrderFailed':
      return make('order.failed', event.data.failedAt, order.orderItemIds, {
        detail: event.data.reason,
      });
    case 'OrderWentOverdue':
      return make('order.overdue', event.data.noticedAt, order.orderItemIds, {
        renderDueAt: event.data.renderDueAt,
      });
    case 'OrderCancelled':
      return make('order.cancelled', event.data.cancelledAt, order.orderItemIds, {
        ...(event.data.reason ? { reason: event.data.reason } : {}),
      });
    case 'BarcodeRegenerated':
      return make('order.barcode_regenerated', event.data.regeneratedAt, [event.data.orderItemId], {
        barcode: event.data.barcode,
      });
    case 'OrderReplayed':
      return make(
        'order.replayed',
        event.data.replayedAt,
        event.data.results.map((r) => r.orderItemId),
        {
          replayId: event.data.replayId,
          matches: event.data.results.every((r) => r.matches),
          results: event.data.results.map((r) => ({
            orderItemId: r.orderItemId,
            matches: r.matches,
          })),
        },
      );
    case 'OrderItemPrinted':
      return make('order.item.printed', event.data.printedAt, [event.data.orderItemId], {
        ...(event.data.station ? { station: event.data.station } : {}),
      });
    case 'OrderItemPacked':
      return make('order.item.packed', event.data.packedAt, [event.data.orderItemId], {
        ...(event.data.station ? { station: event.data.station } : {}),
      });
    case 'ItemRouted': {
      const d = event.data;
      return make('order.item.routed', d.routedAt, [d.orderItemId], {
        facilityId: d.facilityId,
        day: d.day,
        rule: d.reason.rule,
        reason: d.reason.candidates.map((c) => `${c.name} ${c.detail}`).join('; '),
      });
    }
    case 'OrderShipped': {
      const d = event.data;
      return make('order.shipped', d.shippedAt, d.orderItemIds, {
        shipmentId: d.shipmentId,
        ...(d.facilityId ? { facilityId: d.facilityId } : {}),
        carrier: d.carrier,
        trackingNumber: d.trackingNumber,
        ...(d.trackingUrl ? { trackingUrl: d.trackingUrl } : {}),
      });
    }
    case 'ShipmentDelivered':
      return make('order.delivered', event.data.deliveredAt, event.data.orderItemIds, {
        shipmentId: event.data.shipmentId,
      });
    case 'ShipmentReturned':
      return make('order.returned', event.data.returnedAt, event.data.orderItemIds, {
        shipmentId: event.data.shipmentId,
        reason: event.data.reason,
      });
    case 'OrderHeld':
      return make('order.on_hold', event.data.heldAt, order.orderItemIds, {
        holdId: event.data.holdId,
        reason: event.data.reason,
      });
    case 'OrderReleased':
      return make('order.released', event.data.releasedAt, order.orderItemIds, {
        holdId: event.data.holdId,
      });
    case 'OrderItemReprinted':
      return make('order.item.reprinted', event.data.reprintedAt, [event.data.orderItemId], {
        reprintId: event.data.reprintId,
        reason: event.data.reason,
        matches: event.data.matches,
      });
    case 'OrderWentLate':
      return make('order.late', event.data.noticedAt, order.orderItemIds, {
        shipBy: event.data.shipBy,
      });
    case 'ProofMade': {
      const d = event.data;
      return make('order.proof.ready', d.madeAt, [d.orderItemId], {
        version: d.version,
        printFileSha256: d.printFileSha256,
        pages: d.pages.length,
        // each approver's link is added when the message is sent or read: never stored
        approvers: d.approvers.map((a, approver) => ({ approver, ...a })),
        linksExpireAt: d.linksExpireAt,
      });
    }
    case 'ProofApproved': {
      const d = event.data;
      return make('order.proof.approved', d.approvedAt, [d.orderItemId], {
        version: d.version,
        printFileSha256: d.printFileSha256,
        by: d.by,
      });
    }
    case 'ProofRejected': {
      const d = event.data;
      return make('order.proof.rejected', d.rejectedAt, [d.orderItemId], {
        version: d.version,
        printFileSha256: d.printFileSha256,
        by: d.by,
        ...(d.comment ? { comment: d.comment } : {}),
        pins: d.pins,
      });
    }
    case 'OrderApproved':
      return make('order.approved', event.data.approvedAt, order.orderItemIds, {});
    case 'ProofReminded': {
      const d = event.data;
      return make('order.proof.reminder', d.remindedAt, [d.orderItemId], {
        version: d.version,
        approvers: d.pending,
        linksExpireAt: d.linksExpireAt,
      });
    }
    case 'ProofExpired':
      return make('order.proof.expired', event.data.expiredAt, [event.data.orderItemId], {
        version: event.data.version,
      });
    default:
      return undefined;
  }
}

/** The order an order stream's first event names. */
export function orderRefOf(first: OrderEvent): OrderRef | undefined {
  if (first.type !== 'OrderReceived') return undefined;
  return {
    orderId: first.data.orderId,
    labelId: first.data.labelId,
    integrationId: first.data.source.integrationId,
    orderItemIds: first.data.items.map((i) => i.orderItemId),
  };
}

/**
 * Makes an approver's link to a proof: `(labelId, orderItemId, approver, version, expiresAt) =>
 * url`.
 */
export type ProofLinkMaker = (
  labelId: string,
  orderItemId: string,
  approver: number,
  version: number,
  expiresAt: Date,
) => string;

/**
 * A message as it leaves the service: a proof's messages gain each approver's link,
 * made now from the label's secret (the same link each time), never stored with the
 * message. Every other message goes as it is.
 */
export function withProofLinks(
  message: WebhookMessage,
  labelId: string,
  link: ProofLinkMaker,
): WebhookMessage {
  if (message.type !== 'order.proof.ready' && message.type !== 'order.proof.reminder')
    return message;
  const d = message.data;
  const orderItemId = d.orderItemIds[0];
  if (!orderItemId) return message;
  return {
    ...message,
    data: {
      ...d,
      approvers: d.approvers.map((a) => ({
        ...a,
        url: link(labelId, orderItemId, a.approver, d.version, new Date(d.linksExpireAt)),
      })),
    },
  } as WebhookMessage;
}

/** The shop-floor messages of one item, which name the facility that makes it (once routed). */
export const FACILITY_MESSAGES: ReadonlySet<string> = new Set([
  'order.item.print_ready',
  'order.item.printed',
  'order.item.packed',
  'order.item.reprinted',
]);

/** A message of one item with the facility it is made at, when it is one that says so. */
export function withFacility(message: OrderMessage, facilityId: string | undefined): OrderMessage {
  if (!facilityId || !FACILITY_MESSAGES.has(message.type)) return message;
  return { ...message, data: { ...message.data, facilityId } } as OrderMessage;
}
