import type pg from 'pg';
import type { Approver, ApproverRole, OrderEvent } from '../src/domain/order/events.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';

/**
 * The approvals part of the orders read model: each item's proofs, its approvers'
 * decisions and where its approval stands, kept as one JSON value on the item's row
 * (`rm_order_items.approval`, NULL for an item that needs none). The orders projection
 * (orders.ts) calls `applyApprovals` for these events.
 */
export const APPROVAL_EVENTS = [
  'ApprovalRequired',
  'ProofMade',
  'ProofApproved',
  'ProofRejected',
  'ApprovalWaived',
  'ItemRevised',
  'OrderApproved',
  'ProofReminded',
  'ProofExpired',
] as const;

/**
 * SQL: an item's approval once it has a new print file (or a revision's) to come, as the
 * decider's proofDue has it: a waived or expired one stays as it is.
 */
export const PROOF_DUE_SQL = `CASE WHEN approval IS NULL OR approval->>'status' IN ('waived', 'expired') THEN approval
  ELSE approval || '{"status":"awaiting_proof"}'::jsonb - 'approvedSha256' - 'since' END`;

export interface ProofView {
  version: number;
  printFileSha256: string;
  pages: { page: number; storageKey: string; sha256: string; width: number; height: number }[];
  /** until when its approvers' links hold (as ProofMade recorded it) */
  linksExpireAt: string;
  madeAt: string;
}
export interface DecisionView {
  decision: 'approve' | 'reject' | 'waive';
  by: { role?: string; name?: string; via?: string; operator?: string };
  version: number;
  comment?: string;
  pins?: { page: number; xMm: number; yMm: number; text: string }[];
  at: string;
}
export interface ApprovalView {
  status: 'awaiting_proof' | 'awaiting_approval' | 'rejected' | 'approved' | 'waived' | 'expired';
  /** the approvers were reminded of the latest version */
  remindedAt?: string;
  approvers: Approver[];
  finalApprover?: ApproverRole;
  remindAfterHours: number;
  expireAfterHours?: number;
  /** the latest proof's version, and the print file approved (once it is) */
  version: number;
  approvedSha256?: string;
  /** since when it waits for the approvers */
  since?: string;
  approvedAt?: string;
  proofs: ProofView[];
  decisions: DecisionView[];
}

/**
 * An item's approval after one event of it. Pure: the decider's rules, as read back (a new
 * print file and a revision are PROOF_DUE_SQL, in the statements that record them).
 */
export function nextApproval(a: ApprovalView, e: OrderEvent): ApprovalView {
  switch (e.type) {
    case 'ProofReminded':
      return { ...a, remindedAt: e.data.remindedAt };
    case 'ProofExpired':
      return { ...a, status: 'expired' };
    case 'ProofMade': {
      const { orderItemId: _i, approvers: _a, ...proof } = e.data;
      return {
        ...a,
        status: 'awaiting_approval',
        version: proof.version,
        since: proof.madeAt,
        remindedAt: undefined,
        proofs: [...a.proofs, proof],
      };
    }
    case 'ProofApproved': {
      const d = e.data;
      const decisions = [
        ...a.decisions,
        { decision: 'approve' as const, by: d.by, version: d.version, at: d.approvedAt },
      ];
      const approvedNow = decisions.filter(
        (x) => x.decision === 'approve' && x.version === d.version,
      );
      const all = a.approvers.every((p) =>
        approvedNow.some((x) => x.by.role === p.role && x.by.name === p.name),
      );
      return all
        ? {
            ...a,
            decisions,
            status: 'approved',
            approvedSha256: d.printFileSha256,
            approvedAt: d.approvedAt,
          }
        : { ...a, decisions };
    }
    case 'ProofRejected': {
      const d = e.data;
      return {
        ...a,
        status: 'rejected',
        decisions: [
          ...a.decisions,
          {
            decision: 'reject',
            by: d.by,
            version: d.version,
            ...(d.comment ? { comment: d.comment } : {}),
            pins: d.pins,
            at: d.rejectedAt,
          },
        ],
      };
    }
    case 'ApprovalWaived':
      return {
        ...a,
        status: 'waived',
        approvedAt: e.data.waivedAt,
        decisions: [
          ...a.decisions,
          {
            decision: 'waive',
            by: { operator: e.data.by },
            version: a.version,
            comment: e.data.reason,
            at: e.data.waivedAt,
          },
        ],
      };
    default:
      return a;
  }
}

