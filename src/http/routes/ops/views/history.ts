import { type OrderEvent, orderEvents } from '../../../../domain/order/events.ts';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import { time } from './html.ts';

/** What the history needs to name things as people do: shops by name, items by the shop's id. */
export interface HistoryNames {
  /** shop integrations of the label, by id */
  shops: Map<string, string>;
  /** the shop's item id of each order item, and its design's print areas, in order */
  items: Map<string, { itemId: string; areas: string[] }>;
  /** the label's facilities, by id */
  facilities?: Map<string, string>;
}

/** The names of an order's history, from its events and the label's shops. */
export function historyNames(events: RecordedEvent[], shops: Map<string, string>): HistoryNames {
  const items = new Map<string, { itemId: string; areas: string[] }>();
  for (const s of events) {
    if (s.type !== 'OrderReceived') continue;
    const e = orderEvents.deserialize(s);
    if (e.type !== 'OrderReceived') continue;
    for (const i of e.data.items)
      items.set(i.orderItemId, {
        itemId: i.itemId,
        areas: i.design.areas.map((a) => a.printArea),
      });
  }
  return { shops, items };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const megabytes = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024))} KB`;

/** Who did it, in words: "the operator", "shop “Demo web shop”", "the print workflow". */
export function actorName(actor: string | undefined, names: HistoryNames): string {
  if (!actor) return 'someone unknown';
  const [kind, id = ''] = actor.split(/:(.*)/s) as [string, string?];
  switch (kind) {
    case 'operator':
      return 'the operator';
    case 'admin':
      return 'the label’s admin';
    case 'integration': {
      const name = names.shops.get(id);
      return name ? `shop “${name}”` : 'a shop integration';
    }
    case 'fulfillment':
      return 'the fulfillment partner';
    case 'printshop':
      return 'the print partner';
    case 'user':
      return 'an editor user';
    case 'workflow':
      return `the ${id} workflow`;
    case 'approver':
      return 'an approver, through their proof link';
    case 'system':
      return id === 'deadlines' ? 'the deadline watch' : 'the service';
    default:
      return actor;
  }
}

/**
 * A text recorded before layers were named in words ("design.areas.0.layers.1: ...")
 * as it is written now ("layer 2 on FRONT: ..."): old events keep their words, the page
 * reads them the new way.
 */
export function plainLayerText(text: string, areas: string[] | undefined): string {
  return text.replace(
    /\bdesign\.areas\.(\d+)(?:\.layers\.(\d+))?(?:\.\w+)?:/g,
    (whole, a: string, l: string | undefined) => {
      const area = areas?.[Number(a)];
      if (!area) return whole;
      return l === undefined ? `print area ${area}:` : `layer ${Number(l) + 1} on ${area}:`;
    },
  );
}

const FAILURE_KINDS: Record<string, string> = {
  image_missing: 'an image is missing',
  image_unreadable: 'an image cannot be read',
  layout: 'the design does not fit',
  barcode: 'the barcode cannot be drawn',
  timeout: 'rendering took too long',
  preflight: 'the preflight failed',
  profile_missing: 'the output profile is missing',
  unknown: 'reason not recorded',
};

const RULE_WORDS: Record<string, string> = {
  only_capable: 'the only one that can make it',
  recipient_country: 'in the recipient’s country',
  capacity: 'capacity left',
  least_loaded: 'the least loaded',
};

/**
 * A routing decision in words: "item A went to Kraków (day 2026-11-27): prints screen;
 * Berlin cannot print screen; Lisbon is paused".
 */
function routedSentence(
  d: Extract<OrderEvent, { type: 'ItemRouted' }>['data'],
  item: (id: string) => string,
): string {
  const chosen = d.reason.candidates.find((c) => c.verdict === 'chosen');
  const others = d.reason.candidates
    .filter((c) => c !== chosen)
    .map((c) => `${c.name} ${c.detail}`);
  if (d.reason.by)
    return `${item(d.orderItemId)} was moved to ${chosen?.name ?? 'another facility'} by ${d.reason.by.actor}: “${d.reason.by.note}” (${time(d.routedAt)}).`;
  if (!chosen)
    return `${item(d.orderItemId)} could not be routed: ${others.length ? others.join('; ') : 'the label has no facility'}. It waits as unroutable (${time(d.routedAt)}).`;
  const why = [
    `${chosen.detail}${RULE_WORDS[d.reason.rule] ? `, ${RULE_WORDS[d.reason.rule]}` : ''}`,
    ...others,
  ];
  return `${item(d.orderItemId)} went to ${chosen.name}${d.day ? ` for ${d.day}` : ''}: ${why.join('; ')} (${time(d.routedAt)}).`;
}

/** What an event says, as a title and a sentence of its facts: never its raw data. */
export function historyEntry(
  s: RecordedEvent,
  names: HistoryNames,
): { title: string; text: string } {
  let e: OrderEvent;
  try {
    e = orderEvents.deserialize(s);
  } catch {
    return { title: words(s.type), text: facts(s.data as Record<string, unknown>) };
  }
  const item = (id: string) => {
    const i = names.items.get(id);
    return i ? `item ${i.itemId}` : `item ${id.slice(0, 8)}`;
  };
  const areasOf = (id: string) => names.items.get(id)?.areas;
  switch (e.type) {
    case 'OrderReceived': {
      const d = e.data;
      const via =
        d.source.channel === 'fulfillment'
          ? 'the fulfillment partner'
          : d.source.integrationId && names.shops.has(d.source.integrationId)
            ? `shop “${names.shops.get(d.source.integrationId)}”`
            : 'a shop';
      return {
        title: 'Order received',
        text: `${plural(d.items.length, 'item')} (${d.items.map((i) => `${i.itemId}: ${i.quantity} × ${i.sku}`).join(', ')}) reported by ${via}; due to be rendered by ${time(d.renderDueAt)}.${d.shipToCountry ? ` To be shipped to ${d.shipToCountry}.` : ''}`,
      };
    }
    case 'ShipToCorrected':
      return {
        title: 'Address corrected',
        text: `The recipient's address was corrected (now in ${e.data.country}); the old and the new one are kept encrypted (${time(e.data.correctedAt)}).`,
      };
    case 'CustomerErased':
      return {
        title: 'Customer erased',
        text: `The customer's personal data (name, email, gift message, address) was erased: its key is destroyed, the history stays (${time(e.data.erasedAt)}).`,
      };
    case 'ItemRouted':
      return {
        title: e.data.facilityId ? 'Routed' : 'Unroutable',
        text: routedSentence(e.data, item),
      };
    case 'OrderRenderingStarted':
      return {
        title: 'Rendering started',
        text: `Print files are being made (${time(e.data.startedAt)}).`,
      };
    case 'PrintFileGenerated': {
      const d = e.data;
      const warned = d.warnings.length
        ? ` With ${plural(d.warnings.length, 'warning')}: ${d.warnings.map((w) => plainLayerText(w, areasOf(d.orderItemId))).join('; ')}.`
        : '';
      return {
        title: 'Print file made',
        text: `${item(d.orderItemId)}: ${plural(d.pages, 'page')}, ${megabytes(d.bytes)}, barcode ${d.barcode.format} “${d.barcode.value}”, sha256 ${d.sha256.slice(0, 12)}….${warned}`,
      };
    }
    case 'MockupRendered': {
      const d = e.data;
      return {
        title: 'Mockup drawn',
        text: `${item(d.orderItemId)}: template “${d.templateId}” (revision ${d.templateRevision}), ${d.width} × ${d.height} px ${d.format.toUpperCase()}, from print file ${d.printFileSha256.slice(0, 12)}…, sha256 ${d.sha256.slice(0, 12)}….`,
      };
    }
    case 'PrintFilePreflighted': {
      const d = e.data;
      const broken = d.rules.filter((r) => r.result !== 'pass');
      return {
        title: d.passed ? 'Preflight passed' : 'Preflight failed',
        text: `${item(d.orderItemId)}: plates ${d.plates.join(', ') || 'none'}, ink coverage up to ${d.maxInkCoverage}%${
          broken.length
            ? `; ${broken.map((r) => `${r.rule.replaceAll('_', ' ')} ${r.result === 'failure' ? 'failed' : 'warned'} (${r.detail})`).join('; ')}`
            : `; all ${plural(d.rules.length, 'rule')} passed`
        }.`,
      };
    }
    case 'OrderItemFailed':
      return {
        title: `Item failed (${FAILURE_KINDS[e.data.kind] ?? e.data.kind})`,
        text: `${item(e.data.orderItemId)}: ${plainLayerText(e.data.reason, areasOf(e.data.orderItemId))}`,
      };
    case 'OrderReady':
      return { title: 'Order ready', text: 'Every item has its print file.' };
    case 'OrderFailed':
      return { title: 'Order failed', text: plainLayerText(e.data.reason, undefined) };
    case 'OrderItemBarcodeUpdated':
      return {
        title: 'Barcode set',
        text: `${item(e.data.orderItemId)}: ${e.data.barcode.format} “${e.data.barcode.value}”; its print file is made again.`,
      };
    case 'BarcodeRegenerated':
      return {
        title: 'Barcode drawn',
        text: `${item(e.data.orderItemId)}: ${e.data.barcode.format} “${e.data.barcode.value}” checked and drawn.`,
      };
    case 'OrderRetryRequested':
      return {
        title: 'Retry asked for',
        text: `The failed ${e.data.orderItemIds.length === 1 ? 'item' : 'items'} (${e.data.orderItemIds.map(item).join(', ')}) will be rendered again.`,
      };
    case 'OrderCancelled':
      return {
        title: 'Order cancelled',
        text: `No further print file will be made${e.data.reason ? `; reason: ${e.data.reason}` : ''}.`,
      };
    case 'OrderWentOverdue':
      return {
        title: 'Went late',
        text: `Not ready by its render deadline (${time(e.data.renderDueAt)}); noticed ${time(e.data.noticedAt)}.`,
      };
    case 'OrderReplayRequested':
      return {
        title: 'Replay asked for',
        text: 'The print files will be rendered again and compared.',
      };
    case 'OrderReplayed': {
      const d = e.data;
      const differ = d.results.filter((r) => !r.matches);
      return {
        title: 'Replayed',
        text: differ.length
          ? `${plural(differ.length, 'print file')} of ${d.results.length} came out different: ${differ.map((r) => item(r.orderItemId)).join(', ')}.`
          : `All ${plural(d.results.length, 'print file')} came out byte for byte the same.`,
      };
    }
    case 'PrintFileMismatchDetected':
      return {
        title: 'Replay differs',
        text: `${item(e.data.orderItemId)}: rendered again it is not the recorded file (recorded ${e.data.expected.slice(0, 12)}…, now ${e.data.actual.slice(0, 12)}…).`,
      };
    case 'OrderItemPrinted':
      return {
        title: 'Printed',
        text: `${item(e.data.orderItemId)} came off the press${where(e.data)}.`,
      };
    case 'OrderItemPacked':
      return {
        title: 'Packed',
        text: `${item(e.data.orderItemId)} was packed${where(e.data)}.`,
      };
    case 'OrderShipped': {
      const d = e.data;
      return {
        title: 'Shipped',
        text: `${d.orderItemIds.map(item).join(', ')} left${d.facilityId ? ` ${names.facilities?.get(d.facilityId) ?? `facility ${d.facilityId.slice(0, 8)}`}` : ''} with ${d.carrier}, tracking number ${d.trackingNumber} (${time(d.shippedAt)}).`,
      };
    }
    case 'ShipmentDelivered':
      return {
        title: 'Delivered',
        text: `Shipment ${e.data.shipmentId.slice(0, 8)} arrived (${time(e.data.deliveredAt)}).`,
      };
    case 'ShipmentReturned':
      return {
        title: 'Returned',
        text: `Shipment ${e.data.shipmentId.slice(0, 8)} came back: ${e.data.reason}.`,
      };
    case 'OrderHeld':
      return {
        title: 'Put on hold',
        text: `Nothing of the order is printed or shipped until it is released; reason: ${e.data.reason}.`,
      };
    case 'OrderReleased':
      return { title: 'Hold released', text: 'The order may be printed and shipped again.' };
    case 'OrderItemReprintRequested': {
      const d = e.data;
      return {
        title: 'Reprint asked for',
        text: `${item(d.orderItemId)} is to be printed again (${d.reason}${d.note ? `: ${d.note}` : ''}); its print file is rendered again and checked first.`,
      };
    }
    case 'OrderItemReprinted':
      return {
        title: e.data.matches ? 'Reprint ready' : 'Reprint differs',
        text: e.data.matches
          ? `${item(e.data.orderItemId)}: rendered again byte for byte the same; back on the shop floor.`
          : `${item(e.data.orderItemId)}: rendered again it is not the recorded file; it waits.`,
      };
    case 'OrderWentLate':
      return {
        title: 'Missed its ship date',
        text: `Not shipped by ${time(e.data.shipBy)}; noticed ${time(e.data.noticedAt)}.`,
      };
    case 'OrderItemBatched':
      return {
        title: 'Batched',
        text: `${item(e.data.orderItemId)} was taken into press run ${e.data.batchId.slice(0, 8)}.`,
      };
    case 'OrderItemUnbatched':
      return {
        title: 'Left its press run',
        text: `${item(e.data.orderItemId)} left press run ${e.data.batchId.slice(0, 8)} (${e.data.reason}); it is ready again.`,
      };
    case 'ApprovalRequired': {
      const d = e.data;
      const who = d.approvers.map(approverName).join(', ');
      return {
        title: 'Approval required',
        text: `${d.orderItemIds.map(item).join(', ')} go to production only once ${who} approved the proof${d.finalApprover ? ` (the ${d.finalApprover} last)` : ''}.`,
      };
    }
    case 'ProofMade':
      return {
        title: 'Proof made',
        text: `${item(e.data.orderItemId)}: proof version ${e.data.version}, ${plural(e.data.pages.length, 'page')}, of print file ${e.data.printFileSha256.slice(0, 12)}….`,
      };
    case 'ProofApproved':
      return {
        title: 'Proof approved',
        text: `${approverName(e.data.by)} approved proof version ${e.data.version} of ${item(e.data.orderItemId)} (print file ${e.data.printFileSha256.slice(0, 12)}…) ${e.data.by.via === 'link' ? 'through its link' : 'through the API'}.`,
      };
    case 'ProofRejected': {
      const d = e.data;
      const pins = d.pins.length ? ` and ${plural(d.pins.length, 'pin')}` : '';
      return {
        title: 'Changes requested',
        text: `${approverName(d.by)} sent proof version ${d.version} of ${item(d.orderItemId)} back${d.comment ? `: “${d.comment}”` : ''}${pins}.`,
      };
    }
    case 'ItemRevised':
      return {
        title: 'Item revised',
        text: `${item(e.data.orderItemId)} takes design version ${e.data.version} (project version ${e.data.projectVersion}); its print file is made again.`,
      };
    case 'OrderApproved':
      return {
        title: 'Order approved',
        text: 'Every item that waited for its proof to be approved may go to production; the ship-by clock starts now.',
      };
    case 'ProofReminded':
      return {
        title: 'Approvers reminded',
        text: `${e.data.pending.map(approverName).join(', ')} reminded of proof version ${e.data.version} of ${item(e.data.orderItemId)}.`,
      };
    case 'ProofExpired':
      return {
        title: 'Proof expired',
        text: `Proof version ${e.data.version} of ${item(e.data.orderItemId)} was not approved in time: the item is not produced.`,
      };
    case 'ApprovalWaived':
      return {
        title: 'Approval waived',
        text: `${item(e.data.orderItemId)} goes to production without its approvers (${e.data.reason}).`,
      };
  }
}

/** "the buyer (Anna)" */
const approverName = (a: { role: string; name?: string | undefined }) =>
  `the ${a.role}${a.name ? ` (${a.name})` : ''}`;

/** " at station Press 2 (scanned)" */
function where(d: { via: string; station?: string | undefined }): string {
  const how = d.via === 'scan' ? 'scanned' : d.via === 'batch' ? 'with its press run' : 'reported';
  return `${d.station ? ` at station ${d.station}` : ''} (${how})`;
}

/** "OrderItemPrinted" as "Order item printed". */
function words(type: string): string {
  const s = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** An unknown event's plain facts as "key value" pairs, never as JSON. */
function facts(data: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(data ?? {})) {
    if (v === null || v === undefined || typeof v === 'object') continue;
    parts.push(
      `${words(k).toLowerCase()} ${typeof v === 'string' && /T\d\d:\d\d/.test(v) ? time(v) : String(v)}`,
    );
  }
  return parts.length ? `${parts.join(' · ')}.` : '';
}
