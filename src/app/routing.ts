import { facilitiesForRouting, facilityRow, hasFacilities } from '#projections/facilities';
import { findOrderItem } from '#projections/orders';
import {
  dateIn,
  decideRoute,
  type FacilityForRouting,
  type RoutedFacts,
  withLaterRoutings,
  workingDeadline,
} from '../domain/facility/routing.ts';
import { type OrderState, orderAggregate } from '../domain/order/decider.ts';
import { labelOfOrderStream } from '../domain/order/events.ts';
import type { ItemState, Routing } from '../domain/order/state.ts';
import { approvedForProduction } from '../domain/order/state.ts';
import { DomainError } from '../domain/shared/decider.ts';
import {
  comparePositions,
  type EventMetadata,
  type EventStore,
  type Position,
} from '../eventstore/port.ts';
import {
  derivedIds,
  handleCommand,
  loadState,
  readState,
  type StreamState,
} from './command-handler.ts';
import type { AppContext } from './context.ts';

/*
 * Where items are made: the rules' decision for an item whose print file is ready (and
 * approved), again for one whose facility was paused or for one that waited as
 * unroutable, and an operator's move by hand.
 */

export interface RoutingDeps {
  store: EventStore;
  pool: AppContext['pool'];
  /** resolves once the facilities' loads have taken the log up to a position */
  loadsSeen: (position: Position) => Promise<boolean>;
  /** resolves once the read models of items (their stages) have taken an append */
  itemsSeen: (position: Position) => Promise<boolean>;
  /** resolves once the facilities read model has taken an append */
  facilitiesSeen: (position: Position) => Promise<boolean>;
}

/**
 * Routing decisions one after another, each counting the ones before without waiting for
 * the read model: the loads are read with their checkpoint, and this process's decisions
 * after it are added to them. Whenever this process takes routing on (at its start, or
 * back from another process), the first decision waits for the loads to have taken the
 * log as it stands then: another process's decisions, or those of one killed mid-way,
 * are counted from there.
 */
export function routingInOrder(deps: Pick<RoutingDeps, 'store' | 'loadsSeen'>) {
  let pending: { position: Position; facts: RoutedFacts }[] = [];
  let warm = false;
  return {
    /** routing taken on (again): what this process remembers may be short of the log */
    acquired() {
      warm = false;
      pending = [];
    },
    async ready() {
      if (warm) return;
      // not caught up: the reaction fails and is tried again, rather than decide on old loads
      if (!(await deps.loadsSeen(await deps.store.headPosition())))
        throw new Error('the facilities’ loads have not caught up with the log');
      warm = true;
    },
    appended(position: Position, facts: RoutedFacts) {
      pending.push({ position, facts });
    },
    /** the loads as of `asOf`, with this process's later decisions added */
    counted(facilities: FacilityForRouting[], asOf: Position): FacilityForRouting[] {
      pending = pending.filter((p) => comparePositions(p.position, asOf) > 0);
      return withLaterRoutings(
        facilities,
        pending.map((p) => p.facts),
      );
    },
  };
}
export type InOrder = ReturnType<typeof routingInOrder>;

/** The largest print area of an item: what a facility's size limit is checked against. */
const sizeOf = (i: ItemState) => {
  const areas = i.item.printAreas;
  const biggest = [...areas].sort((a, b) => b.widthMm * b.heightMm - a.widthMm * a.heightMm)[0];
  return { widthMm: biggest?.widthMm ?? 0, heightMm: biggest?.heightMm ?? 0 };
};

/**
 * The order's ship-by clock: from its receipt (from the last approval, where its items
 * waited for one) for as long as the label gave it; none without a deadline.
 */
function shipWithinOf(order: OrderState) {
  if (!order.exists || order.shipBy === null) return undefined;
  return {
    start: new Date(order.approvedAt ?? order.receivedAt),
    ms: Date.parse(order.shipBy) - Date.parse(order.receivedAt),
  };
}

/** Routable by the rules: its print file is ready and, where it needs one, its proof approved. */
export const routable = (i: ItemState) => i.status === 'ready' && approvedForProduction(i);

/** The facilities of a label as routing reads them now ("today" is each one's own). */
async function facilitiesNow(
  deps: Pick<RoutingDeps, 'pool'>,
  labelId: string,
  now: Date,
  inOrder?: InOrder,
) {
  await inOrder?.ready();
  // every facility's today is within a day of UTC's: loads from yesterday (UTC) on hold them all
  const since = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  const { facilities, asOf } = await facilitiesForRouting(deps.pool, labelId, since);
  return inOrder ? inOrder.counted(facilities, asOf) : facilities;
}

