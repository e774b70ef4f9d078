import type { BoardColumn } from '#projections/order-production';
import type { OrderRowAnswer } from '../../../schemas/order-list.ts';
import { age, href, html, shortTime } from './html.ts';
import { type Notice, notice, type PageContext, page } from './layout.ts';
import { orderPath } from './orders.ts';

const COLUMN_NAMES: Record<string, string> = {
  ready: 'To print',
  batched: 'Batched',
  printed: 'Printed',
  packed: 'Packed',
  reprinting: 'Reprinting',
  returned: 'Returned',
  shipped: 'Shipped',
};

/**
 * The shop floor at a glance: late orders first, then items per stage and the longest waiting in
 * each.
 */
export function productionPage(
  ctx: PageContext,
  board: BoardColumn[],
  late: OrderRowAnswer[],
  query: Notice,
  facilities: {
    all: { id: string; name: string; paused: boolean }[];
    shown: string | undefined;
  } = {
    all: [],
    shown: undefined,
  },
): string {
  const now = Date.now();
  const shown = facilities.all.find((f) => f.id === facilities.shown);
  return page(
    ctx,
    'Production',
    html`<h1>Production${shown ? html` at ${shown.name}` : ''}</h1>
    ${notice(query)}
    ${
      facilities.all.length
        ? html`<p class="facilities">Facility: ${shown ? html`<a href="/ops/production">all</a>` : html`<strong>all</strong>`}${facilities.all.map(
            (f) =>
              html` · ${f.id === facilities.shown ? html`<strong>${f.name}</strong>` : html`<a href="${href('/ops/production', { facility: f.id })}" data-facility="${f.id}">${f.name}</a>`}${f.paused ? html` <span class="badge failed">paused</span>` : ''}`,
          )}</p>`
        : ''
    }
    <h2>Late orders <span class="muted">(not shipped by their ship-by time)</span></h2>
    ${
      late.length
        ? html`<table class="orders late">
      <thead><tr><th>Order</th><th>Stage</th><th>Ship by <span class="muted">(UTC)</span></th><th>Received</th></tr></thead>
      <tbody>${late.map(
        (o) => html`<tr data-order="${o.orderId}">
          <td><a href="${orderPath(o.labelId, o.orderId)}">${o.orderId}</a></td>
          <td>${o.onHold ? html`<span class="badge failed">on hold</span> ` : ''}${o.stage ?? 'rendering'}</td>
          <td class="error-text">${shortTime(o.shipBy)}</td>
          <td>${shortTime(o.receivedAt)} <span class="muted">· ${age(o.ageSeconds)} ago</span></td>
        </tr>`,
      )}</tbody></table>
      <p><a href="${href('/ops/orders', { late: 'true' })}">Every late order →</a></p>`
        : html`<p class="muted">No order is late.</p>`
    }
    <h2>Board</h2>
    <div class="board">${board.map(
      (c) => html`<section class="column" data-stage="${c.stage}">
        <h3>${COLUMN_NAMES[c.stage] ?? c.stage} <span class="n">${c.items}</span></h3>
        ${
          c.oldest
            ? html`<p class="small">longest here: <a href="${orderPath(c.oldest.labelId, c.oldest.orderId)}">${c.oldest.orderId}</a> item ${c.oldest.itemId}, ${age((now - c.oldest.since.getTime()) / 1000)}</p>`
            : html`<p class="small muted">none</p>`
        }
        ${c.stage === 'batched' ? '' : html`<p class="small"><a href="${href('/ops/orders', { stage: c.stage })}">orders →</a></p>`}
      </section>`,
    )}</div>`,
  );
}
