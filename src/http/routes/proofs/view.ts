import type { ApprovalView, ProofView } from '#projections/order-approvals';
import type { OrderItemRow } from '#projections/orders';
import type { Approver } from '../../../domain/order/approval-events.ts';
import { type Html, html } from '../ops/views/html.ts';

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 960px; padding: 1rem; color: #1b1b1b; }
.pages img { display: block; max-width: 100%; height: auto; border: 1px solid #ccc; margin: 0 0 1rem; }
.status { padding: .5rem 1rem; background: #f1f1f1; border-left: 4px solid #777; }
.status.ok { border-color: #2a7d2a; } .status.no { border-color: #b3261e; }
form { margin: 1rem 0; padding: 1rem; border: 1px solid #ddd; }
textarea { width: 100%; min-height: 4rem; }
button { font-size: 1rem; padding: .4rem 1rem; }
code { word-break: break-all; }
`;

interface Shown {
  item: OrderItemRow;
  approval: ApprovalView;
  approver: Approver;
  proof: ProofView;
  mockups: { sha256: string; width: number; height: number }[];
  current: boolean;
  token: string;
  csrf: string;
  notice: 'approve' | 'reject' | undefined;
}

const STATUS: Record<ApprovalView['status'], string> = {
  awaiting_proof: 'A new proof is being made.',
  awaiting_approval: 'Waiting for approval.',
  rejected: 'Changes were requested; a new proof will follow.',
  approved: 'Approved: this is what will be printed.',
  waived: 'Released to production by the print shop.',
  expired: 'This proof expired without approval; ask the shop for a new one.',
};

/** An approver's page: every proof page, the facts approved, and the two forms (no script). */
export function proofPageView(s: Shown): Html {
  const who = `${s.approver.role}${s.approver.name ? ` (${s.approver.name})` : ''}`;
  const decided = s.approval.decisions.some(
    (d) =>
      d.version === s.proof.version &&
      d.decision === 'approve' &&
      d.by.role === s.approver.role &&
      d.by.name === s.approver.name,
  );
  const open = s.current && s.approval.status === 'awaiting_approval' && !decided;
  const base = `/proofs/${s.token}`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>Proof ${s.proof.version} of ${s.item.item_id}</title><style>${STYLE}</style></head>
<body>
<h1>Proof version ${s.proof.version}: ${s.item.item_id}</h1>
<p>${s.item.sku} × ${s.item.quantity} · for the ${who}</p>
<p class="status ${s.approval.status === 'approved' ? 'ok' : s.approval.status === 'rejected' ? 'no' : ''}" data-status="${s.current ? s.approval.status : 'superseded'}">${
    s.notice === 'approve'
      ? 'Thank you: your approval is recorded. '
      : s.notice === 'reject'
        ? 'Thank you: your request for changes is recorded. '
        : ''
  }${s.current ? STATUS[s.approval.status] : `This proof was replaced by version ${s.approval.version}.`}</p>
<p>Print file sha256 <code data-sha256="${s.proof.printFileSha256}">${s.proof.printFileSha256}</code>: what you approve is this file, byte for byte.
Solid line: trim (where it is cut); dashed: bleed; dotted: the safe area.</p>
<div class="pages">${s.proof.pages.map(
    (p) =>
      html`<img src="${base}/pages/${p.page}" width="${p.width}" height="${p.height}" alt="proof page ${p.page}" data-page="${p.page}">`,
  )}</div>
${
  s.mockups.length
    ? html`<h2>On the product</h2><div class="pages mockups">${s.mockups.map(
        (m) =>
          html`<img src="${base}/mockups/${m.sha256}" width="${m.width}" height="${m.height}" alt="mockup of the item" data-mockup="${m.sha256}">`,
      )}</div>`
    : ''
}
${
  open
    ? html`<form method="post" action="${base}" id="approve">
<input type="hidden" name="_csrf" value="${s.csrf}"><input type="hidden" name="decision" value="approve">
<p>I approve this proof for printing.</p><button type="submit">Approve</button></form>
<form method="post" action="${base}" id="reject">
<input type="hidden" name="_csrf" value="${s.csrf}"><input type="hidden" name="decision" value="reject">
<label>What should change?<br><textarea name="comment" maxlength="2000"></textarea></label>
<label>Pins, one a line: page; x mm; y mm (from the top left); note<br><textarea name="pins" placeholder="1; 20; 12; Jonh → John"></textarea></label>
<button type="submit">Request changes</button></form>`
    : ''
}
</body></html>`;
}