/**
 * Routes the items of an order the rules may route now (`first`: not routed yet;
 * `reroute`: the ones at `from`, a paused facility, or waiting as unroutable, null),
 * one after another, each counted in the loads before the next is decided.
 * Nothing for a label without facilities: its one implicit shop floor takes every item.
 */
export async function routeOrderItems(
  deps: RoutingDeps & { inOrder: InOrder },
  stream: string,
  mode: 'first' | 'reroute',
  only?: { orderItemId?: string; from?: string | null },
  causation = 'routing',
): Promise<number> {
  // a label without facilities has its one implicit shop floor: nothing to decide
  if (!(await hasFacilities(deps.pool, labelOfOrderStream(stream)))) return 0;
  // read once: the first decision is appended at this revision (a conflict reads again)
  let read: StreamState<OrderState> = await readState(deps.store, orderAggregate, stream);
  const order = read.state;
  if (!order.exists || order.status === 'cancelled') return 0;
  let facilities: FacilityForRouting[] | undefined;
  let routed = 0;
  for (const item of order.items.values()) {
    if (only?.orderItemId && item.item.orderItemId !== only.orderItemId) continue;
    if (!routable(item)) continue;
    if (mode === 'first' && item.facilityId !== undefined) continue;
    if (mode === 'reroute' && item.facilityId !== only?.from) continue;
    const now = new Date();
    facilities ??= await facilitiesNow(deps, order.labelId, now, deps.inOrder);
    if (facilities.length === 0) return routed;
    const decision = decideRoute(
      { printMethod: item.item.printMethod, ...sizeOf(item) },
      order.shipToCountry,
      facilities,
      now,
      shipWithinOf(order),
    );
    const r = await handleCommand(
      deps.store,
      orderAggregate,
      stream,
      {
        type: 'RouteItem',
        orderItemId: item.item.orderItemId,
        decision,
        mode,
        ...(mode === 'reroute' ? { from: only?.from ?? null } : {}),
        at: now,
      },
      { actor: 'system:routing' },
      {
        // one decision per item and cause (a reaction run twice appends nothing twice)
        eventIds: derivedIds(stream, 'route', item.item.orderItemId, causation),
        read,
        // the order's other items append as their files are made: decided again on each
        conflictRetries: 8,
      },
    );
    if (r.appended) read = { revision: r.appended.nextRevision, state: r.state };
    const made = r.events.find((e) => e.type === 'ItemRouted');
    if (r.appended && made?.type === 'ItemRouted') {
      routed++;
      deps.inOrder.appended(r.appended.position, made.data);
      // the next item of this order counts this one
      facilities = undefined;
    }
  }
  return routed;
}

/**
 * The label's admin (its operator on the shop floor) moves an item to a facility by hand, with a
 * reason; recorded with who did it. 404 for an unknown item or another label's
 * facility; 409 once the item is on the press.
 */
export async function moveItem(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  facilityId: string,
  note: string,
  metadata: EventMetadata,
): Promise<{ orderItemId: string; facilityId: string; day: string }> {
  const found = await findOrderItem(ctx.pool, labelId, orderItemId);
  if (!found) throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  const facility = await facilityRow(ctx.pool, facilityId);
  if (!facility || facility.label_id !== found.label_id)
    throw new DomainError('not_found', 'facility not found', 'facility_not_found');
  const order = await loadState(ctx.store, orderAggregate, found.stream_id);
  const now = new Date();
  const all = await facilitiesNow(ctx, found.label_id, now);
  const day = dateIn(facility.settings.timezone, now);
  const clock = shipWithinOf(order);
  const decision: Routing = {
    facilityId,
    day,
    shipBy: clock ? workingDeadline(facility.settings, clock.start, clock.ms).toISOString() : null,
    reason: {
      rule: 'operator',
      candidates: all.map((f) => ({
        facilityId: f.facilityId,
        name: f.name,
        ...(f.facilityId === facilityId
          ? { verdict: 'chosen' as const, detail: 'was chosen by hand' }
          : { verdict: 'not_chosen' as const, detail: currentDetail(order, orderItemId, f) }),
      })),
      by: { actor: metadata.actor ?? 'someone', note },
    },
  };
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    found.stream_id,
    { type: 'RouteItem', orderItemId, decision, mode: 'operator', at: now },
    { ...metadata, labelId: found.label_id },
  );
  await ctx.readModels.seen('orders', r.appended?.position);
  return { orderItemId, facilityId, day };
}

const currentDetail = (order: OrderState, orderItemId: string, f: FacilityForRouting) =>
  order.exists && order.items.get(orderItemId)?.facilityId === f.facilityId
    ? 'had it before'
    : 'was not chosen';
