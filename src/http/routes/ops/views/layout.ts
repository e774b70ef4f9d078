import type { OpsSession } from '../../../../app/ops-sessions.ts';
import { type Html, html } from './html.ts';

export interface PageContext {
  session: OpsSession;
  /** the label admin's label name; the operator sees every label */
  viewerName: string;
  /** where this page lives, for the navigation */
  section:
    | 'overview'
    | 'orders'
    | 'production'
    | 'approvals'
    | 'batches'
    | 'projections'
    | 'sessions';
}

const nav = (ctx: PageContext) => {
  const item = (section: PageContext['section'], path: string, label: string) =>
    html`<a href="${path}" ${ctx.section === section ? html`aria-current="page"` : ''}>${label}</a>`;
  return html`<nav>
    <strong class="brand">Fulfillment operations</strong>
    ${item('overview', '/ops', 'Overview')} ${item('orders', '/ops/orders', 'Orders')}
    ${item('production', '/ops/production', 'Production')}
    ${item('approvals', '/ops/approvals', 'Awaiting approval')}
    ${item('batches', '/ops/batches', 'Press runs')}
    ${ctx.session.viewer.kind === 'operator' ? item('projections', '/ops/projections', 'Projections') : ''}
    ${item('sessions', '/ops/sessions', 'Sessions')}
    <span class="who">${ctx.viewerName}</span>
    <form method="post" action="/ops/logout" class="inline">
      <input type="hidden" name="_csrf" value="${ctx.session.csrf}">
      <button type="submit" class="link">Log out</button>
    </form>
  </nav>`;
};

/**
 * A whole page. `main` is what the page refreshes in place (ops.js fetches the page again
 * and swaps it); without JavaScript the page is read as it is, and reloaded by hand.
 */
export function page(ctx: PageContext | undefined, title: string, main: Html, refresh = true) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Fulfillment operations</title>
<link rel="stylesheet" href="/ops/assets/ops.css">
<script src="/ops/assets/ops.js" defer></script>
</head>
<body>
${ctx ? nav(ctx) : ''}
<main id="content" ${refresh ? html`data-refresh="5000"` : ''}>
${main}
<p class="stamp">As of ${new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(
      /\.\d+Z$/,
      ' UTC',
    )}${refresh ? html` · <span class="live">refreshes by itself</span>` : ''}</p>
</main>
</body>
</html>`.value;
}

export interface Notice {
  done?: string | undefined;
  error?: string | undefined;
}

/** A notice above a page's content: what an action did, or why it could not. */
export function notice(query: Notice) {
  if (query.error) return html`<p class="notice error" role="alert">${query.error}</p>`;
  if (query.done) return html`<p class="notice" role="status">${query.done}</p>`;
  return '';
}

/** A form that posts an action with the session's CSRF token. */
export function actionForm(
  session: OpsSession,
  action: string,
  label: string,
  fields: Html | string = '',
  options: { confirm?: string; danger?: boolean } = {},
) {
  return html`<form method="post" action="${action}" class="action" ${options.confirm ? html`data-confirm="${options.confirm}"` : ''}>
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${fields}
    <button type="submit" ${options.danger ? html`class="danger"` : ''}>${label}</button>
  </form>`;
}

export const statusBadge = (status: string, overdue = false) =>
  html`<span class="badge ${status}">${status}</span>${overdue ? html` <span class="badge overdue">overdue</span>` : ''}`;
