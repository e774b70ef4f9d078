import type { ApprovalView, AwaitingRow } from '#projections/order-approvals';
import type { OpsSession } from '../../../../app/ops-sessions.ts';
import { age, html, shortTime } from './html.ts';
import { actionForm, type Notice, notice, type PageContext, page } from './layout.ts';
import { orderPath } from './orders.ts';

const STATUS_WORDS: Record<ApprovalView['status'], string> = {
  awaiting_proof: 'proof being made',
  awaiting_approval: 'awaiting approval',
  rejected: 'changes requested',
  approved: 'approved',
  waived: 'waived',
  expired: 'expired',
};
const badge = (s: ApprovalView['status']) =>
  html`<span class="badge ${s === 'approved' || s === 'waived' ? 'ready' : s === 'rejected' || s === 'expired' ? 'failed' : 'received'}" data-approval="${s}">${STATUS_WORDS[s]}</span>`;

/** "Awaiting approval": every item whose proof waits, with how long it has waited. */
export function approvalsPage(ctx: PageContext, rows: AwaitingRow[], query: Notice): string {
  const now = Date.now();
  return page(
    ctx,
    'Awaiting approval',
    html`<h1>Awaiting approval</h1>
    ${notice(query)}
    <p class="muted">Items that go to production only once their proofs are approved; they are not counted late meanwhile.</p>
    ${
      rows.length
        ? html`<table class="orders approvals"><thead><tr><th>Order</th><th>Item</th><th>Proof</th><th>Waiting</th></tr></thead>
      <tbody>${rows.map(
        (r) => html`<tr data-item="${r.order_item_id}">
          <td><a href="${orderPath(r.label_id, r.order_id)}">${r.order_id}</a></td>
          <td>${r.item_id}</td>
          <td>${r.version ? `version ${r.version} · ` : ''}${badge(r.status)}</td>
          <td>${r.since ? html`${age((now - r.since.getTime()) / 1000)} <span class="muted">since ${shortTime(r.since)}</span>` : html`<span class="muted">—</span>`}</td>
        </tr>`,
      )}</tbody></table>`
        : html`<p class="muted">No proof is waiting.</p>`
    }`,
  );
}

/**
 * An item's proofs on its order page: each version with its pages and decisions, and the waiver.
 */
export function approvalSection(
  session: OpsSession,
  base: string,
  orderId: string,
  a: ApprovalView,
  cancelled: boolean,
) {
  const open = ['awaiting_proof', 'awaiting_approval', 'rejected'].includes(a.status);
  return html`<div class="approval" data-approval-status="${a.status}">
    <h4>Approval ${badge(a.status)} <span class="muted">by ${a.approvers.map((p) => `${p.role}${p.name ? ` (${p.name})` : ''}`).join(', ')}${a.finalApprover ? `; the ${a.finalApprover} last` : ''}</span></h4>
    ${a.proofs
      .slice()
      .reverse()
      .map(
        (p) => html`<details ${p.version === a.version ? 'open' : ''} data-proof="${p.version}">
      <summary>Proof version ${p.version} · print file <code>${p.printFileSha256.slice(0, 12)}…</code> · ${shortTime(new Date(p.madeAt))}</summary>
      <div class="previews">${p.pages.map(
        (g) =>
          html`<img loading="lazy" alt="${`proof version ${p.version}, page ${g.page}`}" src="${`${base}/proofs/${p.version}/pages/${g.page}`}">`,
      )}</div>
      <ul>${a.decisions
        .filter((d) => d.version === p.version)
        .map(
          (d) =>
            html`<li>${shortTime(new Date(d.at))}: ${d.decision === 'waive' ? `waived by ${d.by.operator ?? 'the operator'}` : `${d.by.role}${d.by.name ? ` (${d.by.name})` : ''} ${d.decision === 'approve' ? 'approved' : 'requested changes'}${d.by.via === 'link' ? ' through the link' : ''}`}${d.comment ? html`: “${d.comment}”` : ''}${d.pins?.length ? html`<ul>${d.pins.map((pin) => html`<li>page ${pin.page}, ${pin.xMm} × ${pin.yMm} mm: ${pin.text}</li>`)}</ul>` : ''}</li>`,
        )}</ul>
    </details>`,
      )}
    ${
      open && !cancelled
        ? actionForm(
            session,
            `${base}/waive-approval`,
            'Waive approval',
            html`<input type="hidden" name="orderId" value="${orderId}">
      <input name="reason" aria-label="reason" placeholder="why (required)" required maxlength="500">`,
            { confirm: 'Send this item to production without its approvers?', danger: true },
          )
        : ''
    }
  </div>`;
}
