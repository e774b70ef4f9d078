import type { productionOf } from '#projections/order-production';
import type { OrderItemRow, OrderRow } from '#projections/orders';
import type { OpsSession } from '../../../../app/ops-sessions.ts';
import { type OrderEvent, orderEvents, REPRINT_REASONS } from '../../../../domain/order/events.ts';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import { approvalSection } from './approvals.ts';
import { actorName, type HistoryNames, historyEntry, plainLayerText } from './history.ts';
import { age, href, html, time } from './html.ts';
import { actionForm, type Notice, notice, type PageContext, page, statusBadge } from './layout.ts';
import { orderPath, traceLink, workflowLink } from './orders.ts';

const BARCODE_FORMATS = ['code128', 'ean13', 'qrcode', 'datamatrix'];

type MockupFacts = Extract<OrderEvent, { type: 'MockupRendered' }>['data'];

/** An item's mockups, newest first, from the order's own events. */
function mockupsOf(events: RecordedEvent[], orderItemId: string): MockupFacts[] {
  const found: MockupFacts[] = [];
  for (const e of events) {
    if (e.type !== 'MockupRendered') continue;
    const m = orderEvents.deserialize(e);
    if (m.type === 'MockupRendered' && m.data.orderItemId === orderItemId) found.unshift(m.data);
  }
  return found;
}

/**
 * A variable item: its records and data set (its rows passed their check at the sale:
 * a failing data set is refused there), and a record browser: the first, the last, or any
 * record by number, each drawn alone from the order's events.
 */
function variableSection(i: OrderItemRow, base: string, record: number | undefined) {
  const v = i.variable!;
  const shown = Math.min(Math.max(1, record ?? 1), v.records);
  return html`<div class="variable" data-records="${String(v.records)}">
    <p><strong>${v.records.toLocaleString('en')} records</strong> · data set <code>${v.datasetId}</code> (sha256 <code>${v.sha256.slice(0, 16)}…</code>) · fields ${v.fields.join(', ')} · every row passed its check at the sale</p>
    ${i.reprints.length ? html`<p>Reprints of records: ${i.reprints.map((r) => html`<a href="${`${base}/printfile/${r.sha256}`}">${r.records.join(', ')}</a>${r.matches ? '' : ' (differs!)'} `)}</p>` : ''}
    <form method="get" class="records"><a href="?record=1">First</a> · <a href="${`?record=${v.records}`}">Last</a> · <label>Record <input name="record" type="number" min="1" max="${String(v.records)}" value="${String(shown)}"></label> <button>Show</button></form>
    <figure><img loading="lazy" alt="${`record ${shown} of ${i.item_id}`}" src="${`${base}/records/${shown}`}"><figcaption>record ${String(shown)} of ${String(v.records)}</figcaption></figure>
  </div>`;
}

/** Where the item is made: its facility and day, or that no facility can make it. */
function routingLine(i: OrderItemRow, names: HistoryNames) {
  if (i.routing === 'unroutable')
    return html`<p class="routing"><span class="badge failed">unroutable</span> no facility can make it now: it waits for one (see the history for why)</p>`;
  if (!i.facility_id) return '';
  const name = names.facilities?.get(i.facility_id) ?? i.facility_id.slice(0, 8);
  return html`<p class="routing" data-facility="${i.facility_id}">made at <strong>${name}</strong>${i.routed_day ? html` for ${i.routed_day}` : ''}</p>`;
}

