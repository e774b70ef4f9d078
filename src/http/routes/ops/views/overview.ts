import { ORDER_STATUSES } from '#projections/orders';
import type { Overview } from '../../../../app/operations.ts';
import { age, href, html } from './html.ts';
import { type Notice, notice, type PageContext, page } from './layout.ts';

const card = (n: number | string, label: string, link?: string, alert = false) =>
  html`<div class="card ${alert ? 'alert' : ''}"><div class="n">${link ? html`<a href="${link}">${n}</a>` : n}</div><div class="l">${label}</div></div>`;

/** Counts per status and label, what is late or stuck, and whether the machinery runs. */
export function overviewPage(ctx: PageContext, o: Overview, query: Notice): string {
  const lag = Math.max(0, ...o.subscriptions.map((s) => s.lagSeconds));
  const parked = o.subscriptions.reduce((n, s) => n + s.parked, 0);
  const failing = o.subscriptions.filter((s) => s.failing);
  const oldest = o.oldestUnfinished ? (Date.now() - o.oldestUnfinished.getTime()) / 1000 : 0;
  const pollers = typeof o.pollers === 'string' ? undefined : o.pollers;
  const operator = ctx.session.viewer.kind === 'operator';
  const list = (query: Record<string, string>) => href('/ops/orders', query);
  const lateTotal = o.late.reduce((n, r) => n + r.count, 0);
  const names = new Map(o.labels.map((l) => [l.labelId, l.name]));
  return page(
    ctx,
    'Overview',
    html`<h1>Overview</h1>
    ${notice(query)}
    <div class="cards">
      ${card(o.totals.total, 'orders', '/ops/orders')}
      ${card(o.totals.received + o.totals.rendering, 'in progress')}
      ${card(o.totals.failed, 'failed', list({ status: 'failed' }), o.totals.failed > 0)}
      ${card(o.totals.overdue, 'overdue', list({ status: 'overdue' }), o.totals.overdue > 0)}
      ${card(lateTotal, 'late to ship', list({ late: 'true' }), lateTotal > 0)}
      ${card(o.oldestUnfinished ? age(oldest) : '–', 'oldest unfinished')}
      ${card(`${Math.round(lag)} s`, 'projection lag', operator ? '/ops/projections' : undefined, lag > 60)}
      ${card(parked, 'parked events', operator ? '/ops/projections' : undefined, parked > 0)}
      ${card(
        o.webhooks.filter((w) => w.failing_since || w.state === 'disabled').length,
        'webhooks failing',
        undefined,
        o.webhooks.some((w) => w.failing_since || w.state === 'disabled'),
      )}
      ${operator ? card(o.audit.count, 'events changed since recorded', undefined, o.audit.count > 0) : ''}
      ${card(pollers ? pollers.length : '?', pollers ? 'workers polling' : `workers: ${o.pollers}`, undefined, !pollers || pollers.length === 0)}
    </div>
    ${
      // which event changed names its stream (and so its label): the operator's to see
      operator && o.audit.first
        ? html`<p class="notice error" data-audit-mismatch="${o.audit.first.eventId}"><strong>The log was changed after it was recorded:</strong> ${o.audit.first.detail}${o.audit.count > 1 ? html` (and ${o.audit.count - 1} more)` : ''}. The service goes on serving; the signed tree heads and every bundle given out before stay evidence of what was recorded.</p>`
        : ''
    }
    ${failing.length ? html`<p class="notice error">Not advancing: ${failing.map((s) => html`<strong>${s.name}</strong> (${s.failing?.error}) `)}</p>` : ''}
    <h2>Orders by label and status</h2>
    <table>
      <thead><tr><th>Label</th>${ORDER_STATUSES.map((s) => html`<th class="num">${s}</th>`)}<th class="num">overdue</th><th class="num">total</th></tr></thead>
      <tbody>
      ${o.labels.map(
        (l) => html`<tr>
          <td><a href="${list(operator ? { labelId: l.labelId } : {})}">${l.name}</a></td>
          ${ORDER_STATUSES.map((s) => html`<td class="num">${l.counts[s] ? html`<a href="${list({ ...(operator ? { labelId: l.labelId } : {}), status: s })}">${l.counts[s]}</a>` : 0}</td>`)}
          <td class="num">${l.counts.overdue ? html`<a class="error-text" href="${list({ ...(operator ? { labelId: l.labelId } : {}), status: 'overdue' })}">${l.counts.overdue}</a>` : 0}</td>
          <td class="num">${l.counts.total}</td>
        </tr>`,
      )}
      </tbody>
    </table>
    <h2>Late to ship, by label and stage</h2>
    ${
      o.late.length
        ? html`<table class="late-counts">
      <thead><tr><th>Label</th><th>Stage</th><th class="num">late orders</th></tr></thead>
      <tbody>${o.late.map(
        (r) => html`<tr data-label="${r.labelId}" data-stage="${r.stage}">
          <td>${names.get(r.labelId) ?? r.labelId}</td><td>${r.stage.replaceAll('_', ' ')}</td>
          <td class="num"><a class="error-text" href="${list({ ...(operator ? { labelId: r.labelId } : {}), late: 'true' })}">${r.count}</a></td>
        </tr>`,
      )}</tbody></table>`
        : html`<p class="muted">No order is late to ship.</p>`
    }
    <h2>Webhook endpoints</h2>
    ${
      o.webhooks.length
        ? html`<table>
      <thead><tr><th>Label</th><th>Integration</th><th>URL</th><th>State</th><th>Last success</th><th>Failing since</th><th class="num">retrying</th><th class="num">failed</th></tr></thead>
      <tbody>
      ${o.webhooks.map(
        (w) => html`<tr>
          <td>${w.label_name}</td><td>${w.integration_name}</td><td>${w.url ?? ''}</td>
          <td class="${w.state === 'disabled' ? 'error-text' : ''}">${w.state ?? ''}${w.disabled_reason ? html` <span class="muted">(${w.disabled_reason})</span>` : ''}</td>
          <td>${w.last_success_at ? `${age((Date.now() - Date.parse(w.last_success_at)) / 1000)} ago` : '–'}</td>
          <td class="${w.failing_since ? 'error-text' : ''}">${w.failing_since ? `${age((Date.now() - Date.parse(w.failing_since)) / 1000)} ago` : '–'}</td>
          <td class="num">${w.retrying}</td><td class="num ${w.failed ? 'error-text' : ''}">${w.failed}</td>
        </tr>`,
      )}
      </tbody>
    </table>`
        : html`<p class="muted">No shop has a webhook.</p>`
    }
    ${pollers?.length ? html`<h2>Workers polling the task queue</h2><ul>${pollers.map((p) => html`<li>${p.identity} <span class="muted">last seen ${age((Date.now() - p.lastSeen.getTime()) / 1000)} ago</span></li>`)}</ul>` : ''}`,
  );
}