export async function applyApprovals(
  tx: pg.PoolClient,
  s: RecordedEvent,
  e: OrderEvent,
): Promise<void> {
  if (e.type === 'OrderApproved') {
    // the ship-by clock starts at the approval: the deadline moves on by the wait
    await tx.query(
      `UPDATE rm_orders SET ship_by = ship_by + ($2::timestamptz - received_at)
       WHERE stream_id = $1 AND ship_by IS NOT NULL`,
      [s.streamId, e.data.approvedAt],
    );
    return;
  }
  if (e.type === 'ItemRevised') {
    // rendered again: its new file and proof follow
    await tx.query(
      `UPDATE rm_order_items SET status = 'rendering', reason = NULL, failure_kind = NULL,
         approval = ${PROOF_DUE_SQL} WHERE order_item_id = $1`,
      [e.data.orderItemId],
    );
    return;
  }
  if (e.type === 'ApprovalRequired') {
    const { orderItemIds, requiredAt: _at, ...rules } = e.data;
    const approval: ApprovalView = {
      status: 'awaiting_proof',
      ...rules,
      version: 0,
      proofs: [],
      decisions: [],
    };
    await tx.query(
      'UPDATE rm_order_items SET approval = $2 WHERE order_item_id = ANY($1::uuid[])',
      [orderItemIds, JSON.stringify(approval)],
    );
    return;
  }
  if (!('orderItemId' in e.data)) return;
  const id = e.data.orderItemId;
  const r = await tx.query<{ approval: ApprovalView | null }>(
    'SELECT approval FROM rm_order_items WHERE order_item_id = $1',
    [id],
  );
  const current = r.rows[0]?.approval;
  if (!current) return;
  await tx.query('UPDATE rm_order_items SET approval = $2 WHERE order_item_id = $1', [
    id,
    JSON.stringify(nextApproval(current, e)),
  ]);
}

export interface AwaitingRow {
  order_item_id: string;
  label_id: string;
  order_id: string;
  item_id: string;
  status: ApprovalView['status'];
  version: number;
  since: Date | null;
}

/** Items waiting for a proof or its approvers, the longest waiting first (a label's, or all). */
export async function awaitingApproval(
  pool: pg.Pool,
  labelId: string | undefined,
  limit: number,
): Promise<AwaitingRow[]> {
  const r = await pool.query<AwaitingRow>(
    `SELECT i.order_item_id, i.label_id, i.order_id, i.item_id, i.approval->>'status' AS status,
       (i.approval->>'version')::int AS version, (i.approval->>'since')::timestamptz AS since
     FROM rm_order_items i JOIN rm_orders o ON o.stream_id = i.stream_id
     WHERE i.approval->>'status' IN ('awaiting_proof', 'awaiting_approval', 'rejected')
       AND o.status <> 'cancelled' AND ($1::uuid IS NULL OR i.label_id = $1)
     ORDER BY since NULLS LAST, i.order_item_id LIMIT $2`,
    [labelId ?? null, limit],
  );
  return r.rows;
}

/**
 * Orders with a proof waiting for its approvers: their reminders and expiries are due to be looked
 * at.
 */
export async function ordersAwaitingApproval(
  pool: pg.Pool,
  now: Date,
  limit: number,
): Promise<{ stream_id: string }[]> {
  const r = await pool.query<{ stream_id: string }>(
    `SELECT DISTINCT i.stream_id FROM rm_order_items i
     JOIN rm_orders o ON o.stream_id = i.stream_id
     WHERE i.approval->>'status' IN ('awaiting_approval', 'rejected') AND o.status <> 'cancelled'
       -- due: its reminder (not sent yet for this version), else its expiry (if any)
       AND (i.approval->>'since')::timestamptz + make_interval(secs => 3600 * CASE
           WHEN i.approval->>'status' = 'awaiting_approval' AND i.approval->>'remindedAt' IS NULL
             THEN LEAST((i.approval->>'remindAfterHours')::float,
               COALESCE((i.approval->>'expireAfterHours')::float, 'Infinity'))
           ELSE (i.approval->>'expireAfterHours')::float END) < $2
     LIMIT $1`,
    [limit, now],
  );
  return r.rows;
}
