import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type ApprovalState,
  approvedForProduction,
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  type ItemState,
  itemOf,
  type OrderState,
  type Recorded,
  withItem,
} from './state.ts';

/*
 * Approvals: an item's proof drawn from its print file, each approver's decision, the
 * operator's waiver. An item that needs approval goes to production only with its latest
 * proof approved by every approver (the final one last), or waived.
 */

const noApproval = (item: ItemState) =>
  new DomainError(
    'conflict',
    `item ${item.item.itemId} needs no approval`,
    'approval_not_required',
  );

function approvalOf(state: OrderState, orderItemId: string) {
  const item = itemOf(state, orderItemId);
  if (!item.approval) throw noApproval(item);
  return { item, approval: item.approval };
}

export function recordProof(
  command: Command<'RecordProof'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const { item, approval } = approvalOf(state, command.orderItemId);
  if (!state.exists || state.status === 'cancelled') return [];
  // drawn from a file made over since: that file's own proof comes
  if (item.files.at(-1)?.sha256 !== command.printFileSha256) return [];
  // drawn already (a reaction run twice), or let go without one
  if (approval.status !== 'awaiting_proof') return [];
  return [
    {
      type: 'ProofMade',
      data: {
        orderItemId: command.orderItemId,
        version: approval.version + 1,
        printFileSha256: command.printFileSha256,
        pages: command.pages,
        approvers: approval.approvers,
        linksExpireAt: linksExpireAt(at, approval.expireAfterHours),
        madeAt: at,
      },
    },
  ];
}

/** How long a proof's links hold when the policy sets no expiry. */
const LINK_DAYS = 30;
const linksExpireAt = (madeAt: string, expireAfterHours: number | undefined) =>
  new Date(Date.parse(madeAt) + (expireAfterHours ?? LINK_DAYS * 24) * 3_600_000).toISOString();

/** Whose turn it is not: the final approver decides after every other approver approved. */
function finalTooSoon(approval: ApprovalState, approver: number): boolean {
  const final = approval.finalApprover;
  if (!final || approval.approvers[approver]?.role !== final) return false;
  return approval.approvers.some((a, i) => a.role !== final && !approval.approvedBy.includes(i));
}

export function decideProof(
  command: Command<'DecideProof'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const { item, approval } = approvalOf(state, command.orderItemId);
  if (state.exists && state.status === 'cancelled') throw cancelled();
  const approver = approval.approvers[command.approver];
  if (!approver)
    throw new DomainError('invalid', 'no such approver for this item', 'not_an_approver');
  const stale = command.version !== undefined && command.version !== approval.version;
  if (approval.status === 'expired')
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId}'s proof expired unapproved`,
      'proof_expired',
    );
  if (approval.status === 'approved' || approval.status === 'waived') {
    // the same approval again (a double click, a race) is no news
    if (command.decision === 'approve' && !stale) return [];
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId}'s proof is ${approval.status} already`,
      'proof_decided',
    );
  }
  if (approval.status === 'awaiting_proof' || !approval.proofOf)
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId}'s proof is still being made`,
      'proof_not_ready',
    );
  if (stale)
    throw new DomainError(
      'conflict',
      `proof version ${command.version} was replaced by version ${approval.version}`,
      'proof_superseded',
    );
  if (approval.status === 'rejected')
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId}'s proof version ${approval.version} was sent back for changes: a revision comes first`,
      'proof_rejected',
    );
  const by = {
    role: approver.role,
    ...(approver.name ? { name: approver.name } : {}),
    via: command.via,
  };
  const base = {
    orderItemId: command.orderItemId,
    by,
    version: approval.version,
    printFileSha256: approval.proofOf,
  };
  if (command.decision === 'reject')
    return [
      {
        type: 'ProofRejected',
        data: {
          ...base,
          ...(command.comment ? { comment: command.comment } : {}),
          pins: command.pins ?? [],
          rejectedAt: at,
        },
      },
    ];
  if (approval.approvedBy.includes(command.approver)) return [];
  if (finalTooSoon(approval, command.approver))
    throw new DomainError(
      'conflict',
      `the final approver (${approval.finalApprover}) approves after every other approver`,
      'final_approver_last',
    );
  return withOrderApproved(
    state,
    [{ type: 'ProofApproved', data: { ...base, approvedAt: at } }],
    at,
  );
}

/** The events, and OrderApproved after them when they let the order's last waiting item go. */
function withOrderApproved(state: OrderState, events: OrderEvent[], at: string): OrderEvent[] {
  if (!state.exists || allLetGo(state)) return events;
  let next: OrderState = state;
  for (const e of events) {
    const now = next;
    if (!now.exists) break;
    if (e.type === 'ProofApproved') next = onProofApproved(now, e);
    else if (e.type === 'ApprovalWaived') next = onApprovalWaived(now, e);
  }
  return next.exists && allLetGo(next)
    ? [...events, { type: 'OrderApproved', data: { approvedAt: at } }]
    : events;
}

/**
 * Every item of the order may go to production, as far as approvals go (expired ones never will).
 */
const allLetGo = (state: Recorded) =>
  [...state.items.values()].every(
    (i) => approvedForProduction(i) || i.approval?.status === 'expired',
  ) && [...state.items.values()].some((i) => i.approval && approvedForProduction(i));