function itemSection(
  session: OpsSession,
  labelId: string,
  orderId: string,
  i: OrderItemRow,
  names: HistoryNames,
  cancelled: boolean,
  mockups: MockupFacts[],
  record: number | undefined,
) {
  const file = i.print_files.at(-1);
  const areas = names.items.get(i.order_item_id)?.areas;
  const base = `/ops/labels/${labelId}/items/${i.order_item_id}`;
  return html`<section class="item" data-item="${i.order_item_id}">
    <h3>${i.item_id} ${statusBadge(cancelled ? 'cancelled' : i.status)}${i.stage && !cancelled ? html` <span class="stage" data-stage="${i.stage}">· ${i.stage}</span>` : ''} <span class="muted">${i.sku} × ${i.quantity}</span></h3>
    <p class="muted">order item ${i.order_item_id}${i.barcode ? html` · barcode ${i.barcode.format} ${i.barcode.value}` : ''}</p>
    ${routingLine(i, names)}
    ${i.reason ? html`<p class="error-text">${i.failure_kind ? html`<strong>${i.failure_kind.replaceAll('_', ' ')}</strong>: ` : ''}${plainLayerText(i.reason, areas)}</p>` : ''}
    ${i.warnings.length ? html`<ul class="warn-text">${i.warnings.map((w) => html`<li>${plainLayerText(w, areas)}</li>`)}</ul>` : ''}
    ${i.variable ? variableSection(i, base, record) : ''}
    ${
      file
        ? html`<div class="previews">${Array.from(
            // a variable item's first record; its records are browsed one at a time above
            {
              length: Math.min(
                file.pages,
                i.variable ? file.pages / i.variable.records : file.pages,
              ),
            },
            (_, p) =>
              html`<a href="${`${base}/printfile/${file.sha256}`}"><img loading="lazy" alt="${`page ${p + 1} of the print file of ${i.item_id}`}" src="${`${base}/preview/${file.sha256}/${p + 1}`}"></a>`,
          )}</div>
          <p><a href="${`${base}/printfile/${file.sha256}`}">Print file (PDF)</a> · sha256 <code>${file.sha256}</code> · ${file.pages} page(s), ${file.bytes} bytes${i.print_files.length > 1 ? html` · ${i.print_files.length - 1} earlier` : ''}</p>`
        : html`<p class="muted">No print file yet.</p>`
    }
    ${
      mockups.length
        ? html`<div class="previews mockups">${mockups.map(
            (m) =>
              html`<figure><a href="${`${base}/mockups/${m.sha256}`}"><img loading="lazy" alt="${`mockup of ${i.item_id} on template ${m.templateId}`}" src="${`${base}/mockups/${m.sha256}`}"></a><figcaption>${m.templateId} (revision ${m.templateRevision})${file && m.printFileSha256 !== file.sha256 ? ' · of an earlier print file' : ''}</figcaption></figure>`,
          )}</div>`
        : ''
    }
    ${
      i.preflight
        ? html`<details class="preflight" ${i.preflight.passed ? '' : 'open'}>
        <summary>Preflight ${i.preflight.passed ? html`<span class="badge ready">passed</span>` : html`<span class="badge failed">failed</span>`} · plates: ${i.preflight.plates.join(', ')} · coverage ${i.preflight.maxInkCoverage}%</summary>
        <table><tbody>${i.preflight.rules.map(
          (r) =>
            html`<tr data-rule="${r.rule}"><td>${r.rule.replaceAll('_', ' ')}</td><td><span class="badge ${r.result === 'pass' ? 'ready' : r.result === 'failure' ? 'failed' : 'received'}">${r.result}</span></td><td>${r.detail}</td></tr>`,
        )}</tbody></table>
      </details>`
        : ''
    }
    ${
      i.stage && !['ready', 'batched', 'reprinting'].includes(i.stage) && !cancelled
        ? actionForm(
            session,
            `${base}/reprint`,
            'Reprint',
            html`<input type="hidden" name="orderId" value="${orderId}">
      <select name="reason" aria-label="reprint reason">${REPRINT_REASONS.map((r) => html`<option>${r}</option>`)}</select>
      <input name="note" aria-label="note" placeholder="note (optional)" maxlength="500">`,
            { confirm: 'Print this item again?' },
          )
        : ''
    }
    ${i.approval ? approvalSection(session, base, orderId, i.approval, cancelled) : ''}
    ${actionForm(
      session,
      `${base}/barcode`,
      'Set barcode',
      html`<input type="hidden" name="orderId" value="${orderId}">
      <select name="format" aria-label="barcode format">${BARCODE_FORMATS.map((f) => html`<option ${(i.barcode?.format ?? 'code128') === f ? 'selected' : ''}>${f}</option>`)}</select>
      <input name="value" aria-label="barcode value" required maxlength="500" value="${i.barcode?.value ?? i.order_item_id}">`,
    )}
  </section>`;
}

