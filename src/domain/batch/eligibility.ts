import type { ItemState, OrderState } from '../order/decider.ts';
import { approvedForProduction, fileToPrint } from '../order/state.ts';
import { inkSetOf } from './events.ts';

/** What every item of a batch shares: the first item taken sets it. */
export interface BatchKind {
  printMethod: string;
  inkSet: string;
  outputProfile: { sha256: string; description: string };
}

export type Eligibility =
  | {
      ok: true;
      item: ItemState & { preflight: NonNullable<ItemState['preflight']> };
      kind: BatchKind;
    }
  | { ok: false; code: string; reason: string };

const no = (code: string, reason: string): Eligibility => ({ ok: false, code, reason });

/**
 * Can this order's item join a batch of `kind` (fields left out: any)? The item must be
 * the label's and have a preflighted print file of the same print method, ink set and (with
 * `profile`) output profile. With `readiness`, as when a batch is asked for, it must also be
 * ready now: its order neither cancelled nor on hold, the item on no other batch. (Taking
 * it, the order's decider decides that for good.)
 */
export function eligibility(
  order: OrderState,
  labelId: string,
  orderItemId: string,
  kind: Partial<BatchKind>,
  check: { readiness: boolean; profile: boolean },
): Eligibility {
  const item = order.exists ? order.items.get(orderItemId) : undefined;
  if (!order.exists || order.labelId !== labelId || !item)
    return no('order_item_not_found', 'no such order item of the label');
  if (check.readiness) {
    if (order.status === 'cancelled') return no('order_cancelled', 'the order is cancelled');
    if (order.holds.size > 0) return no('order_on_hold', 'the order is on hold');
    if (!approvedForProduction(item))
      return no('awaiting_approval', 'its proof is awaiting approval');
    if (item.stage !== 'ready' || !item.preflight || order.print.renderer < 2)
      return item.stage === 'batched'
        ? no('in_another_batch', `in batch ${item.batchId}`)
        : no(
            'not_ready',
            order.print.renderer < 2
              ? 'its print file is not PDF/X-4 (an order of the first renderer)'
              : `it is ${item.stage ?? 'not rendered yet'}, not ready`,
          );
  }
  const { preflight } = item;
  if (!fileToPrint(item) || !preflight)
    return no('not_ready', `item ${item.item.itemId} has no preflighted print file`);
  const printMethod = item.item.printMethod.toLowerCase();
  if (kind.printMethod !== undefined && printMethod !== kind.printMethod)
    return no(
      'print_method_differs',
      `printed by ${printMethod}, the batch by ${kind.printMethod}`,
    );
  const inkSet = inkSetOf(preflight.plates);
  if (kind.inkSet !== undefined && inkSet !== kind.inkSet)
    return no('ink_set_differs', `prints ${inkSet}, the batch ${kind.inkSet}`);
  const outputProfile = order.print.outputProfile;
  if (check.profile && kind.outputProfile && outputProfile.sha256 !== kind.outputProfile.sha256)
    return no(
      'output_profile_differs',
      `made for ${outputProfile.description}, the batch for ${kind.outputProfile.description}`,
    );
  return { ok: true, item: { ...item, preflight }, kind: { printMethod, inkSet, outputProfile } };
}