export function waiveApproval(
  command: Command<'WaiveApproval'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const { approval } = approvalOf(state, command.orderItemId);
  if (state.exists && state.status === 'cancelled') throw cancelled();
  if (approval.status === 'approved' || approval.status === 'waived') return [];
  if (approval.status === 'expired')
    throw new DomainError('conflict', 'the proof expired: revise the item first', 'proof_expired');
  return withOrderApproved(
    state,
    [
      {
        type: 'ApprovalWaived',
        data: {
          orderItemId: command.orderItemId,
          by: command.by,
          reason: command.reason,
          waivedAt: at,
        },
      },
    ],
    at,
  );
}

const hoursAfter = (since: string, hours: number) => Date.parse(since) + hours * 3_600_000;

/**
 * Reminds the approvers of each proof that has waited past its reminder time (once a
 * version), and expires each that waited past its expiry; an order whose every item
 * expired is cancelled with that reason.
 */
export function watchApprovals(
  command: Command<'WatchApprovals'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists || state.status === 'cancelled') return [];
  const now = command.at.getTime();
  const events: OrderEvent[] = [];
  let expired = 0;
  for (const i of state.items.values()) {
    const a = i.approval;
    if (a?.status === 'expired') expired++;
    if (!a?.since || (a.status !== 'awaiting_approval' && a.status !== 'rejected')) continue;
    const orderItemId = i.item.orderItemId;
    if (a.expireAfterHours !== undefined && hoursAfter(a.since, a.expireAfterHours) <= now) {
      events.push({
        type: 'ProofExpired',
        data: { orderItemId, version: a.version, expiredAt: at },
      });
      expired++;
    } else if (
      !a.reminded &&
      a.status === 'awaiting_approval' &&
      hoursAfter(a.since, a.remindAfterHours) <= now
    )
      events.push({
        type: 'ProofReminded',
        data: {
          orderItemId,
          version: a.version,
          pending: a.approvers
            .map((p, approver) => ({ ...p, approver }))
            .filter((p) => !a.approvedBy.includes(p.approver)),
          linksExpireAt: linksExpireAt(a.since, a.expireAfterHours),
          remindedAt: at,
        },
      });
  }
  if (expired > 0 && expired === state.items.size)
    events.push({
      type: 'OrderCancelled',
      data: { reason: 'its proofs were not approved in time', cancelledAt: at },
    });
  return events;
}

/** The order with one item's approval changed. */
const withApproval = (state: Recorded, id: string, change: (a: ApprovalState) => ApprovalState) =>
  withItem(state, id, (i) => (i.approval ? { ...i, approval: change(i.approval) } : i));

export function onApprovalRequired(state: Recorded, event: Event<'ApprovalRequired'>): OrderState {
  const { approvers, finalApprover, remindAfterHours, expireAfterHours } = event.data;
  let next: OrderState = state;
  for (const id of event.data.orderItemIds)
    next = withItem(next as Recorded, id, (i) => ({
      ...i,
      approval: {
        approvers,
        finalApprover,
        status: 'awaiting_proof',
        version: 0,
        proofOf: undefined,
        approvedBy: [],
        since: undefined,
        remindAfterHours,
        expireAfterHours,
        reminded: false,
      },
    }));
  return next;
}

export function onProofMade(state: Recorded, event: Event<'ProofMade'>): OrderState {
  return withApproval(state, event.data.orderItemId, (a) => ({
    ...a,
    status: 'awaiting_approval',
    reminded: false,
    version: event.data.version,
    proofOf: event.data.printFileSha256,
    approvedBy: [],
    since: event.data.madeAt,
  }));
}

export function onProofApproved(state: Recorded, event: Event<'ProofApproved'>): OrderState {
  const { role, name } = event.data.by;
  return withApproval(state, event.data.orderItemId, (a) => {
    const who = a.approvers.findIndex(
      (x, i) => x.role === role && x.name === name && !a.approvedBy.includes(i),
    );
    if (who < 0) return a;
    const approvedBy = [...a.approvedBy, who];
    const all = a.approvers.every((_, i) => approvedBy.includes(i));
    return { ...a, approvedBy, status: all ? 'approved' : a.status };
  });
}

export function onProofRejected(state: Recorded, event: Event<'ProofRejected'>): OrderState {
  return withApproval(state, event.data.orderItemId, (a) => ({
    ...a,
    status: 'rejected',
  }));
}

export function onApprovalWaived(state: Recorded, event: Event<'ApprovalWaived'>): OrderState {
  return withApproval(state, event.data.orderItemId, (a) => ({
    ...a,
    status: 'waived',
  }));
}

export function onOrderApproved(state: Recorded, event: Event<'OrderApproved'>): OrderState {
  return { ...state, approvedAt: event.data.approvedAt };
}

export function onProofReminded(state: Recorded, event: Event<'ProofReminded'>): OrderState {
  return withApproval(state, event.data.orderItemId, (a) => ({ ...a, reminded: true }));
}

export function onProofExpired(state: Recorded, event: Event<'ProofExpired'>): OrderState {
  return withApproval(state, event.data.orderItemId, (a) => ({ ...a, status: 'expired' }));
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  RecordProof: recordProof,
  DecideProof: decideProof,
  WaiveApproval: waiveApproval,
  WatchApprovals: watchApprovals,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  ApprovalRequired: onApprovalRequired,
  ProofMade: onProofMade,
  ProofApproved: onProofApproved,
  ProofRejected: onProofRejected,
  ApprovalWaived: onApprovalWaived,
  OrderApproved: onOrderApproved,
  ProofReminded: onProofReminded,
  ProofExpired: onProofExpired,
} satisfies EvolveHandlers;
