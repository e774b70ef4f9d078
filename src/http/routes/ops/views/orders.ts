import type { LabelRow } from '#projections/labels';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import type { OrderRowAnswer } from '../../../schemas/order-list.ts';
import { age, href, html, shortTime } from './html.ts';
import { type Notice, notice, type PageContext, page, statusBadge } from './layout.ts';

export interface OrdersFilter {
  status?: string | undefined;
  stage?: string | undefined;
  late?: string | undefined;
  labelId?: string | undefined;
  q?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/**
 * The shop floor's tabs: by the order's stage, on hold, and late (not shipped by its ship-by time).
 */
const FLOOR_TABS: [string, Record<string, string>][] = [
  ['To print', { stage: 'ready' }],
  ['Printed', { stage: 'printed' }],
  ['Packed', { stage: 'packed' }],
  ['Shipped', { stage: 'shipped' }],
  ['Delivered', { stage: 'delivered' }],
  ['On hold', { stage: 'on_hold' }],
  ['Reprinting', { stage: 'reprinting' }],
  ['Late', { late: 'true' }],
];

const TABS: [string, string | undefined][] = [
  ['All', undefined],
  ['Received', 'received'],
  ['Rendering', 'rendering'],
  ['Ready', 'ready'],
  ['Failed', 'failed'],
  ['Overdue', 'overdue'],
  ['Cancelled', 'cancelled'],
];

/** The order's own page on the ops site. */
export const orderPath = (labelId: string, orderId: string) =>
  `/ops/labels/${labelId}/orders/${encodeURIComponent(orderId)}`;

/** A workflow in Temporal's web UI, where there is one to link to (labelled `text`). */
export const workflowLink = (
  uiUrl: string | undefined,
  namespace: string,
  workflowId: string,
  text: string = workflowId,
) =>
  uiUrl
    ? html`<a href="${`${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`}" target="_blank" rel="noopener" title="${workflowId}">${text}</a>`
    : html`<code>${workflowId}</code>`;

/**
 * A link to the trace an order was received in (its first event's traceparent), in the
 * trace UI of TRACE_UI_URL; none when either is missing.
 */
export function traceLink(uiUrl: string | undefined, first: RecordedEvent | undefined) {
  const traceId = first?.metadata.traceparent?.split('-')[1];
  if (!uiUrl || !traceId || !/^[0-9a-f]{32}$/.test(traceId)) return '';
  return html`<dt>Trace</dt><dd><a href="${uiUrl.replace('{traceId}', traceId)}" target="_blank" rel="noopener" data-trace="${traceId}">${traceId}</a></dd>`;
}

/** An order's items as a clerk reads them: "2/3 ready", "1 failed of 3", "cancelled". */
function itemsText(o: OrderRowAnswer) {
  if (o.status === 'cancelled') return html`<span class="muted">cancelled</span>`;
  const { total, ready, failed } = o.items;
  if (failed) return html`<span class="error-text">${failed} failed</span> of ${total}`;
  return `${ready}/${total} ready`;
}

/** Orders newest first with the list's filters as tabs and a form; a next-page link. */
export function ordersPage(
  ctx: PageContext,
  rows: OrderRowAnswer[],
  filter: OrdersFilter,
  next: string | undefined,
  labels: LabelRow[],
  temporal: { uiUrl: string | undefined; namespace: string },
  query: Notice,
): string {
  const operator = ctx.session.viewer.kind === 'operator';
  const base = { labelId: filter.labelId, q: filter.q, since: filter.since, until: filter.until };
  return page(
    ctx,
    'Orders',
    html`<h1>Orders</h1>
    ${notice(query)}
    <div class="tabs">${TABS.map(
      ([name, status]) =>
        html`<a href="${href('/ops/orders', { ...base, status })}" ${filter.status === status && !filter.stage && !filter.late ? html`aria-current="page"` : ''}>${name}</a>`,
    )}</div>
    <div class="tabs floor">${FLOOR_TABS.map(
      ([name, q]) =>
        html`<a href="${href('/ops/orders', { ...base, ...q })}" ${(q.stage && filter.stage === q.stage) || (q.late && filter.late) ? html`aria-current="page"` : ''}>${name}</a>`,
    )}</div>
    <form class="filters" method="get" action="/ops/orders">
      <label>Status<select name="status">
        <option value="">any</option>
        ${TABS.slice(1).map(([name, status]) => html`<option value="${status}" ${filter.status === status ? 'selected' : ''}>${name}</option>`)}
      </select></label>
      ${
        operator
          ? html`<label>Label<select name="labelId"><option value="">every label</option>${labels.map(
              (l) =>
                html`<option value="${l.label_id}" ${filter.labelId === l.label_id ? 'selected' : ''}>${l.name}</option>`,
            )}</select></label>`
          : ''
      }
      <label>Order or item id starts with<input name="q" value="${filter.q ?? ''}" maxlength="128"></label>
      <label>Received since (UTC)<input name="since" value="${filter.since ?? ''}" placeholder="2026-11-01T00:00:00Z"></label>
      <label>until<input name="until" value="${filter.until ?? ''}" placeholder="2026-12-01T00:00:00Z"></label>
      <button type="submit">Filter</button>
    </form>
    ${
      rows.length === 0
        ? html`<p class="muted">No order matches.</p>`
        : html`<table class="orders">
      <thead><tr><th>Order</th>${operator ? html`<th>Label</th>` : ''}<th>Status</th><th>Stage</th><th>Items</th><th>Received <span class="muted">(UTC)</span></th><th>Ready</th><th>Last error</th></tr></thead>
      <tbody>${rows.map(
        (o) => html`<tr data-order="${o.orderId}">
        <td><a href="${orderPath(o.labelId, o.orderId)}">${o.orderId}</a>${temporal.uiUrl ? html` <span class="small">${workflowLink(temporal.uiUrl, temporal.namespace, o.workflowId, 'workflow ↗')}</span>` : ''}</td>
        ${operator ? html`<td>${o.labelName ?? o.labelId}</td>` : ''}
        <td class="nowrap">${statusBadge(o.status, o.overdue)}</td>
        <td class="nowrap">${o.status === 'cancelled' ? '' : html`${o.onHold ? html`<span class="badge failed">on hold</span> ` : ''}${o.stage ?? ''}${o.late ? html` <span class="error-text">late</span>` : ''}`}</td>
        <td class="nowrap">${itemsText(o)}</td>
        <td class="nowrap">${shortTime(o.receivedAt)} <span class="muted">· ${age(o.ageSeconds)} ago</span></td>
        <td class="nowrap">${shortTime(o.readyAt)}</td>
        <td class="error-text">${o.lastError ?? ''}</td>
      </tr>`,
      )}</tbody></table>`
    }
    ${next ? html`<p><a rel="next" href="${next}">Next page →</a></p>` : ''}`,
  );
}
