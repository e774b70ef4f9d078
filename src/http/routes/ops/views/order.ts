import type { OrderItemRow, OrderRow } from '#projections/orders';
import type { OpsSession } from '../../../../app/ops-sessions.ts';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import { age, href, html, time } from './html.ts';
import { actionForm, type Notice, notice, type PageContext, page, statusBadge } from './layout.ts';
import { orderPath, workflowLink } from './orders.ts';

/** What an event says, in a line: its facts, without designs or personal data. */
function summary(e: RecordedEvent): string {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'OrderReceived':
      return `${(d.items as unknown[]).length} item(s) through the ${String((d.source as { channel?: string } | undefined)?.channel ?? 'shop')} API, due by ${time(String(d.renderDueAt ?? ''))}`;
    case 'PrintFileGenerated':
      return `item ${String(d.orderItemId)}: ${String(d.pages)} page(s), ${String(d.bytes)} bytes, sha256 ${String(d.sha256).slice(0, 16)}…`;
    case 'OrderItemFailed':
      return `item ${String(d.orderItemId)}: ${String(d.kind ?? '')} ${String(d.reason)}`;
    default: {
      const text = JSON.stringify(d);
      return text.length > 300 ? `${text.slice(0, 300)}…` : text;
    }
  }
}

const BARCODE_FORMATS = ['code128', 'ean13', 'qrcode', 'datamatrix'];

function itemSection(session: OpsSession, labelId: string, orderId: string, i: OrderItemRow) {
  const file = i.print_files.at(-1);
  const base = `/ops/labels/${labelId}/items/${i.order_item_id}`;
  return html`<section class="item" data-item="${i.order_item_id}">
    <h3>${i.item_id} ${statusBadge(i.status)} <span class="muted">${i.sku} × ${i.quantity}</span></h3>
    <p class="muted">order item ${i.order_item_id}${i.barcode ? html` · barcode ${i.barcode.format} ${i.barcode.value}` : ''}</p>
    ${i.reason ? html`<p class="error-text">${i.failure_kind ? html`<strong>${i.failure_kind}</strong>: ` : ''}${i.reason}</p>` : ''}
    ${i.warnings.length ? html`<ul class="warn-text">${i.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
    ${
      file
        ? html`<div class="previews">${Array.from(
            { length: file.pages },
            (_, p) =>
              html`<a href="${`${base}/printfile/${file.sha256}`}"><img loading="lazy" alt="${`page ${p + 1} of the print file of ${i.item_id}`}" src="${`${base}/preview/${file.sha256}/${p + 1}`}"></a>`,
          )}</div>
          <p><a href="${`${base}/printfile/${file.sha256}`}">Print file (PDF)</a> · sha256 <code>${file.sha256}</code> · ${file.pages} page(s), ${file.bytes} bytes${i.print_files.length > 1 ? html` · ${i.print_files.length - 1} earlier` : ''}</p>`
        : html`<p class="muted">No print file yet.</p>`
    }
    ${
      i.preflight
        ? html`<details class="preflight" ${i.preflight.passed ? '' : 'open'}>
        <summary>Preflight ${i.preflight.passed ? html`<span class="badge ready">passed</span>` : html`<span class="badge failed">failed</span>`} · plates: ${i.preflight.plates.join(', ')} · coverage ${i.preflight.maxInkCoverage}%</summary>
        <table><tbody>${i.preflight.rules.map(
          (r) =>
            html`<tr data-rule="${r.rule}"><td>${r.rule}</td><td><span class="badge ${r.result === 'pass' ? 'ready' : r.result === 'failure' ? 'failed' : 'received'}">${r.result}</span></td><td>${r.detail}</td></tr>`,
        )}</tbody></table>
      </details>`
        : ''
    }
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
  order: OrderRow & { items: OrderItemRow[] },
  labelName: string,
  events: RecordedEvent[],
  temporal: { uiUrl: string | undefined; namespace: string; workflowId: string },
  query: Notice,
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
    </dl>
    <h2>Actions</h2>
    <div>
      ${order.status === 'failed' ? actionForm(session, `${path}/retry`, 'Retry failed items') : ''}
      ${rendered ? actionForm(session, `${path}/replay`, 'Replay and compare') : ''}
      ${
        order.status !== 'cancelled'
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
    <div class="items">${order.items.map((i) => itemSection(session, order.label_id, order.order_id, i))}</div>
    <h2>History</h2>
    <ol class="timeline">${events.map(
      (e) => html`<li data-event="${e.type}"><span class="type">${e.type}</span>
        <span class="meta">${time(e.recordedAt)} · ${e.metadata.actor ?? 'unknown'} · revision ${String(e.revision)}</span>
        <div>${summary(e)}</div></li>`,
    )}</ol>`,
  );
}