/** An order: its facts, items with previews, actions, and its history as a timeline. */
export function orderDetailPage(
  ctx: PageContext,
  order: OrderRow & {
    items: OrderItemRow[];
    production: Awaited<ReturnType<typeof productionOf>>;
  },
  labelName: string,
  events: RecordedEvent[],
  names: HistoryNames,
  temporal: { uiUrl: string | undefined; namespace: string; workflowId: string },
  traceUiUrl: string | undefined,
  query: Notice,
  /** the record a variable item's browser shows (the first when absent) */
  record?: number,
): string {
  const { session } = ctx;
  const path = orderPath(order.label_id, order.order_id);
  const rendered = order.items.some((i) => i.print_files.length > 0);
  return page(
    ctx,
    `Order ${order.order_id}`,
    html`<p><a href="${href('/ops/orders')}">← Orders</a></p>
    <h1>Order ${order.order_id} ${statusBadge(order.status, order.overdue)}</h1>
    ${notice(query)}
    <dl class="facts">
      <dt>Label</dt><dd>${labelName} <span class="muted">${order.label_id}</span></dd>
      <dt>Received</dt><dd>${time(order.received_at)} (${age((Date.now() - order.received_at.getTime()) / 1000)} ago)</dd>
      <dt>Due</dt><dd>${time(order.render_due_at)}${order.overdue_at ? html` · <span class="error-text">went late, recorded ${time(order.overdue_at)}</span>` : ''}</dd>
      ${order.ready_at ? html`<dt>Ready</dt><dd>${time(order.ready_at)}</dd>` : ''}
      ${order.cancelled_at ? html`<dt>Cancelled</dt><dd>${time(order.cancelled_at)}</dd>` : ''}
      ${order.last_error ? html`<dt>Last error</dt><dd class="error-text">${order.last_error}</dd>` : ''}
      <dt>Workflow</dt><dd>${workflowLink(temporal.uiUrl, temporal.namespace, temporal.workflowId)}</dd>
      ${traceLink(traceUiUrl, events[0])}
      ${order.stage && order.status !== 'cancelled' ? html`<dt>Stage</dt><dd>${order.stage}</dd>` : ''}
      ${
        // the address itself is for the label's admin and fulfillment keys: here, its country
        order.customer_erased
          ? html`<dt>Recipient</dt><dd class="muted">erased</dd>`
          : order.ship_to_country
            ? html`<dt>Ships to</dt><dd>${order.ship_to_country}</dd>`
            : ''
      }
      ${
        order.ship_by
          ? html`<dt>Ship by</dt><dd class="${order.late ? 'error-text' : ''}">${time(order.ship_by)}${order.holds_open > 0 ? html` <strong>(clock paused: on hold)</strong>` : ''}${order.late ? ' · late' : ''}</dd>`
          : ''
      }
    </dl>
    ${shopFloor(ctx, order, names.facilities)}
    <h2>Actions</h2>
    <div>
      ${
        order.status !== 'cancelled'
          ? actionForm(
              session,
              `${path}/hold`,
              'Put on hold',
              html`<input name="reason" aria-label="hold reason" placeholder="reason" required maxlength="500">`,
            )
          : ''
      }
      ${order.status === 'failed' ? actionForm(session, `${path}/retry`, 'Retry failed items') : ''}
      ${rendered ? actionForm(session, `${path}/replay`, 'Replay and compare') : ''}
      ${
        // a shipped order has nothing left to cancel (the API answers 409 order_shipped); a
        // label's admin cancels only while no item is batched or printed (the edit window)
        order.status !== 'cancelled' &&
        order.stage !== 'shipped' &&
        order.stage !== 'delivered' &&
        (
          session.viewer.kind === 'operator' ||
            order.items.every((i) => i.stage === null || i.stage === 'ready')
        )
          ? actionForm(
              session,
              `${path}/cancel`,
              'Cancel order',
              html`<input name="reason" aria-label="reason" placeholder="reason (optional)" maxlength="500">`,
              { confirm: 'Cancel this order? No further print file will be made.', danger: true },
            )
          : ''
      }
    </div>
    <h2>Items</h2>
    <div class="items">${order.items.map((i) => itemSection(session, order.label_id, order.order_id, i, names, order.status === 'cancelled', mockupsOf(events, i.order_item_id), record))}</div>
    <h2>History</h2>
    <ol class="timeline">${events.map((e) => {
      const entry = historyEntry(e, names);
      return html`<li data-event="${e.type}"><span class="type">${entry.title}</span>
        <span class="meta">${time(e.recordedAt)} · by ${actorName(e.metadata.actor, names)}</span>
        <div>${entry.text}</div></li>`;
    })}</ol>`,
  );
}

