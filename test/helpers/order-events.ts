import { orderEvents } from '../../src/domain/order/events.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';

/**
 * One event of every type an order stream holds, with data as the service writes it
 * (for the tests of what reads them: history entries, webhook messages).
 */
export const SAMPLE_ITEM = '11111111-1111-4111-8111-111111111111';
export const SAMPLE_INTEGRATION = '22222222-2222-4222-8222-222222222222';
export const SAMPLE_AT = '2026-11-24T10:00:00.000Z';
export const SAMPLE_SHA = 'a'.repeat(64);
export const SAMPLE_SHIPMENT = '55555555-5555-4555-8555-555555555555';
export const SAMPLE_HOLD = '66666666-6666-4666-8666-666666666666';
export const SAMPLE_FACILITY = '77777777-7777-4777-8777-777777777777';
const barcode = { format: 'code128', value: 'X-1' };
const rule = {
  rule: 'total_ink_coverage',
  severity: 'failure',
  result: 'failure',
  detail: '320% over 300%',
};

export const SAMPLE_ORDER_EVENTS: Record<string, Record<string, unknown>> = {
  OrderReceived: {
    orderId: 'O-1',
    labelId: '33333333-3333-4333-8333-333333333333',
    bodyHash: 'h',
    source: { channel: 'shop', integrationId: SAMPLE_INTEGRATION },
    customer: null,
    items: [
      {
        orderItemId: SAMPLE_ITEM,
        itemId: 'line-1',
        projectId: '44444444-4444-4444-8444-444444444444',
        quantity: 5,
        sku: 'TEE-1',
        supplier: 'supplier-a',
        printMethod: 'digital',
        printColors: 4,
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
        design: { areas: [{ printArea: 'FRONT', layers: [] }] },
      },
    ],
    receivedAt: SAMPLE_AT,
    renderDueAt: SAMPLE_AT,
    print: {
      renderer: 2,
      outputProfile: { sha256: SAMPLE_SHA, description: 'd' },
      cropMarks: false,
      maxInkCoverage: 300,
      inkMethods: [],
    },
    shipBy: SAMPLE_AT,
    giftMessage: null,
    shipTo: null,
    shipToCountry: 'DE',
    personalDataKey: null,
  },
  OrderRenderingStarted: { startedAt: SAMPLE_AT },
  PrintFileGenerated: {
    orderItemId: SAMPLE_ITEM,
    storageKey: 'k',
    sha256: SAMPLE_SHA,
    pages: 2,
    bytes: 2_400_000,
    barcode,
    images: [],
    warnings: ['design.areas.0.layers.1: 25 dpi at its placed size (under 150)'],
    generatedAt: SAMPLE_AT,
  },
  OrderItemFailed: {
    orderItemId: SAMPLE_ITEM,
    reason: 'design.areas.0.layers.0: the image is missing',
    kind: 'image_missing',
    failedAt: SAMPLE_AT,
  },
  PrintFilePreflighted: {
    orderItemId: SAMPLE_ITEM,
    sha256: SAMPLE_SHA,
    passed: false,
    rules: [rule],
    plates: ['Cyan'],
    maxInkCoverage: 320,
    checkedAt: SAMPLE_AT,
  },
  OrderReady: { readyAt: SAMPLE_AT },
  OrderFailed: { reason: 'line-1: broken', failedAt: SAMPLE_AT },
  OrderItemBarcodeUpdated: { orderItemId: SAMPLE_ITEM, barcode, updatedAt: SAMPLE_AT },
  BarcodeRegenerated: { orderItemId: SAMPLE_ITEM, barcode, regeneratedAt: SAMPLE_AT },
  OrderRetryRequested: {
    retryId: SAMPLE_ITEM,
    orderItemIds: [SAMPLE_ITEM],
    requestedAt: SAMPLE_AT,
  },
  OrderCancelled: { reason: 'customer asked', cancelledAt: SAMPLE_AT },
  OrderWentOverdue: { renderDueAt: SAMPLE_AT, noticedAt: SAMPLE_AT },
  OrderReplayRequested: { replayId: SAMPLE_ITEM, requestedAt: SAMPLE_AT },
  OrderReplayed: {
    replayId: SAMPLE_ITEM,
    results: [
      { orderItemId: SAMPLE_ITEM, expected: SAMPLE_SHA, actual: SAMPLE_SHA, matches: true },
    ],
    replayedAt: SAMPLE_AT,
  },
  PrintFileMismatchDetected: {
    replayId: SAMPLE_ITEM,
    orderItemId: SAMPLE_ITEM,
    expected: SAMPLE_SHA,
    actual: 'b'.repeat(64),
    detectedAt: SAMPLE_AT,
  },
  OrderItemPrinted: {
    orderItemId: SAMPLE_ITEM,
    via: 'scan',
    station: 'Press 2',
    printedAt: SAMPLE_AT,
  },
  OrderItemPacked: { orderItemId: SAMPLE_ITEM, via: 'api', packedAt: SAMPLE_AT },
  OrderShipped: {
    shipmentId: SAMPLE_SHIPMENT,
    facilityId: SAMPLE_FACILITY,
    orderItemIds: [SAMPLE_ITEM],
    carrier: 'DHL',
    trackingNumber: '00340434161094042557',
    trackingUrl: 'https://www.dhl.com/track?n=00340434161094042557',
    shippedAt: SAMPLE_AT,
  },
  ShipmentDelivered: {
    shipmentId: SAMPLE_SHIPMENT,
    orderItemIds: [SAMPLE_ITEM],
    deliveredAt: SAMPLE_AT,
  },
  ShipmentReturned: {
    shipmentId: SAMPLE_SHIPMENT,
    orderItemIds: [SAMPLE_ITEM],
    reason: 'refused',
    returnedAt: SAMPLE_AT,
  },
  OrderHeld: { holdId: SAMPLE_HOLD, reason: 'artwork query', heldAt: SAMPLE_AT },
  OrderReleased: { holdId: SAMPLE_HOLD, releasedAt: SAMPLE_AT },
  OrderItemReprintRequested: {
    reprintId: SAMPLE_HOLD,
    orderItemId: SAMPLE_ITEM,
    reason: 'damaged',
    note: 'torn in transit',
    requestedAt: SAMPLE_AT,
  },
  OrderItemReprinted: {
    reprintId: SAMPLE_HOLD,
    orderItemId: SAMPLE_ITEM,
    reason: 'damaged',
    expected: SAMPLE_SHA,
    actual: SAMPLE_SHA,
    matches: true,
    reprintedAt: SAMPLE_AT,
  },
  OrderWentLate: { shipBy: SAMPLE_AT, noticedAt: SAMPLE_AT },
  OrderItemBatched: {
    orderItemId: SAMPLE_ITEM,
    batchId: '33333333-3333-4333-8333-333333333333',
    batchedAt: SAMPLE_AT,
  },
  OrderItemUnbatched: {
    orderItemId: SAMPLE_ITEM,
    batchId: '33333333-3333-4333-8333-333333333333',
    reason: 'the batch was cancelled',
    unbatchedAt: SAMPLE_AT,
  },
  ApprovalRequired: {
    orderItemIds: [SAMPLE_ITEM],
    approvers: [{ role: 'buyer', name: 'Anna' }, { role: 'shop' }],
    finalApprover: 'shop',
    remindAfterHours: 24,
    requiredAt: SAMPLE_AT,
  },
  ProofMade: {
    orderItemId: SAMPLE_ITEM,
    version: 1,
    printFileSha256: 'c'.repeat(64),
    pages: [{ page: 1, storageKey: 'k', sha256: 'd'.repeat(64), width: 1200, height: 800 }],
    approvers: [{ role: 'buyer', name: 'Anna' }, { role: 'shop' }],
    linksExpireAt: SAMPLE_AT,
    madeAt: SAMPLE_AT,
  },
  ProofApproved: {
    orderItemId: SAMPLE_ITEM,
    by: { role: 'buyer', name: 'Anna', via: 'link' },
    version: 1,
    printFileSha256: 'c'.repeat(64),
    approvedAt: SAMPLE_AT,
  },
  ProofRejected: {
    orderItemId: SAMPLE_ITEM,
    by: { role: 'shop', via: 'api' },
    version: 1,
    printFileSha256: 'c'.repeat(64),
    comment: 'the name is misspelt',
    pins: [{ page: 1, xMm: 20, yMm: 12, text: 'Jonh → John' }],
    rejectedAt: SAMPLE_AT,
  },
  ItemRevised: {
    orderItemId: SAMPLE_ITEM,
    version: 2,
    projectId: '44444444-4444-4444-8444-444444444444',
    projectVersion: 5,
    design: { areas: [{ printArea: 'FRONT', layers: [] }] },
    revisedAt: SAMPLE_AT,
  },
  OrderApproved: { approvedAt: SAMPLE_AT },
  ProofReminded: {
    orderItemId: SAMPLE_ITEM,
    version: 1,
    pending: [{ role: 'shop', approver: 1 }],
    linksExpireAt: SAMPLE_AT,
    remindedAt: SAMPLE_AT,
  },
  ProofExpired: { orderItemId: SAMPLE_ITEM, version: 1, expiredAt: SAMPLE_AT },
  ApprovalWaived: {
    orderItemId: SAMPLE_ITEM,
    by: 'operator',
    reason: 'approved by phone',
    waivedAt: SAMPLE_AT,
  },
  MockupRendered: {
    labelId: '33333333-3333-4333-8333-333333333333',
    orderItemId: SAMPLE_ITEM,
    templateId: 'tee-front',
    templateRevision: 2,
    templateImages: ['b'.repeat(64)],
    printFileSha256: SAMPLE_SHA,
    storageKey: 'k',
    sha256: 'c'.repeat(64),
    bytes: 123_456,
    format: 'png',
    width: 1200,
    height: 900,
    renderedAt: SAMPLE_AT,
  },
  ShipToCorrected: {
    previous: { alg: 'A256GCM', iv: 'aXY=', data: 'ZGF0YQ==', tag: 'dGFn' },
    shipTo: { alg: 'A256GCM', iv: 'aXY=', data: 'ZGF0YTI=', tag: 'dGFn' },
    country: 'PL',
    correctedAt: SAMPLE_AT,
  },
  CustomerErased: { erasedAt: SAMPLE_AT },
  ItemRouted: {
    orderItemId: SAMPLE_ITEM,
    facilityId: SAMPLE_FACILITY,
    day: '2026-11-24',
    shipBy: '2026-11-27T10:00:00.000Z',
    from: null,
    reason: {
      rule: 'only_capable',
      candidates: [
        { facilityId: SAMPLE_FACILITY, name: 'Kraków', verdict: 'chosen', detail: 'prints screen' },
        {
          facilityId: '88888888-8888-4888-8888-888888888888',
          name: 'Berlin',
          verdict: 'cannot_print',
          detail: 'cannot print screen',
        },
      ],
    },
    routedAt: SAMPLE_AT,
  },
};

/** An event as the store hands it out, at the current version of its type. */
export function recordedEvent(
  type: string,
  data: Record<string, unknown>,
  options: { actor?: string; revision?: number; id?: string } = {},
): RecordedEvent {
  const schemaVersion = orderEvents.has(type)
    ? orderEvents.serialize({ type, data } as never).schemaVersion
    : 1;
  const revision = options.revision ?? 0;
  return {
    id: options.id ?? `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
    type,
    schemaVersion,
    data,
    metadata: { actor: options.actor ?? 'workflow:print' },
    streamId: 'Order-x',
    revision: BigInt(revision),
    position: { commit: 1n, prepare: BigInt(revision) },
    recordedAt: new Date(SAMPLE_AT),
  };
}
