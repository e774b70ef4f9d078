import { orderItemMockups } from '#projections/mockups';
import { ordersAwaitingApproval } from '#projections/order-approvals';
import { findOrderItem } from '#projections/orders';
import { labelAggregate } from '../domain/label/decider.ts';
import { type ApprovalPolicy, labelStream } from '../domain/label/events.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import type { OrderItem, Pin } from '../domain/order/events.ts';
import type { ApprovalRules } from '../domain/order/state.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { orderItemMockupImage } from './mockups.ts';
import { sweepOrders } from './order-operations.ts';
import type { ProofLink } from './proof-links.ts';

/*
 * Proof approvals: the label's policy, which items of a sale wait for approval, and the
 * approvers' decisions and the operator's waiver on them.
 */

const labelNotFound = () => new DomainError('not_found', 'label not found', 'label_not_found');

/** The label's approval policy (mode none until one is set). */
export async function approvalPolicy(ctx: AppContext, labelId: string): Promise<ApprovalPolicy> {
  const label = await loadState(ctx.store, labelAggregate, labelStream(labelId));
  if (!label.exists) throw labelNotFound();
  return label.approval;
}

/** Sets the label's approval policy, all of it, for the sales that come from now on. */
export async function setApprovalPolicy(
  ctx: AppContext,
  labelId: string,
  input: ApprovalPolicy,
  metadata: EventMetadata,
): Promise<ApprovalPolicy> {
  if (input.mode !== 'none' && input.approvers.length === 0)
    throw new DomainError('invalid', 'name at least one approver', 'approvers_missing', {
      field: 'approvers',
    });
  if (input.mode === 'skus' && input.skus.length === 0)
    throw new DomainError('invalid', 'mode "skus" names at least one SKU', 'skus_missing', {
      field: 'skus',
    });
  if (input.finalApprover && !input.approvers.some((a) => a.role === input.finalApprover))
    throw new DomainError(
      'invalid',
      `the final approver (${input.finalApprover}) is not one of the approvers`,
      'final_approver_unknown',
      { field: 'finalApprover' },
    );
  if (input.expireAfterHours !== undefined && input.expireAfterHours <= input.remindAfterHours)
    throw new DomainError(
      'invalid',
      'a proof expires after its reminder: expireAfterHours must be more than remindAfterHours',
      'expiry_before_reminder',
      { field: 'expireAfterHours' },
    );
  // one key order, so the same policy set again is no change
  const policy: ApprovalPolicy = {
    mode: input.mode,
    skus: [...new Set(input.skus)],
    approvers: input.approvers.map((a) => ({
      role: a.role,
      ...(a.name ? { name: a.name } : {}),
      ...(a.email ? { email: a.email } : {}),
    })),
    ...(input.finalApprover ? { finalApprover: input.finalApprover } : {}),
    remindAfterHours: input.remindAfterHours,
    ...(input.expireAfterHours !== undefined ? { expireAfterHours: input.expireAfterHours } : {}),
  };
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetApprovalPolicy', policy, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw labelNotFound();
  return r.state.approval;
}

/**
 * Which items of a sale wait for approval, and by whom: the policy's (all items, or those
 * of its SKUs), unless the notification says otherwise for the whole order. A sale that
 * asks for approval under a label with no approvers has its shop approve.
 */
export function approvalRules(
  policy: ApprovalPolicy,
  items: OrderItem[],
  asked: { required: boolean } | undefined,
): ApprovalRules | undefined {
  const needs = (i: OrderItem) =>
    asked
      ? asked.required
      : policy.mode === 'all' || (policy.mode === 'skus' && policy.skus.includes(i.sku));
  const orderItemIds = items.filter(needs).map((i) => i.orderItemId);
  if (orderItemIds.length === 0) return undefined;
  const approvers =
    policy.approvers.length > 0
      ? policy.approvers.map((a) => ({ role: a.role, ...(a.name ? { name: a.name } : {}) }))
      : [{ role: 'shop' as const }];
  return {
    orderItemIds,
    approvers,
    finalApprover: policy.approvers.length > 0 ? policy.finalApprover : undefined,
    remindAfterHours: policy.remindAfterHours,
    expireAfterHours: policy.expireAfterHours,
  };
}

const itemNotFound = () =>
  new DomainError('not_found', 'order item not found', 'order_item_not_found');

/** An item of this label as the orders read model has it (its stream, SKU, approvers). */
export async function itemOfLabel(ctx: AppContext, labelId: string, orderItemId: string) {
  const row = await findOrderItem(ctx.pool, labelId, orderItemId);
  if (!row) throw itemNotFound();
  return row;
}

export interface Decision {
  decision: 'approve' | 'reject';
  comment?: string | undefined;
  pins?: Pin[] | undefined;
  /** the approver decided for: a role or a name of the list; the shop's when absent */
  onBehalfOf?: string | undefined;
}

/** The approver an API decision is for: the one named, else the shop. */
function approverIndex(approvers: { role: string; name?: string | undefined }[], who = 'shop') {
  const i = approvers.findIndex((a) => a.name === who);
  const at = i >= 0 ? i : approvers.findIndex((a) => a.role === who);
  if (at < 0)
    throw new DomainError(
      'invalid',
      `"${who}" is not an approver of this item (${approvers.map((a) => a.name ?? a.role).join(', ')}): name one in onBehalfOf`,
      'not_an_approver',
      { field: 'onBehalfOf' },
    );
  return at;
}

