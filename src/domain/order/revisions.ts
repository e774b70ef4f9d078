import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  closedBy,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  editWindowClosed,
  itemOf,
  type OrderState,
  proofDue,
  type Recorded,
  withItem,
} from './state.ts';

/*
 * Revisions: an item takes its project's current design, while the order is still in its
 * edit window (none of its items batched or printed), and is rendered, proofed and
 * approved again.
 */

export function reviseItem(
  command: Command<'ReviseItem'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId);
  if (!state.exists) return [];
  if (state.status === 'cancelled') throw cancelled();
  const closed = closedBy(state);
  if (closed) throw editWindowClosed(closed, 'changed');
  if (item.item.projectId !== command.projectId)
    throw new DomainError(
      'invalid',
      `item ${item.item.itemId} was sold from project ${item.item.projectId}, not ${command.projectId}`,
      'project_mismatch',
      { field: 'projectId' },
    );
  if (item.status === 'pending')
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId} is still being rendered: revise it once its print file is made`,
      'item_rendering',
    );
  // the design it has already: nothing to do (a request sent twice)
  if (JSON.stringify(item.item.design) === JSON.stringify(command.design)) return [];
  return [
    {
      type: 'ItemRevised',
      data: {
        orderItemId: command.orderItemId,
        version: item.designVersion + 1,
        projectId: command.projectId,
        projectVersion: command.projectVersion,
        design: command.design,
        revisedAt: at,
      },
    },
  ];
}

export function onItemRevised(state: Recorded, event: Event<'ItemRevised'>): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    item: { ...i.item, design: event.data.design },
    status: 'pending',
    reason: undefined,
    designVersion: event.data.version,
    revisedSinceFile: true,
    // a render for this revision is a new render version, as a barcode update is
    barcodeVersion: i.barcodeVersion + 1,
    approval: i.approval && proofDue(i.approval),
  }));
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  ReviseItem: reviseItem,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  ItemRevised: onItemRevised,
} satisfies EvolveHandlers;