/**
 * Where the order is on the shop floor: holds (with release), shipments with tracking, its
 * timeline.
 */
function shopFloor(
  ctx: PageContext,
  order: OrderRow & { items: OrderItemRow[]; production: Awaited<ReturnType<typeof productionOf>> },
  facilities: Map<string, string> | undefined,
) {
  const { holds, shipments, timeline } = order.production;
  const path = orderPath(order.label_id, order.order_id);
  const itemName = new Map(order.items.map((i) => [i.order_item_id, i.item_id]));
  const open = holds.filter((h) => !h.released_at);
  if (!holds.length && !shipments.length && !timeline.length) return '';
  return html`<h2>Shop floor</h2>
    ${open.map(
      (h) =>
        html`<div class="notice error" data-hold="${h.hold_id}">On hold since ${time(h.held_at)}: ${h.reason}
        ${actionForm(ctx.session, `${path}/holds/${h.hold_id}/release`, 'Release')}</div>`,
    )}
    ${
      shipments.length
        ? html`<table class="shipments"><thead><tr><th>Shipment</th><th>From</th><th>Items</th><th>Carrier</th><th>Tracking</th><th>Shipped</th><th>Delivered / returned</th></tr></thead><tbody>
      ${shipments.map(
        (s) => html`<tr data-shipment="${s.shipment_id}">
          <td>${s.shipment_id.slice(0, 8)}</td>
          <td>${s.facility_id ? (facilities?.get(s.facility_id) ?? s.facility_id.slice(0, 8)) : '–'}</td>
          <td>${s.order_item_ids.map((id) => itemName.get(id) ?? id.slice(0, 8)).join(', ')}</td>
          <td>${s.carrier}</td>
          <td>${s.tracking_url && /^https?:\/\//.test(s.tracking_url) ? html`<a href="${s.tracking_url}" rel="noopener noreferrer" target="_blank">${s.tracking_number}</a>` : s.tracking_number}</td>
          <td>${time(s.shipped_at)}</td>
          <td>${s.delivered_at ? html`delivered ${time(s.delivered_at)}` : s.returned_at ? html`<span class="error-text">returned ${time(s.returned_at)}: ${s.return_reason ?? ''}</span>` : '–'}</td>
        </tr>`,
      )}</tbody></table>`
        : ''
    }
    <ol class="timeline production">${timeline.map(
      (t) =>
        html`<li data-stage="${t.stage}"><span class="type">${t.stage.replaceAll('_', ' ')}</span>
        <span class="meta">${time(t.at)}${t.order_item_id ? html` · item ${itemName.get(t.order_item_id) ?? t.order_item_id}` : ''}${t.station ? html` · station ${t.station}` : ''}${t.via ? html` · ${t.via}` : ''}</span>
        ${t.detail ? html`<div>${t.detail}</div>` : ''}</li>`,
    )}</ol>`;
}