/** A decision on an item's latest proof through the API (the shop's key, or the admin's). */
export async function decideByApi(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  decision: Decision,
  metadata: EventMetadata,
) {
  // the approvers are set when the order comes in: the read model has them as recorded
  const row = await itemOfLabel(ctx, labelId, orderItemId);
  const approval = row.approval;
  if (!approval)
    throw new DomainError('conflict', 'this item needs no approval', 'approval_not_required');
  return decide(ctx, row.stream_id, orderItemId, {
    ...decision,
    approver: approverIndex(approval.approvers, decision.onBehalfOf),
    via: 'api',
    metadata,
  });
}

/** Records one approver's decision on an item's proof, and answers where the item stands. */
async function decide(
  ctx: AppContext,
  stream: string,
  orderItemId: string,
  d: Decision & {
    approver: number;
    via: 'link' | 'api';
    version?: number | undefined;
    metadata: EventMetadata;
  },
) {
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    stream,
    {
      type: 'DecideProof',
      orderItemId,
      decision: d.decision,
      approver: d.approver,
      via: d.via,
      version: d.version,
      comment: d.comment,
      pins: d.pins,
      at: new Date(),
    },
    d.metadata,
  );
  await ctx.readModels.seen('orders', r.appended?.position, r.events.at(-1)?.type);
  const item = r.state.exists ? r.state.items.get(orderItemId) : undefined;
  if (!item?.approval) throw itemNotFound();
  return {
    orderItemId,
    status: item.approval.status,
    version: item.approval.version,
    printFileSha256: item.approval.proofOf,
  };
}

/** The operator lets an item go to production without its approvers. */
export async function waiveApproval(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  reason: string,
  metadata: EventMetadata,
) {
  const { stream_id: stream } = await itemOfLabel(ctx, labelId, orderItemId);
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    stream,
    {
      type: 'WaiveApproval',
      orderItemId,
      by: metadata.actor ?? 'operator',
      reason,
      at: new Date(),
    },
    metadata,
  );
  await ctx.readModels.seen('orders', r.appended?.position, r.events.at(-1)?.type);
}

/** What an approver's link shows: the item, its proof of the link's version, the approver. */
export async function proofForLink(ctx: AppContext, link: ProofLink) {
  const row = await findOrderItem(ctx.pool, link.labelId, link.orderItemId);
  const approval = row?.approval;
  const approver = approval?.approvers[link.approver];
  const proof = approval?.proofs.find((p) => p.version === link.version);
  if (!row || !approval || !approver || !proof)
    throw new DomainError('not_found', 'no such proof', 'proof_not_found');
  // the item's mockups of this very print file (when the label has templates for it)
  const mockups = (await orderItemMockups(ctx.pool, link.labelId, [link.orderItemId])).filter(
    (m) => m.print_file_sha256 === proof.printFileSha256,
  );
  return {
    item: row,
    approval,
    approver,
    proof,
    mockups: mockups.map((m) => ({ sha256: m.sha256, width: m.width, height: m.height })),
    current: approval.version === link.version,
  };
}

/** A mockup of the print file a link's proof shows. */
export async function proofMockup(ctx: AppContext, link: ProofLink, sha256: string) {
  const { mockups } = await proofForLink(ctx, link);
  if (!mockups.some((m) => m.sha256 === sha256))
    throw new DomainError('not_found', 'no such mockup', 'mockup_not_found');
  return orderItemMockupImage(ctx, link.labelId, link.orderItemId, sha256);
}

/** A proof page's PNG, for a link's page or the label's admin. */
export async function proofPage(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  version: number,
  page: number,
): Promise<Buffer> {
  const row = await findOrderItem(ctx.pool, labelId, orderItemId);
  const stored = row?.approval?.proofs
    .find((p) => p.version === version)
    ?.pages.find((p) => p.page === page);
  const png = stored ? await ctx.storage.get(stored.storageKey) : undefined;
  if (!png) throw new DomainError('not_found', 'no such proof page', 'proof_not_found');
  return png;
}

/** A decision through an approver's link: for that approver, on that version only. */
export async function decideByLink(
  ctx: AppContext,
  link: ProofLink,
  decision: Omit<Decision, 'onBehalfOf'>,
) {
  const { stream_id: stream } = await itemOfLabel(ctx, link.labelId, link.orderItemId);
  return decide(ctx, stream, link.orderItemId, {
    ...decision,
    approver: link.approver,
    via: 'link',
    version: link.version,
    metadata: { actor: `approver:${link.approver}`, labelId: link.labelId },
  });
}

/**
 * Reminds the approvers of proofs past their reminder time and expires those past their
 * expiry (the deadline watch runs it). Each order's decider takes each once: a second
 * host, or a second round, finds nothing to do. Returns how many orders changed.
 */
export const watchApprovals = async (ctx: AppContext, now = new Date()): Promise<number> =>
  sweepOrders(ctx, await ordersAwaitingApproval(ctx.pool, now, 500), {
    type: 'WatchApprovals',
    at: now,
  });
