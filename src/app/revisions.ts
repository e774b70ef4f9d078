import { orderAggregate } from '../domain/order/decider.ts';
import { projectAggregate } from '../domain/project/decider.ts';
import { projectStream } from '../domain/project/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { itemOfLabel } from './approvals.ts';
import { handleCommand, readState } from './command-handler.ts';
import type { AppContext } from './context.ts';

/**
 * An order item takes its project's current design (POST /api/orderitems/{id}/revisions):
 * by the label's shop or admin, or by the project's owner in the editor. The item is
 * rendered again, and proofed and approved again where it needs approval.
 */
export async function reviseItem(
  ctx: AppContext,
  by: { labelId: string; userRef?: string | undefined },
  orderItemId: string,
  projectId: string,
  metadata: EventMetadata,
) {
  const item = await itemOfLabel(ctx, by.labelId, orderItemId);
  const project = await readState(ctx.store, projectAggregate, projectStream(projectId));
  const p = project.state;
  // another label's project, or another user's: as if there were none
  if (
    p.status !== 'active' ||
    p.labelId !== by.labelId ||
    (by.userRef !== undefined && p.userRef !== by.userRef)
  )
    throw new DomainError('not_found', 'project not found', 'project_not_found');
  if (item.sku !== p.content.sku)
    throw new DomainError(
      'conflict',
      `the project is now of ${p.content.sku}, the item was sold as ${item.sku}`,
      'product_changed',
    );
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    item.stream_id,
    {
      type: 'ReviseItem',
      orderItemId,
      projectId,
      projectVersion: Number(project.revision ?? 0n) + 1,
      design: p.content.design,
      at: new Date(),
    },
    metadata,
  );
  await ctx.readModels.seen('orders', r.appended?.position, r.events.at(-1)?.type);
  const after = r.state.exists ? r.state.items.get(orderItemId) : undefined;
  if (!after) throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  return {
    orderItemId,
    version: after.designVersion,
    status: after.status,
    ...(after.approval ? { approval: after.approval.status } : {}),
  };
}
